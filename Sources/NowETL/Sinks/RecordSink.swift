/// A destination for the rows of one table at a time: open, write batches, prepare, then commit or
/// abort.
///
/// The commit is in two steps so that a run can make all its outputs visible at once, or none: every
/// sink first *prepares* (finishes its work without changing anything visible), the run writes one
/// commit record naming everything prepared, and only then are the sinks told to *commit*.
/// ```swift
/// try await sink.open(schema: schema, context: SinkContext(table: "incident", runID: id, runStarted: start))
/// do {
///     for batch in batches { try await sink.write(batch) }
///     let prepared = try await sink.prepare()     // files complete under hidden names; nothing visible yet
///     try RunCommit.write(record, …)              // the run decides (one record for every sink)
///     let artifacts = try await sink.commit()     // the sink lets go of its temporary files
///     try RunCommit.apply(record, …)              // now the files appear under their names
/// } catch {
///     await sink.abort()                          // removes the temporary files; previous files untouched
///     throw error
/// }
/// ```
/// After `commit()` or `abort()` the same sink may be opened again for the next table.
///
/// Sinks are not thread-safe: confine each sink to one task at a time. File sinks do their file I/O
/// and compression on the calling task. Batches must arrive in output order; the sink writes rows
/// exactly as received.
public protocol RecordSink: AnyObject {
    /// Starts the output of one table: resolves the path, creates the temporary file(s).
    ///
    /// - Throws: ``NowETLError`` — a bad path or template, a schema the format cannot write, an I/O error.
    func open(schema: RowSchema, context: SinkContext) async throws

    /// Writes the rows of a batch; memory use does not grow with the number of batches written.
    ///
    /// - Throws: ``NowETLError``; the caller then calls ``abort()``.
    func write(_ batch: RowBatch) async throws

    /// Finishes everything without changing anything visible: files are complete and `fsync`ed under
    /// their staged temporary names beside their targets (a database would flush inside its open
    /// transaction).
    ///
    /// - Returns: the staged files, the stale files the commit removes, and what ``commit()`` will
    ///   return.
    /// - Throws: ``NowETLError``; the sink has then removed its temporary files, and the previous files are
    ///   untouched.
    func prepare() async throws -> PreparedOutput

    /// The run's commit is decided (its commit record is on disk): returns what was produced.
    ///
    /// File sinks do not rename here — the run's commit renames every staged file from the commit
    /// record; the sink only stops owning its temporary files, so ``abort()`` and `deinit` no longer
    /// remove them. A database sink would `COMMIT` here.
    ///
    /// - Throws: ``NowETLError`` when called without a successful ``prepare()``.
    func commit() async throws -> [Artifact]

    /// Throws everything away: temporary files removed, previous files left as they were. Safe to call
    /// in any state, also twice or without `open`; after ``commit()`` it does nothing.
    func abort() async
}
