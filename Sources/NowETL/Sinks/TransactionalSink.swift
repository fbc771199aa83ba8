/// A sink whose ``RecordSink/prepare()`` leaves its work inside an open database transaction, which
/// the run's commit COMMITs before it writes the commit record.
///
/// A database has no two-phase commit with the run's files, so the order of a run's commit is: every
/// output prepared (a database loaded inside its open transaction) → ``commitTransaction()`` on every
/// transactional sink → the commit record written → the files renamed. A failure of
/// ``commitTransaction()`` aborts the run's commit before anything else is visible. A crash after a
/// COMMIT and before the record leaves the database one run ahead of the files and state; the rerun
/// resumes the same run journal, so its load has the same ``SinkContext/loadID`` and the sink skips it.
///
/// ``RecordSink/commit()`` then only returns the artifacts.
public protocol TransactionalSink: RecordSink {
    /// COMMITs the transaction ``RecordSink/prepare()`` left open.
    ///
    /// - Throws: ``NowETLError`` when the database refuses the COMMIT (its transaction is then rolled back).
    func commitTransaction() async throws
}
