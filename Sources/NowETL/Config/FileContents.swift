import Foundation

/// Reads whole small files with POSIX calls, so failures carry the system's reason
/// (`No such file or directory`), which Foundation's convenience readers do not expose.
enum FileContents {
    /// Why a file could not be read; the description never includes file contents.
    struct Failure: Error, CustomStringConvertible {
        var description: String
        /// The `errno` of a failed system call, when that is what failed.
        var code: Int32?

        /// The file does not exist (`ENOENT`).
        var isMissingFile: Bool { code == ENOENT }
    }

    /// The bytes of the file at `path`.
    ///
    /// - Parameters:
    ///   - path: Absolute or relative to the current directory.
    ///   - limit: Files larger than this many bytes are refused.
    static func bytes(ofFile path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let code = errno
            throw Failure(description: Self.reason(code), code: code)
        }
        defer { close(descriptor) }
        var status = stat()
        if fstat(descriptor, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR {
            throw Failure(description: "it is a directory")
        }
        var bytes: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 64 * 1024)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                let code = errno
                if code == EINTR { continue }
                throw Failure(description: Self.reason(code), code: code)
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw Failure(description: "it is larger than \(limit) bytes") }
        }
        return bytes
    }

    /// The permission bits of the file at `path` (following symbolic links) when its group or others
    /// may read it; `nil` when only its owner may, or when it cannot be examined.
    static func readableByGroupOrOthers(_ path: String) -> mode_t? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        let permissions = status.st_mode & 0o7777
        return permissions & (S_IRGRP | S_IROTH) != 0 ? permissions : nil
    }

    /// `0644`: permission bits as `chmod` and `ls -l` users read them.
    static func octal(_ permissions: mode_t) -> String {
        let digits = String(permissions, radix: 8)
        return String(repeating: "0", count: max(0, 4 - digits.count)) + digits
    }

    private static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
