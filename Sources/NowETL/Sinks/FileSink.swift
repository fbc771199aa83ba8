/// The common part of the file sinks: files, compression, splitting and atomic commit, handled by
/// one ``FileSinkCore``; the subclasses (``CSVSink``, ``XMLSink``, ``JSONSink``) only choose the
/// row encoding.
public class FileSink: RecordSink {
    let core: FileSinkCore

    init(options: FileSinkOptions, encoder: any RowEncoder) {
        core = FileSinkCore(options: options, encoder: encoder)
    }

    /// Starts the table's file(s). See ``RecordSink/open(schema:context:)``.
    public func open(schema: RowSchema, context: SinkContext) throws {
        try core.open(schema: schema, context: context)
    }

    /// Writes rows. See ``RecordSink/write(_:)``.
    public func write(_ batch: RowBatch) throws {
        try core.write(batch)
    }

    /// Renames the finished file(s) into place. See ``RecordSink/commit()``.
    public func commit() throws -> [OutputFile] {
        try core.commit()
    }

    /// Removes the temporary file(s). See ``RecordSink/abort()``.
    public func abort() {
        core.abort()
    }
}
