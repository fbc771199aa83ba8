/// The common part of the file sinks: files, compression, splitting and staging for the run's
/// commit, handled by one ``FileSinkCore``; the subclasses (``CSVSink``, ``XMLSink``, ``JSONSink``)
/// only choose the row encoding.
///
/// The work is synchronous file I/O and compression on the calling task; the methods are `async` only
/// because ``RecordSink`` is (a database sink awaits its connection).
public class FileSink: RecordSink {
    let core: FileSinkCore

    init(options: FileSinkOptions, encoder: any RowEncoder) {
        core = FileSinkCore(options: options, encoder: encoder)
    }

    /// The output directory the sink writes under, as configured.
    var outputDirectory: String { core.options.outputDirectory }

    /// Starts the table's file(s). See ``RecordSink/open(schema:context:)``.
    public func open(schema: RowSchema, context: SinkContext) async throws {
        try core.open(schema: schema, context: context)
    }

    /// Writes rows. See ``RecordSink/write(_:)``.
    public func write(_ batch: RowBatch) async throws {
        try core.write(batch)
    }

    /// Finishes and syncs the file(s) under their temporary names. See ``RecordSink/prepare()``.
    public func prepare() async throws -> PreparedOutput {
        try core.prepare()
    }

    /// Hands the staged file(s) over to the run's commit. See ``RecordSink/commit()``.
    public func commit() async throws -> [Artifact] {
        try core.commit()
    }

    /// Removes the temporary file(s). See ``RecordSink/abort()``.
    public func abort() async {
        core.abort()
    }
}
