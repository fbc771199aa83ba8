import Foundation

/// What `nowetl state show` prints: where each incremental table of a pipeline stands, as readable
/// blocks or as one JSON object (a pure function of the pipeline and its state file).
///
/// ```
/// state file: /srv/nowetl/out/nightly/.nowetl/state.json
///
/// incident (cursor sys_updated_on, lag 0 s, deletes)
///   cursor field      sys_updated_on
///   cursor            2026-12-01 01:59:58
///   sys_id            f00d…
///   signpost          2026-12-01 01:59:59
///   last run          20261201T020000Z-7f3a
///   rows              1204 (3 deletions)
///   deletions cursor  2026-12-01 01:12:40 (sys_id 9c1f…)
///   next run reads    sys_updated_on > 2026-12-01 01:59:58, or = it and sys_id > f00d…
///
/// problem (cursor sys_updated_on, lag 0 s)
///   no state yet (the next run reads the whole table)
/// ```
///
/// The pipeline's incremental tables come first, in file order; then (without `--table`) the tables
/// the state file has but the pipeline no longer reads incrementally.
struct IncrementalStateReport: Sendable {
    /// How a table's line in the report stands.
    enum Status: String, Sendable, Encodable {
        /// An incremental table of the pipeline with a saved state.
        case kept
        /// An incremental table of the pipeline that has no state yet.
        case noState = "no_state"
        /// In the state file, but the pipeline has no such table.
        case notInPipeline = "not_in_pipeline"
        /// In the state file, but the pipeline reads the table with `mode: full`.
        case notIncremental = "not_incremental"
    }

    /// One table of the report.
    struct Entry: Sendable, Encodable {
        /// The table.
        var table: String
        /// How it stands.
        var status: Status
        /// The pipeline's settings for it, when it is an incremental table of the pipeline.
        var settings: IncrementalConfiguration?
        /// The pipeline's filter for it.
        var filter: String?
        /// The saved state, as the file has it.
        var state: IncrementalTableState?

        enum CodingKeys: String, CodingKey {
            case table, status, state
            case cursorField = "pipeline_cursor_field"
            case deletes = "pipeline_deletes"
        }

        func encode(to encoder: any Encoder) throws {
            var container = encoder.container(keyedBy: CodingKeys.self)
            try container.encode(table, forKey: .table)
            try container.encode(status, forKey: .status)
            try container.encodeIfPresent(settings?.cursor, forKey: .cursorField)
            try container.encodeIfPresent(settings?.deletes, forKey: .deletes)
            try container.encodeIfPresent(state, forKey: .state)
        }
    }

    /// The state file's absolute path.
    var stateFile: String
    /// Whether a commit record of a run that stopped while committing is waiting to be finished.
    var pendingCommit: Bool
    /// The tables, in report order.
    var entries: [Entry]

    /// The report of `state` for `configuration`'s incremental tables — only `table` when given.
    init(
        configuration: PipelineConfiguration, state: IncrementalState, table: String?, stateFile: String,
        pendingCommit: Bool
    ) {
        self.stateFile = stateFile
        self.pendingCommit = pendingCommit
        var entries: [Entry] = []
        for candidate in configuration.tables where table == nil || candidate.table == table {
            guard let settings = candidate.incremental else { continue }
            let saved = state.tables[candidate.table]
            entries.append(
                Entry(
                    table: candidate.table, status: saved == nil ? .noState : .kept, settings: settings,
                    filter: candidate.filter, state: saved))
        }
        if table == nil {
            let listed = Set(entries.map(\.table))
            for (name, saved) in state.tables.sorted(by: { $0.key < $1.key }) where !listed.contains(name) {
                let inPipeline = configuration.tables.contains { $0.table == name }
                entries.append(
                    Entry(table: name, status: inPipeline ? .notIncremental : .notInPipeline, state: saved))
            }
        }
        self.entries = entries
    }

    /// The readable report, ending with a line break.
    func text() -> String {
        var text = "state file: \(stateFile)\n"
        if pendingCommit {
            text +=
                "note: a run stopped while committing; the next `nowetl run` (or `state set|reset`) finishes "
                + "its commit, which advances this state\n"
        }
        if entries.isEmpty {
            text += "\nthe pipeline has no incremental tables (mode: incremental)\n"
        }
        for entry in entries {
            text += "\n" + Self.block(entry)
        }
        return text
    }

    /// The report as one JSON object (pretty-printed, sorted keys, a line break at the end):
    /// `state_file`, `pending_commit` and `tables`, each with `table`, `status` (`kept`, `no_state`,
    /// `not_in_pipeline`, `not_incremental`), the pipeline's cursor field and `deletes` setting, and
    /// `state` exactly as `state.json` has it.
    func json() -> String {
        struct Document: Encodable {
            var stateFile: String
            var pendingCommit: Bool
            var tables: [Entry]
            enum CodingKeys: String, CodingKey {
                case stateFile = "state_file"
                case pendingCommit = "pending_commit"
                case tables
            }
        }
        let encoder = JSONDocument.encoder()
        // Strings, integers and booleans only: encoding cannot fail.
        let data = (try? encoder.encode(Document(stateFile: stateFile, pendingCommit: pendingCommit, tables: entries)))
        return String(decoding: data ?? Data("{}".utf8), as: UTF8.self) + "\n"
    }

    /// `—` for a missing value.
    static func value(_ text: String?) -> String {
        guard let text, !text.isEmpty else { return "—" }
        return text
    }

    /// What the next run of a table in `state` reads (the lower bound; every run also stops at its
    /// signpost), or the whole table for none.
    static func nextRead(_ state: IncrementalTableState?, settings: IncrementalConfiguration?) -> String {
        guard let state, let cursor = state.cursor else {
            if let start = settings?.start { return "the whole table from \(start)" }
            return "the whole table"
        }
        let field = state.cursorField
        guard let sysID = state.sysID else { return "\(field) >= \(cursor)" }
        return "\(field) > \(cursor), or = it and sys_id > \(sysID)"
    }

    private static func block(_ entry: Entry) -> String {
        var heading = entry.table
        if let settings = entry.settings {
            heading +=
                " (cursor \(settings.cursor), lag \(settings.lagSeconds) s\(settings.deletes ? ", deletes" : ""))"
        }
        switch entry.status {
        case .kept, .noState: break
        case .notInPipeline:
            heading += ": in the state file, but the pipeline has no such table (`state reset PIPELINE` removes it)"
        case .notIncremental:
            heading +=
                ": in the state file, but the pipeline reads it with mode: full (`state reset PIPELINE` removes it)"
        }
        var text = heading + "\n"
        guard let state = entry.state else {
            return text + "  no state yet (the next run reads \(nextRead(nil, settings: entry.settings)))\n"
        }
        var rows = String(state.rows)
        if let deleted = state.deleted { rows += " (\(deleted) deletion\(deleted == 1 ? "" : "s"))" }
        var deletions = value(state.deletesCursor)
        if let sysID = state.deletesSysID { deletions += " (sys_id \(sysID))" }
        if state.deletesCursor == nil, entry.settings?.deletes == false { deletions += " (deletes: false)" }
        var lines: [(String, String)] = [
            ("cursor field", state.cursorField), ("cursor", value(state.cursor)),
            ("sys_id", state.sysID ?? (state.cursor == nil ? "—" : "— (the next run takes the whole second)")),
            ("signpost", value(state.signpost)), ("last run", value(state.runID)), ("rows", rows),
            ("deletions cursor", deletions),
        ]
        if entry.settings != nil {
            lines.append(("next run reads", nextRead(state, settings: entry.settings)))
        }
        let width = lines.map(\.0.count).max() ?? 0
        for (label, value) in lines {
            text += "  " + label + String(repeating: " ", count: width - label.count + 2) + value + "\n"
        }
        if let settings = entry.settings, settings.cursor != state.cursorField {
            text +=
                "  note: the state was kept for cursor \(state.cursorField), the pipeline's cursor is now "
                + "\(settings.cursor): run with --full-refresh (or `state set`) to start over with it\n"
        }
        if let filter = entry.filter, filter != state.filter {
            text +=
                "  note: the filter changed since the state was kept (was '\(state.filter)'): rows only the new "
                + "filter matches are read when they next change, or all at once with --full-refresh\n"
        }
        return text
    }
}
