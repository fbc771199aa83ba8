/// When a file sink starts a new file (a "part") for the same table.
///
/// Each part is a complete file on its own: CSV parts repeat the header, XML parts are whole documents,
/// JSON array parts are whole arrays. A part ends only between rows, so a part holds at least one row.
///
/// Part files are named by the template's `{part}` placeholder when it has one; otherwise `-0001`,
/// `-0002`, … goes before the file's extension (the last one before a final `.gz`):
/// `out/incident.csv.gz` → `out/incident-0001.csv.gz`, `out/incident-0002.csv.gz` (see
/// ``OutputPathTemplate/resolve(table:runDate:runID:part:)``). A split output is always numbered,
/// even when it needs one part.
///
/// In a pipeline file: `split: { rows: N }` or `split: { bytes: N }`, N ≥ 1; no `split` is ``none``. On commit, higher-numbered parts left over from an
/// earlier, longer run (`-0004` when this run wrote three) are removed so that the directory holds one
/// consistent set.
public enum SplitPolicy: Sendable, Hashable {
    /// One file per table.
    case none
    /// A new part after every `n` rows.
    case rows(Int)
    /// A new part once the current one holds at least `n` bytes on disk (the compressed size with gzip).
    ///
    /// A soft limit: the part closes after the row that reaches it, so a part can exceed `n` by about one
    /// row plus, with gzip, the chunk still being compressed (an eighth of `n` uncompressed, 16 KiB to
    /// 1 MiB, before compression).
    case bytes(Int)
}
