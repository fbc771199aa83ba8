import Foundation
import NowData

/// Why exporting a table failed: which table, where (partition, page, URL without credentials), and
/// what kind of failure it was — the kind decides the process exit code.
public struct TableRunError: Error, Sendable, CustomStringConvertible, ExitCodeProviding {
    /// The kind of failure, mapped to the exit codes of the command line.
    public enum Kind: String, Sendable, Hashable {
        /// Rate limits, overload or network trouble that outlasted the retries (exit 75).
        case transient
        /// Authentication or permission (exit 77).
        case authentication
        /// The instance could not be reached at all (exit 69).
        case unreachable
        /// More records were rejected than the reject policy allows (exit 2).
        case rejectsOverThreshold
        /// A setting the run cannot work with: a database output's database that does not exist (exit 78).
        case configuration
        /// Anything else: a value that will not convert under `reject: fail`, a bad response, an I/O
        /// error of a sink (exit 1).
        case other
    }

    /// The table.
    public var table: String
    /// The kind of failure.
    public var kind: Kind
    /// What went wrong, with the partition, page and URL where known; never credentials.
    public var message: String
    /// The zero-based sys_id partition, when the failure belongs to one.
    public var partition: Int?
    /// The zero-based page of the partition, when the failure belongs to one.
    public var page: Int?
    /// The request URL (without user info), when the failure came from a request.
    public var url: String?
    /// What a failed page request tells the instance's request limiter (a 429 that NowData gave up
    /// retrying is a throttle, anything else a failure).
    var limiterOutcome = RequestLimiter.Outcome.failed
    /// The instance gave up on the page (a cancelled transaction, a body cut after the transport's
    /// retries): the same window with fewer records may succeed.
    var smallerPageMayHelp = false
    /// HTTP requests the failed step made, its transport's retries included (1 when unknown): a try
    /// that failed still counts in the run's `requests`.
    var requests = 1

    /// Creates an error.
    public init(
        table: String, kind: Kind, _ message: String, partition: Int? = nil, page: Int? = nil, url: String? = nil
    ) {
        self.table = table
        self.kind = kind
        self.message = message
        self.partition = partition
        self.page = page
        self.url = url
    }

    /// Classifies a NowData failure.
    public init(table: String, during step: String, _ error: NowDataError, partition: Int? = nil, page: Int? = nil) {
        self.init(
            table: table, kind: Self.kind(of: error), "\(step): \(error)", partition: partition, page: page,
            url: error.context?.url)
        requests = max(1, error.context?.attempts ?? 1)
    }

    /// The process exit code for this failure (see the command's `--help`).
    public var exitCode: Int32 {
        switch kind {
        case .transient: 75
        case .authentication: 77
        case .unreachable: 69
        case .rejectsOverThreshold: 2
        case .configuration: 78
        case .other: 1
        }
    }

    /// `table incident, partition 2, page 5: …`.
    public var description: String {
        var place = "table \(table)"
        if let partition { place += ", partition \(partition)" }
        if let page { place += ", page \(page)" }
        return place + ": " + message
    }

    /// The kind of a NowData failure: its ``NowDataError/classification``.
    static func kind(of error: NowDataError) -> Kind {
        switch error.classification {
        case .unreachable: .unreachable
        case .authentication: .authentication
        case .transient: .transient
        case .terminal: .other
        }
    }
}
