/// A sink that keeps the rows in memory, up to an optional row limit — for `nowetl preview` and tests.
///
/// Rows past the limit are dropped, and ``isFull`` tells the producer it can stop fetching. Nothing is
/// written anywhere, so ``prepare()`` stages nothing and ``commit()`` produces no artifact; the rows
/// stay readable after the commit, until the next ``open(schema:context:)`` or an ``abort()``.
///
/// States: `closed` → open → `open` → prepare → `prepared` → commit → `committed` (rows kept; open
/// starts the next table); abort → `closed` with the rows dropped from `open` or `prepared`, and does
/// nothing after a commit.
public final class MemorySink: RecordSink {
    /// The most rows kept, or `nil` for no limit.
    public let rowLimit: Int?
    /// The schema given at the last open.
    public private(set) var schema = RowSchema(columns: [])
    /// The context given at the last open.
    public private(set) var context: SinkContext?
    /// The rows kept, in the order written (display values and record tables included).
    public private(set) var rows: [Row] = []
    /// Rows written past the limit and dropped.
    public private(set) var droppedRowCount = 0
    private var state = State.closed

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink keeping at most `rowLimit` rows (a negative limit keeps none).
    public init(rowLimit: Int? = nil) {
        self.rowLimit = rowLimit.map { max(0, $0) }
    }

    /// Whether the row limit is reached: more rows would be dropped.
    public var isFull: Bool {
        guard let rowLimit else { return false }
        return rows.count >= rowLimit
    }

    /// Starts a table: forgets the rows of the previous one.
    ///
    /// - Throws: ``NowETLError/Code/misuse`` while a table is open or prepared.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw NowETLError(
                .misuse, path: "memory",
                "memory sink opened for \(context.table) before committing or aborting \(self.context?.table ?? "")")
        }
        self.schema = schema
        self.context = context
        rows = []
        droppedRowCount = 0
        state = .open
    }

    /// Keeps the batch's rows until the limit; the rest are counted in ``droppedRowCount``.
    ///
    /// - Throws: ``NowETLError/Code/misuse`` when not open or when the batch does not fit the schema.
    public func write(_ batch: RowBatch) async throws {
        guard state == .open else {
            throw NowETLError(.misuse, path: "memory", "write to the memory sink while it is not open")
        }
        guard batch.columnCount == schema.count else {
            throw NowETLError(
                .misuse, path: "memory",
                "batch for \(context?.table ?? "") has \(batch.columnCount) columns, the schema \(schema.count)")
        }
        for row in 0..<batch.count {
            guard !isFull else {
                droppedRowCount += batch.count - row
                return
            }
            let displayValues =
                batch.carriesDisplayValues
                ? (0..<batch.columnCount).map { batch.displayValue(row: row, column: $0) } : []
            rows.append(
                Row(
                    values: batch.values(row: row), displayValues: displayValues,
                    recordTable: batch.recordTable(row: row)))
        }
    }

    /// Nothing to stage. See ``RecordSink/prepare()``.
    public func prepare() async throws -> PreparedOutput {
        guard state == .open else {
            throw NowETLError(.misuse, path: "memory", "prepare of the memory sink while it is not open")
        }
        state = .prepared
        return PreparedOutput()
    }

    /// Closes the table; the rows stay readable. See ``RecordSink/commit()``.
    public func commit() async throws -> [Artifact] {
        guard state == .prepared else {
            throw NowETLError(.misuse, path: "memory", "commit of the memory sink before prepare")
        }
        state = .committed
        return []
    }

    /// Drops the rows of an uncommitted table. See ``RecordSink/abort()``.
    public func abort() async {
        guard state != .committed else { return }
        rows = []
        droppedRowCount = 0
        state = .closed
    }
}
