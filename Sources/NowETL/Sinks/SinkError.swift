#if canImport(Glibc)
    import Glibc
#endif

/// An error of a sink, naming the file (or database) it concerns.
///
/// `description` reads as one log line: `nowetl: cannot write out/incident.csv.gz: No space left on
/// device (errno 28)`. The sink that threw has already removed its temporary files when the error
/// came from ``RecordSink/prepare()``; after an error from ``RecordSink/write(_:)`` the caller calls
/// ``RecordSink/abort()``.
public struct SinkError: Error, Sendable, Hashable, CustomStringConvertible {
    /// What went wrong.
    public enum Code: String, Sendable, Hashable {
        /// A resolved output path would leave the output directory: a placeholder value is empty or a
        /// dot name, or holds a `/` (malformed templates are refused earlier, by
        /// ``OutputPathTemplate/init(_:)``).
        case pathOutsideOutputDirectory
        /// A column or table name cannot be written in this format (an XML element name, a duplicate
        /// JSON key), or the options are inconsistent.
        case invalidSchema
        /// The batch does not fit the schema given at open, or the sink was used out of order
        /// (write before open, write after prepare, commit without prepare).
        case misuse
        /// A system call failed (see ``errno``).
        case io
        /// zlib reported an error.
        case compression
        /// libxml2 reported an error.
        case xml
        /// A database refused a connection, a statement or a COMMIT, or its table does not fit the
        /// rows (a column whose type changed).
        case database
        /// A target instance refused a request or a record, or could not be reached (``InstanceSink``).
        case instance
    }

    /// What went wrong.
    public var code: Code
    /// The file (the target path, not the hidden temporary one) or template concerned.
    public var path: String
    /// What the sink was doing and why it failed, for people.
    public var message: String
    /// The system error number for ``Code/io``.
    public var errno: Int32?
    /// The process exit code the failure calls for when it is not 1: a database or target instance that
    /// cannot be reached (69), refuses the credentials or the permission (77), does not exist (78), or
    /// kept failing transiently through the retries (75).
    public var exitCode: Int32?

    /// Creates an error.
    public init(_ code: Code, path: String, _ message: String, errno: Int32? = nil, exitCode: Int32? = nil) {
        self.code = code
        self.exitCode = exitCode
        self.path = path
        self.message = message
        self.errno = errno
    }

    /// An ``Code/io`` error for the current `errno`.
    static func io(_ action: String, path: String, errno number: Int32 = Glibc.errno) -> SinkError {
        let reason = String(cString: strerror(number))
        return SinkError(.io, path: path, "cannot \(action) \(path): \(reason) (errno \(number))", errno: number)
    }

    /// The message.
    public var description: String { message }
}
