import Foundation
import NowData

/// A ``PageDecoding`` that reads the page body in one pass of its own bytes: the records
/// ``FoundationPageDecoder`` gives, without Foundation's object graph.
///
/// It accepts and rejects exactly the bodies `JSONSerialization` accepts and rejects (a body that is
/// not JSON, invalid UTF-8, a lone surrogate escape, more than 512 nested containers, bytes after the
/// value all throw), and maps values the same way: a string is ``Record/Value/text(_:)``, an object
/// of forms is ``Record/Value/forms(value:displayValue:link:)``, `null` and arrays are
/// ``Record/Value/null``, numbers and booleans are their `NSNumber.stringValue` (`42`, `1.5`, `1000.0`
/// for `1e3`, `1` for `true`). A body in UTF-16 or UTF-32 (which `JSONSerialization` also reads, and
/// no instance sends) is handed to ``FoundationPageDecoder``.
///
/// Values stay byte ranges of the body (``PageText``) until a transform reads them, so a record holds
/// its page's body and a field or form nobody reads never becomes a `String`.
///
/// The same pass finds what NowData's keyset paging needs (record count, greatest sys_id, no `error`
/// member), so a page can be validated and decoded at once (``keysetPageRead(of:)``).
public struct FastPageDecoder: PageDecoding {
    /// The dot path of the record array (`result`).
    public var path: [String]
    /// The fields to keep; `nil` keeps every field. Other fields are validated and skipped without
    /// allocating.
    public var fields: Set<String>?

    /// Creates a decoder for the records at the dot path `path` (default `result`).
    /// - Parameter fields: the field names to keep (`nil`, the default: all).
    public init(path: String = "result", fields: Set<String>? = nil) {
        self.path = path.split(separator: ".").map(String.init)
        self.fields = fields
    }

    /// The records of the array at ``path``.
    public func records(in body: Data) throws(PageDecodingError) -> [Record] {
        try read(body).records.get()
    }

    /// The records with the facts of NowData's keyset page, when the body is a complete object whose
    /// `result` array holds only records and which has no `error` member; `nil` otherwise (NowData then
    /// scans the body itself, and ``records(in:)`` says what is wrong).
    public func keysetPageRead(of body: Data) -> KeysetPageRead<[Record]>? {
        guard path == ["result"] else { return nil }
        let read = read(body)
        guard case .success(let records) = read.records, !read.hasErrorMember else { return nil }
        return KeysetPageRead(content: records, recordCount: records.count, lastSysId: read.greatestSysID)
    }

    /// What one pass found.
    struct Read {
        var records: Result<[Record], PageDecodingError>
        var greatestSysID: String?
        var hasErrorMember: Bool
    }

    func read(_ body: Data) -> Read {
        if Self.isWideUnicode(body) || body.count > Int(UInt32.max) {
            // UTF-16/32, or a body beyond what a ``TextRange`` can point into (no instance sends either).
            return Read(records: Result { () throws(PageDecodingError) in try wideRecords(body) }, hasErrorMember: true)
        }
        return body.withUnsafeBytes { (bytes: UnsafeRawBufferPointer) -> Read in
            guard let address = bytes.baseAddress else {
                return Read(
                    records: .failure(PageDecodingError("the page is not valid JSON (0 bytes): the body is empty")),
                    hasErrorMember: false)
            }
            var parser = FastPageParser(
                base: address.assumingMemoryBound(to: UInt8.self), count: bytes.count, path: path, projection: fields)
            do throws(FastPageParser.Failure) {
                try parser.parse()
            } catch {
                return Read(
                    records: .failure(
                        PageDecodingError(
                            "the page is not valid JSON (\(body.count) bytes): \(error.reason) at byte \(error.offset)")
                    ),
                    hasErrorMember: parser.hasErrorMember)
            }
            let records: Result<[Record], PageDecodingError>
            let page = PageText(body: body, extras: parser.extras)
            switch parser.target {
            case .records:
                records = .success(parser.records.map { Record(layout: $0.layout, page: page, values: $0.values) })
            case .missing: records = .failure(PageDecodingError("the page has no '\(path.joined(separator: "."))'"))
            case .notArray:
                records = .failure(PageDecodingError("'\(path.joined(separator: "."))' of the page is not an array"))
            case .notRecord: records = .failure(PageDecodingError("a record of the page is not a JSON object"))
            }
            return Read(
                records: records, greatestSysID: parser.greatestSysID.map { parser.text(of: $0) },
                hasErrorMember: parser.hasErrorMember)
        }
    }

    /// Whether the body is UTF-16 or UTF-32 (a byte order mark, or a zero byte among the first two,
    /// which UTF-8 JSON cannot have).
    private static func isWideUnicode(_ body: Data) -> Bool {
        guard body.count >= 2 else { return false }
        let first = body[body.startIndex]
        let second = body[body.startIndex + 1]
        return first == 0 || second == 0 || (first == 0xFE && second == 0xFF) || (first == 0xFF && second == 0xFE)
    }

    private func wideRecords(_ body: Data) throws(PageDecodingError) -> [Record] {
        var reference = FoundationPageDecoder()
        reference.path = path
        let records = try reference.records(in: body)
        guard let fields else { return records }
        return records.map { Record(fields: $0.fields.filter { fields.contains($0.key) }) }
    }
}
