import Foundation

/// Writes `port` (decimal, then a newline) to `path` atomically: a temporary file beside it, renamed
/// into place, so a test polling for the file never reads a half-written number.
///
/// - Throws: `HTTPServerError` with code `.portFileUnwritable`, naming the path and the system error.
public func writePortFile(_ path: String, port: Int) throws {
    let directory = (path as NSString).deletingLastPathComponent
    let name = (path as NSString).lastPathComponent
    let temporary =
        (directory.isEmpty ? "" : directory + "/") + ".\(name).\(getpid()).\(UInt32.random(in: 0...UInt32.max)).tmp"
    func failure(_ action: String) -> HTTPServerError {
        let reason = String(cString: strerror(errno))
        return HTTPServerError(.portFileUnwritable, "cannot write port file \(path): \(action) failed: \(reason)")
    }
    let fd = open(temporary, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0o644)
    guard fd >= 0 else { throw failure("creating \(temporary)") }
    var text = "\(port)\n"
    let written = text.withUTF8 { write(fd, $0.baseAddress!, $0.count) }
    let expected = text.utf8.count
    if written != expected {
        let error = failure("writing")
        close(fd)
        unlink(temporary)
        throw error
    }
    close(fd)
    guard rename(temporary, path) == 0 else {
        let error = failure("renaming \(temporary)")
        unlink(temporary)
        throw error
    }
}
