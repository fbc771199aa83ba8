/// When a database output removes the rows the source no longer has (`prune:`): rows deleted without
/// an audit row (tables not audited, deletes by scripts, cascade deletes), and rows that left the
/// pipeline's filter (`active=true` → closed). Only `mode: merge` prunes: `replace` equals the source by
/// itself, `append` is a log.
///
/// The key set a prune compares against is every sys_id the pipeline's filter matches now:
/// - a full table's run reads them all anyway: its rows (and its rejected records) are the key set, at
///   no extra cost, so the default is ``everyRun``;
/// - an incremental table's run reads only what changed: a prune scans the filter's sys_ids (keyset
///   pages of `sys_id` only, through the run's request limiter), so the default is ``weekly``.
public enum DatabasePrunePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Every run prunes.
    case everyRun = "every_run"
    /// A run prunes when the table's last prune in this database is a week old (or there is none);
    /// `nowetl run --prune` prunes at once. Judged with 12 hours of slack, so that a weekly job at the
    /// same hour prunes on each 7th night.
    case weekly
    /// Never, unless `nowetl run --prune` asks.
    case never

    /// The default for a table: ``everyRun`` for a full table, ``weekly`` for an incremental one.
    static func defaultPolicy(incremental: Bool) -> Self { incremental ? .weekly : .everyRun }

    /// The seconds since the last prune after which ``weekly`` prunes again.
    static let weeklyInterval = 7 * 86_400 - 12 * 3_600
}

/// What a database output does with a row whose record was deleted (`deletes:`): a deletion record of
/// an incremental table with `deletes: true`, or a row a prune found missing from the source.
public enum DatabaseDeletePolicy: String, Sendable, Hashable, Codable, CaseIterable {
    /// Delete the row (the default).
    case hard
    /// Keep the row and set its `_deleted_at` column (UTC), NULL on every row the source still has; a
    /// record that comes back gets NULL again. Needs `mode: merge`.
    case soft
}

/// The `prune:` and `deletes:` keys every database output shares, decoded and checked against its `mode:`.
struct DatabaseConvergenceKeys {
    /// `prune:`, `nil` for the default of each table (``DatabasePrunePolicy/defaultPolicy(incremental:)``).
    var prune: DatabasePrunePolicy?
    /// `deletes:`.
    var deletes: DatabaseDeletePolicy

    /// Decodes `prune:` and `deletes:` from `container` for an output loading with `mode`.
    ///
    /// - Throws: ``ConfigIssue`` at the key when it asks for what the mode cannot do: a prune or soft
    ///   deletes without `mode: merge`.
    static func decode<Key: CodingKey>(
        _ container: KeyedDecodingContainer<Key>, prune pruneKey: Key, deletes deletesKey: Key, mode: DatabaseLoadMode
    ) throws -> Self {
        let prune = try container.decodeIfPresent(DatabasePrunePolicy.self, forKey: pruneKey)
        let deletes = try container.decode(deletesKey, default: DatabaseDeletePolicy.hard)
        if mode != .merge, let prune, prune != .never {
            throw container.issue(
                pruneKey,
                "\(container.path(pruneKey)): only mode: merge prunes (replace loads exactly the source's rows every "
                    + "run, append keeps a log); remove prune: or use mode: merge")
        }
        if mode != .merge, deletes == .soft {
            throw container.issue(
                deletesKey,
                "\(container.path(deletesKey)): deletes: soft keeps deleted rows of a merged table with _deleted_at "
                    + "set and needs mode: merge (append already keeps deletion records as rows)")
        }
        return Self(prune: prune, deletes: deletes)
    }
}
