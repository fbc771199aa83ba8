import NowData

/// One table to export: an item of `tables:`.
///
/// ```yaml
/// - table: incident                      # [a-z0-9_]+
///   filter: active=true^priority<=2      # encoded query, checked at load; no ORDERBY
///   fields: [number, caller_id, opened_at]  # optional; leave out for all fields
///   display_value: all                   # false (default) | true | all
///   display_columns: false               # database outputs: <name>_display beside references and
///                                        # choices (default: on under true/all without columns:)
///   choice_labels: true                  # database outputs: also <table>__choices from sys_choice
///   columns:                             # optional; default: one column per field
///     - { name: caller, path: caller_id.display_value }
///     - { name: opened, path: opened_at.value, type: datetime }
///   reject: { mode: skip, max: 10 }      # default: fail
///   mode: incremental                    # full (default) | incremental, with cursor, lag_seconds,
///                                        # deletes and start (IncrementalConfiguration)
///   attachments: true                    # attachments, journal entries and audit rows of the
///   journal: [work_notes, comments]      # exported records (WholeRecordConfiguration)
///   audit: false
/// ```
///
/// When `fields` is given, every column path must start with one of the fields (or with
/// `sys_id`, which is always read); a misspelt path would otherwise export an empty column.
public struct TableConfiguration: Sendable, Hashable, Decodable {
    /// The table name.
    public var table: String
    /// The encoded query as written (after `${VAR}` substitution); empty for all records.
    public var filter: String
    /// ``filter`` parsed.
    public var query: EncodedQuery
    /// The fields to read (`sysparm_fields`, dot-walking allowed), or `nil` for all fields.
    public var fields: [String]?
    /// Which value forms to read (default ``DisplayValueMode/actual``).
    public var displayValue: DisplayValueMode
    /// `display_columns:` as written: `nil` when left out (see ``wantsDisplayColumns``).
    public var displayColumns: Bool?
    /// The output columns, or `nil` for one string column per field.
    public var columns: [ColumnConfiguration]?
    /// What to do with records that will not convert (default fail).
    public var reject: RejectPolicy
    /// How runs read only what changed (`mode: incremental`); `nil` for `mode: full`, the default.
    public var incremental: IncrementalConfiguration?
    /// What travels with each record: attachments, journal entries, audit rows (default nothing).
    public var wholeRecord = WholeRecordConfiguration()
    /// `choice_labels: true`: every database output of the table also gets `<table>__choices`, the
    /// table's choice labels from `sys_choice` (``ChoiceLabelFetch``, ``ChoiceLabelLoad``).
    public var choiceLabels = false

    /// Whether a database output of this table gets a `<name>_display` text column beside each column
    /// that reads a reference or choice field (``ColumnSchema/hasDisplayColumn``): only when display
    /// values are read (`display_value: true` or `all`), and then by default unless the table lists its
    /// own `columns:` (a pipeline that lists columns gets exactly those unless it says
    /// `display_columns: true`). File outputs never get them.
    public var wantsDisplayColumns: Bool {
        displayValue != .actual && (displayColumns ?? (columns == nil))
    }

    /// `mode:` of the table.
    public var mode: TableMode { incremental == nil ? .full : .incremental }

    /// Creates a table configuration; the filter is parsed here.
    ///
    /// - Throws: ``EncodedQueryError`` when `filter` is not a valid encoded query.
    public init(
        table: String, filter: String = "", fields: [String]? = nil, displayValue: DisplayValueMode = .actual,
        columns: [ColumnConfiguration]? = nil, reject: RejectPolicy = .fail,
        incremental: IncrementalConfiguration? = nil
    ) throws(EncodedQueryError) {
        self.table = table
        self.filter = filter
        self.query = try EncodedQuery(parsing: filter)
        self.fields = fields
        self.displayValue = displayValue
        self.columns = columns
        self.reject = reject
        self.incremental = incremental
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case table, filter, fields
        case displayValue = "display_value"
        case displayColumns = "display_columns"
        case choiceLabels = "choice_labels"
        case columns, reject, mode, cursor
        case lagSeconds = "lag_seconds"
        case deletes, start
        case attachments, journal, audit
    }

    /// Decodes and checks a table (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        table = try container.decodeChecked(.table, NameRule.offsetOfInvalidLowercaseName) {
            "table name '\($0)' is not valid: use lower-case letters, digits and underscores"
        }
        filter = try container.decode(.filter, default: "")
        do {
            query = try EncodedQuery(parsing: filter)
        } catch {
            throw container.issue(
                .filter, "invalid encoded query in \(container.path(.filter)): \(error.message)",
                utf8Offset: error.offset)
        }
        if !query.orderBy.isEmpty {
            let bytes = Array(filter.utf8)
            let offset = bytes.indices(of: "ORDERBY").first { $0 == 0 || bytes[$0 - 1] == UInt8(ascii: "^") } ?? 0
            throw container.issue(
                .filter, "\(container.path(.filter)) must not sort (ORDERBY): rows are always exported in sys_id order",
                utf8Offset: offset)
        }
        fields = try container.decodeNames(
            .fields, rule: "use lower-case field names, dot-walked with '.' (caller_id.name)",
            isValid: { NameRule.offsetOfInvalidDotPath($0, lowercase: true) })
        displayValue = try container.decode(.displayValue, default: .actual)
        displayColumns = try container.decodeIfPresent(Bool.self, forKey: .displayColumns)
        if displayColumns == true, displayValue == .actual {
            throw container.issue(
                .displayColumns,
                "\(container.path(.displayColumns)): true needs display values to fill them; set display_value: all "
                    + "(or true), or leave display_columns out")
        }
        columns = try container.decodeIfPresent([ColumnConfiguration].self, forKey: .columns)
        reject = try container.decode(.reject, default: .fail)
        try checkColumns(container)
        incremental = try Self.decodeIncremental(container)
        try checkIncremental(container)
        wholeRecord = try Self.decodeWholeRecord(container)
        choiceLabels = try container.decode(.choiceLabels, default: false)
    }

    /// `attachments` (`true`, `false` or a mapping), `journal` (journal field names) and `audit`.
    private static func decodeWholeRecord(_ container: KeyedDecodingContainer<CodingKeys>) throws
        -> WholeRecordConfiguration
    {
        var whole = WholeRecordConfiguration()
        if container.contains(.attachments) {
            if let flag = try? container.decodeIfPresent(Bool.self, forKey: .attachments) {
                whole.attachments = flag ? AttachmentSelection() : nil
            } else {
                whole.attachments = try container.decodeIfPresent(AttachmentSelection.self, forKey: .attachments)
            }
        }
        whole.journal =
            try container.decodeNames(
                .journal, rule: "name journal fields of the table (work_notes, comments)",
                isValid: NameRule.offsetOfInvalidLowercaseName) ?? []
        whole.audit = try container.decode(.audit, default: false)
        return whole
    }

    /// The incremental keys: `nil` for `mode: full`, where none of them may appear.
    private static func decodeIncremental(_ container: KeyedDecodingContainer<CodingKeys>) throws
        -> IncrementalConfiguration?
    {
        let mode: TableMode = try container.decode(.mode, default: .full)
        guard mode == .incremental else {
            for key in [CodingKeys.cursor, .lagSeconds, .deletes, .start] where container.contains(key) {
                throw container.issue(
                    key, "\(container.path(key)) applies only to mode: incremental", pointsAtKey: true)
            }
            return nil
        }
        var settings = IncrementalConfiguration()
        settings.cursor = try container.decodeChecked(
            .cursor, default: IncrementalConfiguration.defaultCursor, NameRule.offsetOfInvalidLowercaseName
        ) {
            "cursor '\($0)' is not valid: name one glide_date_time field of the table "
                + "(lower-case letters, digits and underscores; no dot-walking)"
        }
        settings.lagSeconds =
            try container.decodeInteger(.lagSeconds, default: 0, in: IncrementalConfiguration.lagRange) ?? 0
        settings.deletes = try container.decode(.deletes, default: false)
        if let start = try container.decodeIfPresent(String.self, forKey: .start) {
            guard TableAPIDateFormat.date(from: start) != nil else {
                throw container.issue(
                    .start, "\(container.path(.start)) must be a UTC date-time YYYY-MM-DD HH:MM:SS, got '\(start)'")
            }
            settings.start = start
        }
        return settings
    }

    /// What an incremental table needs from the rest of its settings.
    private func checkIncremental(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard let incremental else { return }
        let deletedAt = TablePlan.deletedAtColumn
        if incremental.deletes,
            columns?.contains(where: { $0.name == deletedAt }) ?? fields?.contains(deletedAt) ?? false
        {
            let key: CodingKeys = columns == nil ? .fields : .columns
            throw container.issue(
                key,
                "\(container.path(key)) has a column named \(deletedAt), the column deletes: true fills with the "
                    + "deletion time; rename it")
        }
        if displayValue == .display {
            throw container.issue(
                .displayValue,
                "mode: incremental reads the cursor's stored value, which display_value: true does not send; "
                    + "use display_value: all (both forms) or false")
        }
        let exportsSysID: Bool
        if let columns {
            exportsSysID = columns.contains { $0.path == "sys_id" || $0.path == "sys_id.value" }
        } else {
            exportsSysID = fields.map { $0.contains("sys_id") } ?? true
        }
        guard exportsSysID else {
            let key: CodingKeys = columns == nil ? .fields : .columns
            throw container.issue(
                key,
                "mode: incremental needs sys_id in the output (a consumer merges the runs by it): add it to "
                    + "\(container.path(key))")
        }
    }

    private func checkColumns(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard let columns else { return }
        guard !columns.isEmpty else {
            throw container.issue(.columns, "\(container.path(.columns)) must not be empty; leave it out instead")
        }
        var seen: [String: Int] = [:]
        for (index, column) in columns.enumerated() {
            let columnPath = container.codingPath + [CodingKeys.columns, PathKey(index: index)]
            if let first = seen[column.name] {
                throw ConfigIssue(
                    .invalidValue, at: columnPath + [PathKey(stringValue: "name")],
                    "column '\(column.name)' appears twice in \(container.path(.columns)) (first at [\(first)])")
            }
            seen[column.name] = index
            guard let fields else { continue }
            let root = column.path.split(separator: ".", maxSplits: 1).first.map(String.init) ?? column.path
            let startsWithField = fields.contains { field in
                column.path == field || column.path.hasPrefix(field + ".")
            }
            guard !startsWithField, root != "sys_id" else { continue }
            var message =
                "column path '\(column.path)' in \(ConfigPath(codingPath: columnPath)) does not start with one of "
                + "the fields in \(container.path(.fields))"
            if let suggestion = KeySuggestion.closest(to: root, among: fields) {
                message += "; did you mean '\(suggestion)'?"
            }
            throw ConfigIssue(.invalidValue, at: columnPath + [PathKey(stringValue: "path")], message)
        }
    }
}

extension [UInt8] {
    /// The offsets where `needle` starts.
    fileprivate func indices(of needle: String) -> [Int] {
        let haystack = self
        let pattern = Array(needle.utf8)
        guard !pattern.isEmpty, haystack.count >= pattern.count else { return [] }
        return (0...(haystack.count - pattern.count)).filter {
            haystack[$0..<($0 + pattern.count)].elementsEqual(pattern)
        }
    }
}
