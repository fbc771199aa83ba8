import NowData

/// How an `instance:` output meets a target that is already in use: which tables are matched on
/// business keys instead of sys_ids (`coalesce:`), what happens to a matched record (`on_match:`), to
/// a record without a match (`on_missing:`), and to a reference that points at a record the target
/// does not have (`on_unresolved:`).
///
/// ```yaml
/// coalesce:                 # table: [key fields]
///   sys_user: [user_name]
///   sys_user_group: [name]
/// on_match: update          # update (default) | keep
/// on_missing: insert        # insert (default, with the source sys_id) | skip | fail
/// on_unresolved: keep       # keep (default) | clear | fail
/// deletes: propagate        # an incremental table's deletions: propagate | ignore (default: refused)
/// ```
///
/// **Keys compare as the instance's database compares them**: ServiceNow runs on MariaDB/MySQL,
/// whose default collations are case-insensitive and ignore trailing spaces (`PAD SPACE`), so
/// `Fred.Luddy ` and `fred.luddy` are one key. A key is the key fields' stored values, each with
/// trailing spaces removed and lower-cased (``key(_:)``); a record whose key fields are all empty has
/// no key and never matches (it is "missing").
public struct InstanceMatching: Sendable, Hashable {
    /// What happens to a source record whose key matches a target record.
    public enum OnMatch: String, Sendable, Hashable, Codable, CaseIterable {
        /// Write the source's values into the matched target record (its sys_id stays the target's).
        case update
        /// Leave the matched target record as it is; references to the source record still map to it.
        case keep
    }

    /// What happens to a source record of a coalesced table that matches no target record.
    public enum OnMissing: String, Sendable, Hashable, Codable, CaseIterable {
        /// Insert it with its source sys_id.
        case insert
        /// Write nothing; references to it are unresolved.
        case skip
        /// Stop before anything of the table is written, naming the records.
        case fail
    }

    /// What happens to a reference whose record is neither mapped, nor written by the run, nor present
    /// in the target.
    public enum OnUnresolved: String, Sendable, Hashable, Codable, CaseIterable {
        /// Write the source's value as it is (the run's summary reports it per field).
        case keep
        /// Write the field empty (a list field loses just that element).
        case clear
        /// Stop before anything of the table is written, naming the field, the count and a sample.
        case fail
    }

    /// What an incremental table's deletion records (`deletes: true`) do on the target (`deletes:`).
    public enum Deletions: String, Sendable, Hashable, Codable, CaseIterable {
        /// Delete the target's record (the mapped one of a coalesced table; a record matched under
        /// `on_match: keep` is the target's own and stays).
        case propagate
        /// Leave the target's record; the deletion is counted only.
        case ignore
    }

    /// The coalesced tables and their key fields.
    public var coalesce: [String: [String]]
    /// See ``OnMatch``; default ``OnMatch/update``.
    public var onMatch: OnMatch
    /// See ``OnMissing``; default ``OnMissing/insert``.
    public var onMissing: OnMissing
    /// See ``OnUnresolved``; default ``OnUnresolved/keep``.
    public var onUnresolved: OnUnresolved
    /// See ``Deletions``; `nil` (the default) refuses a table with `deletes: true` when the pipeline is
    /// loaded.
    public var deletions: Deletions?

    /// Creates the rules; the defaults match by sys_id only, as a migration into an empty target does.
    public init(
        coalesce: [String: [String]] = [:], onMatch: OnMatch = .update, onMissing: OnMissing = .insert,
        onUnresolved: OnUnresolved = .keep, deletions: Deletions? = nil
    ) {
        self.coalesce = coalesce
        self.onMatch = onMatch
        self.onMissing = onMissing
        self.onUnresolved = onUnresolved
        self.deletions = deletions
    }

    /// The comparison key of a record's key values (one per key field, in the configured order):
    /// trailing spaces removed, lower-cased, joined by U+0000 (which no stored value holds); `nil`
    /// when every value is empty.
    public static func key(_ values: [String]) -> String? {
        let folded = values.map { value -> String in
            var text = Substring(value)
            while text.last == " " { text = text.dropLast() }
            return text.lowercased()
        }
        guard folded.contains(where: { !$0.isEmpty }) else { return nil }
        return folded.joined(separator: "\u{0}")
    }

    /// A key as a message shows it: `user_name=fred.luddy`, fields joined by `, `.
    static func describe(fields: [String], values: [String]) -> String {
        zip(fields, values).map { "\($0)=\(shown($1))" }.joined(separator: ", ")
    }

    /// A value from an instance as a message shows it: quoted, escaped for a terminal, at most 80
    /// characters.
    static func shown(_ value: String) -> String {
        let cut = value.count > 80 ? String(value.prefix(80)) + "…" : value
        return "'" + PrintableText.escaped(cut) + "'"
    }
}
