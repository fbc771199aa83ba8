/// A SQLite output: `sqlite: { path, mode, table_name, on_type_change, prune, deletes }`.
///
/// ```yaml
/// outputs:
///   - sqlite: { path: "report.db", mode: merge }     # report.db under output_dir, table "incident"
/// ```
///
/// * `path` — the database file, relative to `output_dir` like a file output (placeholders allowed,
///   but one file for every table and every run is the usual choice; no `.gz`, no `split`).
/// * `mode` — ``DatabaseLoadMode``, default `merge`.
/// * `table_name` — the database table (default: the pipeline table's name); with more than one
///   pipeline table it must contain `{table}`.
/// * `on_type_change` — ``DatabaseTypeChangePolicy``, default `fail`.
/// * `prune` — ``DatabasePrunePolicy`` (`every_run`, `weekly`, `never`); default `every_run` for a full
///   table, `weekly` for an incremental one; `mode: merge` only.
/// * `deletes` — ``DatabaseDeletePolicy`` (`hard`, `soft`), default `hard`; `soft` needs `mode: merge`.
///
/// The file is ``OutputFileSettings/path`` only (never compressed or split); the options are the mode,
/// table name and type-change policy.
public typealias SQLiteOutputConfiguration = FileOutputConfiguration<SQLiteSinkOptions>

extension SQLiteSinkOptions: FileOutputFormat {
    private enum CodingKeys: String, CodingKey, CaseIterable {
        case path, mode
        case tableName = "table_name"
        case onTypeChange = "on_type_change"
        case prune, deletes
    }

    /// Decodes and checks a SQLite output.
    public static func decodeOutput(from decoder: any Decoder) throws -> (file: OutputFileSettings, options: Self) {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let text = try container.decode(String.self, forKey: .path)
        let path: OutputPathTemplate
        do {
            path = try OutputPathTemplate(text)
        } catch {
            throw container.issue(
                .path, "invalid path in \(container.path(.path)): \(error.message)", utf8Offset: error.offset)
        }
        if path.hasGzipSuffix {
            throw container.issue(
                .path, "\(container.path(.path)) names a SQLite database, which is not gzip'd; remove .gz")
        }
        if path.contains(.part) {
            throw container.issue(
                .path, "{part} in \(container.path(.path)): a SQLite database is one file, never split")
        }
        let file = OutputFileSettings(path: path)
        var options = SQLiteSinkOptions()
        options.mode = try container.decode(.mode, default: DatabaseLoadMode.merge)
        options.onTypeChange = try container.decode(.onTypeChange, default: DatabaseTypeChangePolicy.fail)
        options.tableName = try Self.decodeTableName(container, key: .tableName)
        let keys = try DatabaseConvergenceKeys.decode(container, prune: .prune, deletes: .deletes, mode: options.mode)
        (options.prune, options.deletes) = (keys.prune, keys.deletes)
        return (file, options)
    }

    /// The `table_name` of a database output: letters, digits, underscores and `{table}`, not `_nowetl…`.
    static func decodeTableName<Key: CodingKey>(_ container: KeyedDecodingContainer<Key>, key: Key) throws -> String? {
        guard let name = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        let bare = name.replacingOccurrences(of: "{table}", with: "t")
        if let offset = NameRule.offsetOfInvalidIdentifier(bare) {
            throw container.issue(
                key,
                "table name '\(name)' in \(container.path(key)) is not valid: use letters, digits and "
                    + "underscores (and {table} for the pipeline table's name), not starting with a digit",
                utf8Offset: min(offset, name.utf8.count))
        }
        if bare.hasPrefix("_nowetl") {
            throw container.issue(
                key, "\(container.path(key)): names starting with _nowetl are nowetl's own")
        }
        return name
    }
}
