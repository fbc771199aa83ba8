import NowData

extension NowETLError {
    /// What went wrong, and through ``exitCode`` the one table of the exit codes NowETL's errors stand
    /// for (the codes themselves are ``NowETLExitCode``'s).
    public enum Code: String, Sendable, Hashable, CaseIterable {
        // MARK: The run as a whole

        /// Anything else: a value that will not convert under `reject: fail`, a bad response, a
        /// table's output that failed (its cause says how).
        case failed
        /// Rate limits, overload or network trouble that outlasted the retries.
        case transient
        /// The instance or the database refused the credentials or the permission.
        case authentication
        /// The instance or the database could not be reached at all.
        case unreachable
        /// More records were rejected than the reject policy allows.
        case rejectsOverThreshold
        /// A setting the run cannot work with: a database that does not exist, a `table_name` too long,
        /// a pipeline without the output a command needs.
        case configuration
        /// The run was asked for wrongly: a `--table` the pipeline does not have.
        case usage

        // MARK: Outputs

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
        /// A system call failed (see ``NowETLError/errno``).
        case io
        /// zlib reported an error.
        case compression
        /// libxml2 reported an error.
        case xml
        /// A database refused a statement or a COMMIT, or its table does not fit the rows (a column
        /// whose type changed).
        case database
        /// A target instance refused a request or a record (``InstanceSink``).
        case instance
        /// A coalesced table cannot be mapped onto the target: a key two target records share, two
        /// source records matching one target record, records without a match under `on_missing: fail`,
        /// a reference left unresolved under `on_unresolved: fail`, or a mapping file that is not
        /// nowetl's (``InstanceMatching``, ``InstanceTableMap``). Nothing of the table was written.
        case mapping
        /// The pre-flight against a migration's target found fields, types or choice values it lacks, or
        /// business rules, notifications or flows the writes would start, and the output does not allow
        /// them (``TargetPreflightReport``). Nothing was written.
        case targetPreflight

        // MARK: The output directory and its state

        /// A symbolic link where nowetl writes one of its own files (`.nowetl.lock`, `.nowetl/`,
        /// a journal); nothing was written through it.
        case symbolicLink
        /// Another run holds the output directory's lock.
        case outputDirectoryBusy
        /// The output directory belongs to another pipeline.
        case foreignOwner
        /// The incremental state file cannot be read, parsed or written.
        case incrementalState
        /// A spill part does not decode as the pages that were written.
        case damagedSpill

        // MARK: The commit and publish mode `directories`

        /// A staged file is neither under its temporary name nor under its target name: something
        /// removed it after the run decided to commit.
        case missingStagedFile
        /// The commit record exists but cannot be read or decoded, or has a version this program does
        /// not know; it is left in place.
        case unreadableCommitRecord
        /// A commit record names a path outside the output directory (or, for a directory to clear,
        /// outside its `.nowetl` state directory); nothing was changed.
        case pathRefused
        /// A commit record of an earlier commit is still in place, so a new one is not written over it.
        case pendingCommitRecord
        /// The run id cannot name a run directory (empty, a dot name, a `/`, a hidden name).
        case invalidRunID
        /// The run directory to publish does not exist.
        case missingRunDirectory
        /// `<output_dir>/current` exists but is not a symbolic link to `runs/<run_id>`.
        case notARunLink

        // MARK: Plans and shards

        /// The tables of a run reference each other in a cycle (``Context/tables``); the pipeline must
        /// say the order.
        case tableCycle
        /// A shard is missing, failed, or its files do not match its manifest: run it again, then merge.
        case shardToRerun
        /// The shards do not belong together (another pipeline file, shard count or tables), or the
        /// pipeline cannot be sharded (an incremental table, an instance output).
        case shardsMismatch

        /// The process exit code of the code — the one table of them (see `--help` and docs/operations.md).
        public var exitCode: Int32 {
            switch self {
            case .transient, .outputDirectoryBusy: NowETLExitCode.temporaryFailure
            case .authentication: NowETLExitCode.permission
            case .unreachable: NowETLExitCode.unavailable
            case .rejectsOverThreshold: NowETLExitCode.rejectsOverThreshold
            case .configuration, .foreignOwner, .incrementalState, .tableCycle, .shardsMismatch, .targetPreflight:
                NowETLExitCode.configuration
            case .usage: NowETLExitCode.usage
            case .symbolicLink: NowETLExitCode.cannotCreate
            case .failed, .pathOutsideOutputDirectory, .invalidSchema, .misuse, .io, .compression, .xml, .database,
                .instance, .mapping, .damagedSpill, .missingStagedFile, .unreadableCommitRecord, .pathRefused,
                .pendingCommitRecord, .invalidRunID, .missingRunDirectory, .notARunLink, .shardToRerun:
                NowETLExitCode.failed
            }
        }

        /// The code of a NowData failure: its ``NowDataError/classification`` (`otherwise` for a
        /// terminal one).
        public init(_ error: NowDataError, otherwise: Code = .failed) {
            switch error.classification {
            case .unreachable: self = .unreachable
            case .authentication: self = .authentication
            case .transient: self = .transient
            case .terminal: self = otherwise
            }
        }

        /// The code another library's error asks for by its exit code (a `PostgresError`'s 69, 75,
        /// 77 or 78), looked up in ``exitCode``'s table; `otherwise` for any other exit code.
        public init(exitCode: Int32, otherwise: Code) {
            let classes: [Code] = [.unreachable, .transient, .authentication, .configuration]
            self = classes.first { $0.exitCode == exitCode } ?? otherwise
        }

        /// The code a table's failure takes from an error below it (an output's): the code of the run-wide
        /// class its exit code belongs to (unreachable, transient, refused, a setting), otherwise
        /// ``failed`` (an output's 69, 75, 77 or 78 stays the table's exit code; any other is 1).
        var forTable: Code { Code(exitCode: exitCode, otherwise: .failed) }
    }
}
