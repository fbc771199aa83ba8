/// What ``SQLiteSink`` and ``PostgresSink`` share: the sink's states and one ``DatabaseLoad`` per
/// table, every call of it on its session's ``BlockingWorker``.
///
/// A sink is confined to one task at a time (``RecordSink``), and each call waits for its work on the
/// worker, so the load is used by one thread at a time.
final class DatabaseSink {
    /// The output for messages before a session exists (`SQLite output report.db`).
    let label: String
    private let connect: (SinkContext) async throws -> any DatabaseSession
    private let tableName: (String) -> String
    private let mode: DatabaseLoadMode
    private let onTypeChange: DatabaseTypeChangePolicy
    private var load: DatabaseLoad?
    private var state = State.closed

    private enum State { case closed, open, prepared, committed }

    /// Creates a sink that opens its session with `connect` (off the pool) and loads the pipeline
    /// table `t` into `tableName(t)`.
    init(
        label: String, mode: DatabaseLoadMode, onTypeChange: DatabaseTypeChangePolicy,
        tableName: @escaping (String) -> String, connect: @escaping (SinkContext) async throws -> any DatabaseSession
    ) {
        self.label = label
        self.mode = mode
        self.onTypeChange = onTypeChange
        self.tableName = tableName
        self.connect = connect
    }

    deinit {
        if state == .open || state == .prepared, let load {
            let box = UncheckedBox(load)
            // On the session's worker, like every other call on its connection.
            Task { try? await box.value.session.worker.perform { box.value.abandon() } }
        }
    }

    func open(schema: RowSchema, context: SinkContext) async throws {
        guard state == .closed || state == .committed else {
            throw NowETLError(.misuse, path: label, "\(label) opened twice for \(context.table)")
        }
        let session = try await connect(context)
        let load = DatabaseLoad(
            session: session, table: tableName(context.table), mode: mode, onTypeChange: onTypeChange,
            context: context)
        self.load = load
        state = .open
        let box = UncheckedBox(load)
        do {
            try await session.worker.perform { try box.value.open(schema: schema) }
        } catch {
            try? await session.worker.perform { box.value.abort() }
            state = .closed
            throw error
        }
    }

    func write(_ batch: RowBatch) async throws {
        guard state == .open, let load else {
            throw NowETLError(.misuse, path: label, "write to a \(label) that is not open")
        }
        let box = UncheckedBox(load)
        let rows = UncheckedBox(batch)
        try await load.session.worker.perform { try box.value.write(rows.value) }
    }

    func prepare() async throws -> PreparedOutput {
        guard state == .open, let load else {
            throw NowETLError(.misuse, path: label, "prepare of a \(label) that is not open")
        }
        let box = UncheckedBox(load)
        do {
            try await load.session.worker.perform { try box.value.prepare() }
        } catch {
            try? await load.session.worker.perform { box.value.abort() }
            state = .closed
            throw error
        }
        state = .prepared
        return PreparedOutput(artifacts: [.databaseTable(tableLoad(load))])
    }

    func commitTransaction() async throws {
        guard state == .prepared, let load else {
            throw NowETLError(.misuse, path: label, "COMMIT of a \(label) that is not prepared")
        }
        let box = UncheckedBox(load)
        try await load.session.worker.perform {
            try box.value.session.commitTransaction(generation: box.value.generation, table: box.value.table)
        }
    }

    func commit() async throws -> [Artifact] {
        guard state == .prepared, let load else {
            throw NowETLError(.misuse, path: label, "commit of a \(label) before prepare")
        }
        let box = UncheckedBox(load)
        try await load.session.worker.perform {
            try box.value.session.commitTransaction(generation: box.value.generation, table: box.value.table)
        }
        state = .committed
        return [.databaseTable(tableLoad(load))]
    }

    func abort() async {
        guard state == .open || state == .prepared, let load else { return }
        let box = UncheckedBox(load)
        try? await load.session.worker.perform { box.value.abort() }
        state = .closed
    }

    private func tableLoad(_ load: DatabaseLoad) -> DatabaseTableLoad {
        DatabaseTableLoad(
            database: load.session.loadLabel, table: load.table, sourceTable: load.context.table, mode: load.mode,
            rows: load.rows, deleted: load.deleted, loadID: load.loadKey, skipped: load.skipped,
            recreated: load.recreated)
    }
}
