import Foundation
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Named points in a run where the process can be made to kill itself with SIGKILL — a test hook for
/// the crash tests, not a user feature (it is not in `--help`).
///
/// When the environment variable `NOWETL_CRASH_AT` is `NAME` or `NAME:K`, the K-th time (the first
/// when `:K` is absent) the process reaches the point `NAME` it sends itself SIGKILL: a real `kill -9`,
/// so no handler runs, nothing is flushed, closed or cleaned up. A random-time kill from outside hits
/// the narrow windows (the commit) only by luck; this hits them every time. The points:
///
/// | name | where |
/// | --- | --- |
/// | `spill-appended` | ``TableJournal``: a page is in its spill, its journal line not yet written |
/// | `instance-confirmed` | ``InstanceSink``: a group of rows is written to the target and confirmed in the load's progress record (`:K` = the K-th group) |
/// | `attachment-streaming` | ``AttachmentFileStream``: a download has passed its first MiB (`:K` = the K-th such download) |
/// | `attachment-downloaded` | ``AttachmentDownloads``: a download is complete and recorded in `attachments.done` (`:K` = the K-th) |
/// | `table-prepared` | a table's spills are joined into its outputs, staged but not committed |
/// | `database-committed` | ``RunCommit/commit(_:runID:outputDirectory:manifest:published:state:fileMode:)``: every database output COMMITted, the commit record not yet written |
/// | `commit-record` | ``RunCommit/write(_:outputDirectory:)``: the commit record is on disk (the commit is decided) |
/// | `commit-rename` | ``RunCommit/apply(_:outputDirectory:)``: after each staged file is in place (`:K` = the K-th); also during a recovery |
/// | `commit-manifest` | ``RunCommit/apply(_:outputDirectory:)``: the manifest is in place, journals and record not yet removed |
///
/// The variable is read once, from the process environment (not the `environment` a test hands to
/// ``NowETLCommand/main(_:environment:streams:makeTableRunner:stopSignals:)``, so an in-process test can
/// never kill the test runner). Unset, a point costs one load and a comparison with `nil`. A value
/// whose `:K` is not a positive integer is taken whole as the name, which no point has: nothing fires.
enum CrashPoint {
    /// Which point kills the process, and at which of its occurrences.
    struct Trigger: Sendable, Hashable {
        /// The point's name.
        var name: String
        /// Which time the point is reached that kills (1 = the first).
        var occurrence: Int

        /// Parses `NAME` or `NAME:K`; `nil` for no value or an empty one.
        init?(_ text: String?) {
            guard let text, !text.isEmpty else { return nil }
            if let colon = text.lastIndex(of: ":"), let count = Int(text[text.index(after: colon)...]), count > 0,
                colon != text.startIndex
            {
                name = String(text[..<colon])
                occurrence = count
            } else {
                name = text
                occurrence = 1
            }
        }
    }

    /// The environment variable that arms a point.
    static let environmentVariable = "NOWETL_CRASH_AT"

    /// The armed point, read once.
    private static let trigger = Trigger(getenv(environmentVariable).map { String(cString: $0) })
    /// How often the armed point was reached so far.
    private static let reachedCount = Atomic<Int>(0)

    /// Marks that the run reached the point `name`; kills the process when `NOWETL_CRASH_AT` says so.
    static func reached(_ name: String) {
        guard let trigger, trigger.name == name else { return }
        guard reachedCount.add(1, ordering: .relaxed).newValue == trigger.occurrence else { return }
        kill(getpid(), SIGKILL)
    }
}
