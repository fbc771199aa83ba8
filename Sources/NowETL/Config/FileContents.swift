import Foundation

/// Reads whole small files with POSIX calls, so failures carry the system's reason
/// (`No such file or directory`), which Foundation's convenience readers do not expose.
enum FileContents {
    /// Why a file could not be read; the description never includes file contents.
    struct Failure: Error, CustomStringConvertible {
        var description: String
    }

    /// The bytes of the file at `path`.
    ///
    /// - Parameters:
    ///   - path: Absolute or relative to the current directory.
    ///   - limit: Files larger than this many bytes are refused.
    static func bytes(ofFile path: String, limit: Int) throws(Failure) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { throw Failure(description: Self.reason(errno)) }
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
                if errno == EINTR { continue }
                throw Failure(description: Self.reason(errno))
            }
            if count == 0 { break }
            bytes.append(contentsOf: chunk[0..<count])
            if bytes.count > limit { throw Failure(description: "it is larger than \(limit) bytes") }
        }
        return bytes
    }

    private static func reason(_ code: Int32) -> String {
        guard let text = strerror(code) else { return "error \(code)" }
        return String(cString: text)
    }
}
