import Foundation
import NowData

/// The exit codes of `nowetl`, part of its interface (ARCHITECTURE.md, *Errors*); `--help` and
/// docs/operations.md list them.
public enum NowETLExitCode {
    /// Every selected table was exported.
    public static let ok: Int32 = 0
    /// The run failed (a table could not be exported, the manifest could not be written).
    public static let failed: Int32 = 1
    /// The run finished, but a table rejected more records than its `reject.max` allows.
    public static let rejectsOverThreshold: Int32 = 2
    /// The command line is wrong (`EX_USAGE`).
    public static let usage: Int32 = 64
    /// `init --output` names a file that exists (without `--force`) or cannot be written (`EX_CANTCREAT`).
    public static let cannotCreate: Int32 = 73
    /// The instance could not be reached (`EX_UNAVAILABLE`).
    public static let unavailable: Int32 = 69
    /// A temporary failure persisted after the retries: rate limits, overload, network (`EX_TEMPFAIL`).
    public static let temporaryFailure: Int32 = 75
    /// The instance refused the credentials or the permission (`EX_NOPERM`).
    public static let permission: Int32 = 77
    /// The pipeline file is wrong (`EX_CONFIG`).
    public static let configuration: Int32 = 78
    /// The run was stopped by SIGINT (128 + 2, as a shell reports it).
    public static let interrupted: Int32 = 130
    /// The run was stopped by SIGTERM (128 + 15, as a shell reports it).
    public static let terminated: Int32 = 143

    /// The exit codes as `--help` lists them.
    public static let helpText = """
        EXIT CODES:
          0  ok                                  1  failed
          2  finished, rejects over reject.max  64  usage error
          69 instance unreachable               73  init: the --output file exists (no --force);
                                                    a symbolic link at one of nowetl's own files
          75 temporary failure after retries (rate limit, network),
             or another run holds the output_dir
          77 authentication or permission       78  configuration error (file:line:col on stderr),
                                                    an incremental state file that does not parse,
                                                    an output_dir another pipeline owns, or
                                                    a migration target's pre-flight refused
          130 stopped by SIGINT, 143 by SIGTERM (the summary is written; a second signal exits at once)
        """

    /// Every exit code with what it means, for the man page's EXIT STATUS (``helpText`` is `--help`'s).
    public static let documented: [(code: Int32, meaning: String)] = [
        (ok, "Every selected table was exported (validate: the pipeline is good; reconcile: every table is equal)."),
        (
            failed,
            "Failed: a table could not be exported, the manifest could not be written, a shard is missing "
                + "(reconcile: a table differs)."
        ),
        (rejectsOverThreshold, "The run finished, but a table rejected more records than its reject.max allows."),
        (usage, "The command line is wrong."),
        (unavailable, "The instance could not be reached."),
        (
            cannotCreate,
            "init: the --output file exists (pass --force to replace it) or cannot be written; a symbolic link "
                + "where nowetl writes one of its own files in output_dir (the lock, .nowetl/)."
        ),
        (
            temporaryFailure,
            "A temporary failure persisted after the retries (rate limit, overload, network), "
                + "or another run holds the output_dir."
        ),
        (permission, "The instance refused the credentials or the permission."),
        (
            configuration,
            "The pipeline file is wrong (file:line:col on stderr), an incremental state file "
                + "does not parse, the output_dir belongs to another pipeline, or the pre-flight of an instance "
                + "output refused its target (missing fields or choice values, business rules, notifications, flows)."
        ),
        (interrupted, "Stopped by SIGINT (the summary is written; a second signal exits at once)."),
        (terminated, "Stopped by SIGTERM (the summary is written; a second signal exits at once)."),
    ]

    /// The exit code an error stands for.
    ///
    /// A ``NowETLError`` stands for its code's (``NowETLError/Code/exitCode``, the one table); any
    /// other error that conforms to ``ExitCodeProviding`` (``ConfigError``, a usage error) says so
    /// itself; NowData's errors stand for the code of their classification (``NowETLError/Code/init(_:otherwise:)``:
    /// authentication → 77, unreachable → 69, transient → 75, terminal → 1); anything else is 1.
    public static func code(for error: any Error) -> Int32 {
        if let provider = error as? any ExitCodeProviding { return provider.exitCode }
        guard let error = error as? NowDataError else { return failed }
        return NowETLError.Code(error).exitCode
    }
}
