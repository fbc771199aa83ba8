import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A file descriptor that `nowetl` writes text to (standard output or standard error), where a failed
/// write is dropped and counted instead of ending the process.
///
/// Foundation's `FileHandle.write(_:)` traps on an I/O error, so a full `/var/log` behind a cron line's
/// `>>/var/log/nowetl.log 2>&1`, a closed descriptor or a pipe whose reader died would kill a run
/// (SIGILL, exit 132) before it exported anything. Logs and the summary table are a courtesy to the
/// reader; the export and its exit code must not depend on them. The outcome of every write is
/// therefore reduced to "written" or "dropped", and ``droppedWrites`` says how many were lost, for the
/// run summary.
///
/// Writing to a pipe without a reader raises SIGPIPE, whose default action ends the process: creating
/// a stream ignores that signal for the whole process (`write` then fails with `EPIPE`, which is
/// counted like any other failure). The stream does not own its descriptor and never closes it.
public final class StandardStream: Sendable {
    /// The process's standard output (descriptor 1).
    public static let output = StandardStream(fileDescriptor: 1)
    /// The process's standard error (descriptor 2).
    public static let error = StandardStream(fileDescriptor: 2)

    /// The descriptor written to.
    public let fileDescriptor: Int32
    private let dropped = Atomic<Int>(0)

    /// Creates a stream on `fileDescriptor`, which stays the caller's to close.
    public init(fileDescriptor: Int32) {
        self.fileDescriptor = fileDescriptor
        _ = Self.ignoreBrokenPipeSignal
    }

    /// How many writes failed (in whole or in part) and were dropped.
    public var droppedWrites: Int { dropped.load(ordering: .relaxed) }

    /// Writes all of `text`, retrying interrupted and partial writes; returns whether every byte was
    /// written. A failure is counted in ``droppedWrites`` and otherwise ignored.
    @discardableResult
    public func write(_ text: String) -> Bool {
        let bytes = Array(text.utf8)
        let written = bytes.withUnsafeBytes { buffer -> Bool in
            guard var next = buffer.baseAddress else { return true }
            var remaining = buffer.count
            while remaining > 0 {
                let count = Glibc.write(fileDescriptor, next, remaining)
                if count > 0 {
                    next += count
                    remaining -= count
                } else if count < 0 && errno == EINTR {
                    continue
                } else {
                    return false
                }
            }
            return true
        }
        if !written { dropped.add(1, ordering: .relaxed) }
        return written
    }

    /// Sets SIGPIPE to be ignored, once per process.
    private static let ignoreBrokenPipeSignal: Void = {
        signal(SIGPIPE, SIG_IGN)
    }()
}
