/// The common part of the file sinks: files, compression, splitting and staging for the run's
/// commit, handled by one ``FileSinkCore``; the subclasses (``CSVSink``, ``XMLSink``, ``JSONSink``)
/// only choose the row encoding.
///
/// The work is synchronous — encoding, file I/O, `fsync`, and waiting for ``GzipWriter``'s chunks —
/// so every call of the core runs on the sink's ``BlockingWorker``, off the Swift concurrency pool: a
/// pool thread blocked on a compressing chunk or a sync would stall the fetches and decodes of every
/// other table (the pool has one thread per core). A sink is confined to one task at a time
/// (``RecordSink``) and each call waits for its work, so the core is used by one thread at a time.
public class FileSink: RecordSink {
    let core: FileSinkCore
    private let worker = BlockingWorker(label: "nowetl.file-sink")

    init(options: FileSinkOptions, encoder: any RowEncoder) {
        core = FileSinkCore(options: options, encoder: encoder)
    }

    /// The output directory the sink writes under, as configured.
    var outputDirectory: String { core.options.outputDirectory }

    /// Starts the table's file(s). See ``RecordSink/open(schema:context:)``.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        let core = UncheckedBox(core)
        try await worker.perform { try core.value.open(schema: schema, context: context) }
    }

    /// Writes rows. See ``RecordSink/write(_:)``.
    public func write(_ batch: RowBatch) async throws {
        let core = UncheckedBox(core)
        let rows = UncheckedBox(batch)
        try await worker.perform { try core.value.write(rows.value) }
    }

    /// Finishes and syncs the file(s) under their temporary names. See ``RecordSink/prepare()``.
    public func prepare() async throws -> PreparedOutput {
        let core = UncheckedBox(core)
        return try await worker.perform { try core.value.prepare() }
    }

    /// Hands the staged file(s) over to the run's commit. See ``RecordSink/commit()``.
    public func commit() async throws -> [Artifact] {
        let core = UncheckedBox(core)
        return try await worker.perform { try core.value.commit() }
    }

    /// Removes the temporary file(s). See ``RecordSink/abort()``.
    public func abort() async {
        let core = UncheckedBox(core)
        _ = try? await worker.perform { core.value.abort() }
    }
}
