import Foundation

/// A password or client secret from a pipeline file, which never prints itself.
///
/// `description`, `debugDescription` and reflection all show `<redacted>`, so logging a whole
/// configuration cannot leak it; read ``value`` only where the secret is used.
public struct Secret: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The secret itself.
    public var value: String

    /// Wraps a secret.
    public init(_ value: String) {
        self.value = value
    }

    /// `<redacted>`.
    public var description: String { "<redacted>" }
    /// `<redacted>`.
    public var debugDescription: String { description }
    /// A mirror without the value.
    public var customMirror: Mirror { Mirror(self, children: ["value": "<redacted>"]) }

    /// The largest secret file read, in bytes.
    static let maximumFileSize = 64 * 1024

    /// Decodes a secret given either inline (`password: ${SN_PASSWORD}`) or as a file
    /// (`password_file: /run/secrets/sn`); exactly one of the two keys may be present.
    ///
    /// A file is read whole, with trailing line breaks removed (so `echo secret > file` works);
    /// relative paths are relative to the pipeline file's directory (``PipelineLoadContext`` in
    /// `userInfo`). A file its group or others can read is used, with a warning. Errors name the key
    /// and the file, never its contents.
    ///
    /// - Returns: `nil` when neither key is present.
    static func decode<Key: CodingKey>(
        from container: KeyedDecodingContainer<Key>, value valueKey: Key, file fileKey: Key,
        userInfo: [CodingUserInfoKey: Any]
    ) throws -> Secret? {
        let context = PipelineLoadContext.of(userInfo)
        let inline = try container.decodeIfPresent(String.self, forKey: valueKey)
        let file = try container.decodeIfPresent(String.self, forKey: fileKey).map { context?.resolve($0) ?? $0 }
        switch (inline, file) {
        case (.some, .some):
            throw container.issue(
                fileKey,
                "give either \(valueKey.stringValue) or \(fileKey.stringValue) \(ConfigPath(codingPath: container.codingPath).inPhrase), not both",
                pointsAtKey: true)
        case (let inline?, nil):
            guard !inline.isEmpty else {
                throw container.issue(valueKey, "\(container.path(valueKey)) is empty")
            }
            return Secret(inline)
        case (nil, let path?):
            let bytes: [UInt8]
            do {
                bytes = try FileContents.bytes(ofFile: path, limit: maximumFileSize)
            } catch {
                throw container.issue(
                    fileKey,
                    NowETLError.text(
                        of: error, after: "cannot read the secret file '\(path)' named by \(container.path(fileKey))"),
                    kind: .secretFile)
            }
            if let permissions = FileContents.readableByGroupOrOthers(path) {
                context?.warn(
                    at: container.codingPath + [fileKey],
                    "the secret file '\(path)' named by \(container.path(fileKey)) can be read by its group or "
                        + "others (mode \(FileContents.octal(permissions))); make it private: chmod 600 '\(path)'")
            }
            let text = text(ofFile: bytes)
            guard !text.isEmpty else {
                throw container.issue(
                    fileKey, "the secret file '\(path)' named by \(container.path(fileKey)) is empty", kind: .secretFile
                )
            }
            return Secret(text)
        case (nil, nil):
            return nil
        }
    }

    /// A secret file's text: its bytes as UTF-8 without the line breaks at the end (an editor's or
    /// `echo`'s), which are never part of a password.
    static func text(ofFile bytes: [UInt8]) -> String {
        var text = String(decoding: bytes, as: UTF8.self)
        while let last = text.last, last == "\n" || last == "\r\n" || last == "\r" { text.removeLast() }
        return text
    }

    /// Like ``decode(from:value:file:userInfo:)``, but one of the two keys is required.
    static func decodeRequired<Key: CodingKey>(
        from container: KeyedDecodingContainer<Key>, value valueKey: Key, file fileKey: Key,
        userInfo: [CodingUserInfoKey: Any]
    ) throws -> Secret {
        guard let secret = try decode(from: container, value: valueKey, file: fileKey, userInfo: userInfo) else {
            throw container.issue(
                "missing key '\(valueKey.stringValue)' (or '\(fileKey.stringValue)') \(ConfigPath(codingPath: container.codingPath).inPhrase)",
                kind: .missingKey)
        }
        return secret
    }
}
