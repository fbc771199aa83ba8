/// A destination for the rows of one table at a time: open, write batches, then commit or abort.
///
/// The life of a sink for one table:
/// ```swift
/// try sink.open(schema: schema, context: SinkContext(table: "incident", runID: id, runStarted: start))
/// do {
///     for batch in batches { try sink.write(batch) }
///     let files = try sink.commit()          // now, and only now, the files appear under their names
/// } catch {
///     sink.abort()                           // removes the temporary files; previous files untouched
///     throw error
/// }
/// ```
/// After `commit()` or `abort()` the same sink may be opened again for the next table.
///
/// Sinks are synchronous and blocking (file I/O and compression on the calling thread) and are not
/// thread-safe: confine each sink to one task at a time. Batches must arrive in output order; the
/// sink writes rows exactly as received.
public protocol RecordSink: AnyObject {
    /// Starts the output of one table: resolves the path, creates the temporary file(s).
    ///
    /// - Throws: ``SinkError`` — a bad path or template, a schema the format cannot write, an I/O error.
    func open(schema: RowSchema, context: SinkContext) throws

    /// Writes the rows of a batch; memory use does not grow with the number of batches written.
    ///
    /// - Throws: ``SinkError``; the caller then calls ``abort()``.
    func write(_ batch: RowBatch) throws

    /// Finishes the table: completes, syncs and renames every file into place, and describes them.
    ///
    /// Until this returns, no target file has been replaced; on a throw, the temporary files are gone
    /// and the previous files are untouched (except in the unlikely case that a `rename` fails part way
    /// through a split output, which the error says).
    func commit() throws -> [OutputFile]

    /// Abandons the table: removes the temporary files and leaves any previous files as they were.
    /// Safe to call at any time, also twice or without `open`.
    func abort()
}
