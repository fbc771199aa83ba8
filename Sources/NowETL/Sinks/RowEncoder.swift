/// The format-specific half of a file sink: turns rows into bytes of one part; ``FileSinkCore`` does the
/// files, splitting and atomic commit around it.
protocol RowEncoder: AnyObject {
    /// The format's name in ``Manifest/File/format``.
    var format: String { get }
    /// Checks the schema and prepares per-table state (escaped names, headers).
    func open(schema: RowSchema, context: SinkContext, displayPath: String) throws
    /// Writes what precedes the rows of a part (header, XML declaration and root, `[`).
    func beginPart(_ part: PartOutput) throws
    /// Writes one row of the batch.
    func encode(_ batch: RowBatch, row: Int, into part: PartOutput) throws
    /// Moves bytes held by the encoder itself into the part, before the part's size is measured.
    func flushForSizeCheck(_ part: PartOutput) throws
    /// Writes what follows the rows (XML end tags, `]`) and releases per-part state.
    func endPart(_ part: PartOutput) throws
    /// Drops per-part state after a failure, without writing.
    func abandonPart()
}

extension RowEncoder {
    func flushForSizeCheck(_ part: PartOutput) throws {}
    func abandonPart() {}
}
