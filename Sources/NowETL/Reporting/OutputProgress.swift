/// How far one output of a table has got with the rows it takes after the extraction: rows loaded
/// into a database's open transaction, rows written into another instance and confirmed there.
///
/// The extraction's progress is pages arriving (``TableProgress/page(table:rows:totalRows:pages:)``);
/// what follows can take as long again — a rate-limited migration, a large database load — and would
/// otherwise show nothing. A sink sends these through its context (``SinkContext/outputProgress``) as
/// it goes, and ``ProgressReporter`` shows them like the extraction's: on the live line, or as a
/// `progress` log line at most once per interval.
public struct OutputProgress: Sendable, Hashable {
    /// What the output is doing.
    public enum Phase: String, Sendable, Hashable, CaseIterable {
        /// Rows into a database's open transaction (during the join).
        case loading
        /// The load's last steps in its transaction: pruning, backfilling, swapping in the new table.
        case finishing
        /// Rows written into another instance and confirmed in the load's progress record.
        case writing
        /// Deletions propagated to another instance (`deletes: propagate`).
        case deleting
    }

    /// The output, for people: `SQLite output report.db`, `instance https://target.service-now.com`.
    public var output: String
    /// What it is doing.
    public var phase: Phase
    /// Rows done so far in this phase.
    public var rows: Int
    /// Rows the phase has to do, when the output knows.
    public var total: Int?

    /// Describes a step.
    public init(output: String, phase: Phase, rows: Int, total: Int? = nil) {
        self.output = output
        self.phase = phase
        self.rows = rows
        self.total = total
    }

    /// Where a sink sends its progress: the run's reporter, for the sink's table.
    ///
    /// It takes no part in a context's equality or hash: two contexts of the same table and run are the
    /// same context whoever watches them.
    public struct Report: Sendable, Hashable {
        /// Takes one step.
        public let send: @Sendable (OutputProgress) -> Void

        /// Creates a report.
        public init(_ send: @escaping @Sendable (OutputProgress) -> Void) {
            self.send = send
        }

        /// Always `true`: see the type.
        public static func == (lhs: Report, rhs: Report) -> Bool { true }

        /// Adds nothing: see the type.
        public func hash(into hasher: inout Hasher) {}
    }
}
