import NowData

#if canImport(Glibc)
    import Glibc
#endif

/// The one error value of NowETL: what went wrong (``code``), a message for people, where it happened
/// (``context``), the error underneath (``cause``) and the line that threw it (``location``).
///
/// Every failure of a run, an output, the run's state or its commit is a `NowETLError`; only a
/// pipeline file's problems are a ``ConfigError`` (the `file:line:col` diagnostic) and a command
/// line's a ``NowETLArguments/UsageError``. The process exit code comes from the code alone, through
/// the one table ``Code/exitCode``.
///
/// The underlying error is kept as a value, never flattened into the message: a caller can still ask
/// it what it was (a `NowDataError`'s classification, a 429's `Retry-After`), and ``description``,
/// the one place that renders it, reads as one log line:
/// `table incident, partition 2, page 5: fetching a page: <the cause>`,
/// `cannot write out/incident.csv.gz: No space left on device (errno 28)`.
/// Neither the message nor the context ever holds a secret.
public struct NowETLError: Error, Sendable, CustomStringConvertible, ExitCodeProviding {
    /// What went wrong.
    public var code: Code
    /// What failed and, where it helps, what to do, for people; without the cause (``description``
    /// adds it).
    public var message: String
    /// Where it happened: the table, partition, page, path, URL.
    public var context: Context
    /// The error underneath, as it was thrown (a `NowDataError`, a `PostgresError`, another
    /// `NowETLError`), or `nil`.
    public var cause: (any Error)?
    /// What the user can do, said after the cause (``description``); `nil` when the message says it.
    public var remedy: String?
    /// The system error number, when a system call failed.
    public var errno: Int32?
    /// The line that threw the error.
    public var location: SourceLocation

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - code: What went wrong; it decides the exit code.
    ///   - message: What failed, for people, without the cause.
    ///   - context: Where it happened.
    ///   - cause: The error underneath, kept as a value.
    ///   - remedy: What to do, rendered after the cause.
    ///   - errno: The system error number, for a failed system call.
    public init(
        _ code: Code, _ message: String, context: Context = Context(), cause: (any Error)? = nil,
        remedy: String? = nil, errno: Int32? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.code = code
        self.message = message
        self.context = context
        self.cause = cause
        self.remedy = remedy
        self.errno = errno
        self.location = SourceLocation(file: file, line: line)
    }

    /// Creates an error about a file, a directory or a database named by `path`.
    public init(
        _ code: Code, path: String, _ message: String, cause: (any Error)? = nil, remedy: String? = nil,
        errno: Int32? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.init(
            code, message, context: Context(path: path), cause: cause, remedy: remedy, errno: errno, file: file,
            line: line)
    }

    /// Creates an error of the pipeline table `table`, at `partition` and `page` where it belongs to one:
    /// `table incident, partition 2, page 5: <message>`.
    public init(
        _ code: Code, table: String, _ message: String, partition: Int? = nil, page: Int? = nil,
        cause: (any Error)? = nil, remedy: String? = nil, file: String = #fileID, line: Int = #line
    ) {
        self.init(
            code, message, context: Context(table: table, partition: partition, page: page), cause: cause,
            remedy: remedy, file: file, line: line)
    }

    /// A ``Code/io`` error for a failed system call (`errno`) while doing `action` (`rename … to`,
    /// `remove`) to `path`: `cannot <action> <path>: <strerror> (errno <n>)`.
    static func io(
        _ action: String, path: String, errno number: Int32 = Glibc.errno, file: String = #fileID, line: Int = #line
    ) -> NowETLError {
        let reason = String(cString: strerror(number))
        return NowETLError(
            .io, path: path, "cannot \(action) \(path): \(reason) (errno \(number))", errno: number, file: file,
            line: line)
    }

    /// The process exit code: the code's, from the one table (``Code/exitCode``).
    public var exitCode: Int32 { code.exitCode }

    /// One line: the place (`table incident, partition 2, page 5`) when the error names a table, then
    /// ``detail`` — the one place a cause becomes text.
    public var description: String { rendered(place: place) }

    /// The description without the place: the message, the cause, then the remedy — what a report that
    /// names the table already (a reconciliation's failure) says about it.
    public var detail: String { rendered(place: nil) }

    /// How any error reads for people — a log line's `error` value, a run's or a table's outcome, a line on
    /// standard error, a diagnostic's reason: `<what>: <the error's description>`, or the description
    /// alone. Rendered as the description of an error with `error` as its cause, so code that shows an
    /// error never interpolates it by hand: this and ``description`` are the one place.
    public static func text(of error: any Error, after what: String = "") -> String {
        NowETLError(.failed, what, cause: error).description
    }

    /// The URL of the failed request underneath `error`, when one failed: what `--log-level debug`
    /// shows beside the error line, which names only the method and the table.
    public static func requestURL(in error: any Error) -> String? {
        switch error {
        case let error as NowETLError: error.context.url ?? error.cause.flatMap(requestURL(in:))
        case let error as NowDataError:
            error.context.flatMap { $0.url.isEmpty ? nil : $0.url }
                ?? { if case .network(let failure) = error { failure.failingURL } else { nil } }()
        case let error as RefusedRequest: requestURL(in: error.error)
        default: nil
        }
    }

    /// The error with `label` said before its message (`target: fetching a page: …`): which side or which
    /// step of a caller it came from.
    public func labelled(_ label: String) -> NowETLError {
        var error = self
        error.message = message.isEmpty ? label : label + ": " + message
        return error
    }

    /// `table incident, partition 2, page 5`, when the error names a table.
    private var place: String? {
        guard let table = context.table else { return nil }
        var place = "table \(table)"
        if let partition = context.partition { place += ", partition \(partition)" }
        if let page = context.page { place += ", page \(page)" }
        return place
    }

    private func rendered(place: String?) -> String {
        var parts: [String] = []
        if let place { parts.append(place) }
        if !message.isEmpty { parts.append(message) }
        // A request's URL (a page's query runs to hundreds of characters) is logged at debug level
        // (``requestURL(in:)``), not in the line people read.
        if let cause { parts.append((cause as? NowDataError)?.description(showingURL: false) ?? "\(cause)") }
        var text = parts.joined(separator: ": ")
        if let remedy { text += "; " + remedy }
        return text
    }
}

extension NowETLError {
    /// Where an error happened; every field is optional and none ever holds a secret.
    public struct Context: Sendable, Hashable {
        /// The pipeline table.
        public var table: String?
        /// The tables concerned when there are several (the tables of a reference cycle).
        public var tables: [String]
        /// The zero-based sys_id partition, when the failure belongs to one.
        public var partition: Int?
        /// The zero-based page of the partition, when the failure belongs to one.
        public var page: Int?
        /// The file, directory or database concerned (the target path, not a hidden temporary one).
        public var path: String?
        /// The request URL, without user info, when the failure came from a request.
        public var url: String?

        /// Creates a context.
        public init(
            table: String? = nil, tables: [String] = [], partition: Int? = nil, page: Int? = nil,
            path: String? = nil, url: String? = nil
        ) {
            self.table = table
            self.tables = tables
            self.partition = partition
            self.page = page
            self.path = path
            self.url = url
        }
    }

    /// The source line an error was thrown from (`#fileID`, `#line`), for a developer reading a report.
    public struct SourceLocation: Sendable, Hashable, CustomStringConvertible {
        /// The file, as `#fileID` names it (`NowETL/State/RunCommit.swift`).
        public var file: String
        /// The line.
        public var line: Int

        /// Creates a location.
        public init(file: String, line: Int) {
            self.file = file
            self.line = line
        }

        /// `NowETL/State/RunCommit.swift:118`.
        public var description: String { "\(file):\(line)" }
    }
}
