import NowSQLite

/// The fields one response shows and how each is selected and rendered (ref §2.3).
///
/// Built once per request: it resolves `sysparm_fields` (dot-walked names included, unknown names
/// dropped) against the table, adds the joins that display values of references need, and then
/// renders each result row straight from SQLite's buffers into the JSON output.
final class RecordProjection {
    /// One output field.
    struct Field {
        /// The JSON key: the name as requested (`caller_id.name` stays dotted).
        var key: String
        /// The column's dictionary entry.
        var column: ColumnDefinition
        /// The table the column belongs to (for choice labels).
        var table: TableDefinition
        /// Result column holding the stored value.
        var valueIndex: Int32
        /// Result column holding the referenced record's display value, for references.
        var displayIndex: Int32?
        /// The referenced table's name, for references (used in links).
        var referenceTable: String?
        /// Result column holding a journal field's rendered entries, in display modes.
        var journalIndex: Int32?
    }

    let fields: [Field]
    /// The SQL select list, in result-column order.
    let selectList: String
    /// The result column holding the record's sys_id, when asked for (fault injection needs it).
    let sysIdIndex: Int32?
    let options: ReadOptions
    let catalog: Catalog
    private var choiceLabelCache: [String: String] = [:]

    /// Resolves the fields of `options` against `joins.base`, adding joins to `joins`.
    init(catalog: Catalog, joins: JoinPlan, options: ReadOptions, includeSysId: Bool = false) {
        self.catalog = catalog
        self.options = options
        let names = options.fields ?? joins.base.columns.map(\.element)
        var fields: [Field] = []
        var select: [String] = []
        var seen = Set<String>()
        for name in names where seen.insert(name).inserted {
            guard let resolved = joins.resolve(name) else { continue }
            var field = Field(
                key: name, column: resolved.column, table: resolved.table, valueIndex: Int32(select.count),
                displayIndex: nil, referenceTable: nil)
            select.append(resolved.expression)
            if RecordHistory.journalTypes.contains(resolved.column.internalType), options.displayMode != .value,
                !name.contains(".")
            {
                field.journalIndex = Int32(select.count)
                select.append(Self.journalEntriesSQL(element: resolved.column.element, label: resolved.column.label))
            }
            // `domain_id` (sys_domain) renders as a reference too: every recorded instance answer
            // shows `{"link":…/sys_user_group/global,"value":"global"}`, not a bare string.
            if resolved.column.internalType == "domain_id", let target = resolved.column.reference {
                field.referenceTable = target
            }
            if resolved.column.internalType == "reference", let target = resolved.column.reference {
                field.referenceTable = target
                if options.displayMode != .value, let record = joins.referencedRecord(of: resolved, path: name),
                    record.table.column(record.table.displayField) != nil
                {
                    field.displayIndex = Int32(select.count)
                    select.append("\(record.alias).\(SQLIdentifier.quote(record.table.displayField))")
                }
            }
            fields.append(field)
        }
        if includeSysId || select.isEmpty {
            sysIdIndex = Int32(select.count)
            select.append("t.\"sys_id\"")
        } else {
            sysIdIndex = nil
        }
        self.fields = fields
        self.selectList = select.joined(separator: ", ")
    }

    /// Writes the current row of `row` as one record.
    func render<Output: RecordOutput>(row: SQLiteStatement, into out: inout Output, baseURL: String) {
        out.startRecord()
        for (index, field) in fields.enumerated() {
            out.startField(field.key, first: index == 0)
            renderField(field, row: row, into: &out, baseURL: baseURL)
            out.endField(field.key)
        }
        out.endRecord()
    }

    private func renderField<Output: RecordOutput>(
        _ field: Field, row: SQLiteStatement, into out: inout Output, baseURL: String
    ) {
        if let referenceTable = field.referenceTable {
            let isEmpty = row.withUTF8(field.valueIndex) { $0.isEmpty }
            renderReference(
                field, referenceTable: referenceTable, isEmpty: isEmpty, row: row, into: &out, baseURL: baseURL)
            return
        }
        switch options.displayMode {
        case .value:
            writeValue(field, row: row, into: &out)
        case .display:
            writeDisplay(field, row: row, into: &out)
        case .all:
            out.startComposite()
            out.startMember("display_value", first: true)
            writeDisplay(field, row: row, into: &out)
            out.endMember("display_value")
            out.startMember("value", first: false)
            writeValue(field, row: row, into: &out)
            out.endMember("value")
            out.endComposite()
        }
    }

    /// The six shapes of a reference (ref §2.3); an empty reference is `""`, or both members empty with `all`.
    private func renderReference<Output: RecordOutput>(
        _ field: Field, referenceTable: String, isEmpty: Bool, row: SQLiteStatement, into out: inout Output,
        baseURL: String
    ) {
        let link = !options.excludeReferenceLink
        if isEmpty {
            if options.displayMode == .all {
                out.startComposite()
                out.member("display_value", first: true, "")
                out.member("value", first: false, "")
                out.endComposite()
            } else {
                out.text("")
            }
            return
        }
        let showsDisplay = options.displayMode != .value
        let showsValue = options.displayMode != .display
        if !link && showsDisplay != showsValue {
            // A bare string: the sys_id, or the display value.
            showsValue ? writeValue(field, row: row, into: &out) : writeReferenceDisplay(field, row: row, into: &out)
            return
        }
        out.startComposite()
        var first = true
        if showsDisplay {
            out.startMember("display_value", first: first)
            writeReferenceDisplay(field, row: row, into: &out)
            out.endMember("display_value")
            first = false
        }
        if link {
            out.startMember("link", first: first)
            writeLink(field, referenceTable: referenceTable, row: row, into: &out, baseURL: baseURL)
            out.endMember("link")
            first = false
        }
        if showsValue {
            out.startMember("value", first: first)
            writeValue(field, row: row, into: &out)
            out.endMember("value")
        }
        out.endComposite()
    }

    private func writeValue<Output: RecordOutput>(_ field: Field, row: SQLiteStatement, into out: inout Output) {
        // A journal field's value is always empty: its entries live in sys_journal_field (ref §5).
        if RecordHistory.journalTypes.contains(field.column.internalType) {
            out.text("")
            return
        }
        row.withUTF8(field.valueIndex) { out.text(utf8: $0) }
    }

    /// A correlated subquery rendering the journal entries of field `element` of the row `t`, newest
    /// first, each `<created on> - <author's name> (<field label>)\n<text>\n\n`: the display value of
    /// a journal field as instances answer it (recorded Table API answers in public fixtures, e.g.
    /// `"2016-12-13 10:42:25 - David Loo (Additional comments)\nHi Joe, …\n\n"`; [DOC] c_JournalFields:
    /// `getJournalEntry(-1)` entries are delimited by `\n\n`). The author is the `sys_user.name` of
    /// `sys_created_by`, that user name itself when no user has it [INF]; times are UTC, the session
    /// nowsim emulates.
    static func journalEntriesSQL(element: String, label: String) -> String {
        func literal(_ text: String) -> String { "'" + text.replacingOccurrences(of: "'", with: "''") + "'" }
        return "(SELECT group_concat(entry, '') FROM (SELECT COALESCE(j.\"sys_created_on\", '') || ' - ' || "
            + "COALESCE(NULLIF(u.\"name\", ''), j.\"sys_created_by\", '') || ' (' || \(literal(label)) || ')' || "
            + "char(10) || COALESCE(j.\"value\", '') || char(10) || char(10) AS entry "
            + "FROM \"sys_journal_field\" j LEFT JOIN \"sys_user\" u ON u.\"user_name\" = j.\"sys_created_by\" "
            + "WHERE j.\"element_id\" = t.\"sys_id\" AND j.\"element\" = \(literal(element)) "
            + "ORDER BY j.\"sys_created_on\" DESC, j.rowid DESC))"
    }

    private func writeReferenceDisplay<Output: RecordOutput>(
        _ field: Field, row: SQLiteStatement, into out: inout Output
    ) {
        if let displayIndex = field.displayIndex {
            row.withUTF8(displayIndex) { out.text(utf8: $0) }
        } else if field.column.internalType == "domain_id" {
            // The domain's name is its value here (`global`, the only domain nowsim has), as recorded.
            writeValue(field, row: row, into: &out)
        } else {
            out.text("")
        }
    }

    private func writeLink<Output: RecordOutput>(
        _ field: Field, referenceTable: String, row: SQLiteStatement, into out: inout Output, baseURL: String
    ) {
        var url = baseURL
        url += options.tablePath
        url += referenceTable
        url += "/"
        url += row.text(field.valueIndex) ?? ""
        out.text(url)
    }

    /// The display value of a non-reference field for the (admin, UTC, en) session nowsim emulates.
    private func writeDisplay<Output: RecordOutput>(_ field: Field, row: SQLiteStatement, into out: inout Output) {
        let column = field.column
        if column.hasChoices {
            let value = row.text(field.valueIndex) ?? ""
            out.text(choiceLabel(field, value: value))
            return
        }
        switch column.internalType {
        case "integer":
            out.text(DisplayFormat.groupedInteger(row.text(field.valueIndex) ?? ""))
        case "decimal", "float", "currency", "price":
            out.text(DisplayFormat.groupedDecimal(row.text(field.valueIndex) ?? ""))
        case "sys_class_name":
            let value = row.text(field.valueIndex) ?? ""
            out.text(catalog.table(value)?.label ?? value)
        case "glide_duration", "timer":
            out.text(DisplayFormat.duration(row.text(field.valueIndex) ?? ""))
        case "journal_input", "journal", "journal_list":
            if let journalIndex = field.journalIndex {
                row.withUTF8(journalIndex) { out.text(utf8: $0) }
            } else {
                out.text("")
            }
        case "password", "password2":
            out.text(row.withUTF8(field.valueIndex) { $0.isEmpty } ? "" : "********")
        default:
            writeValue(field, row: row, into: &out)
        }
    }

    private func choiceLabel(_ field: Field, value: String) -> String {
        if value.isEmpty { return "" }
        let key = field.table.name + "\u{0}" + field.column.element + "\u{0}" + value
        if let cached = choiceLabelCache[key] { return cached }
        let label = catalog.choiceLabel(table: field.table.name, element: field.column.element, value: value) ?? value
        choiceLabelCache[key] = label
        return label
    }
}

/// Number formats of display values (the `en` locale's grouping).
enum DisplayFormat {
    /// `1234567` → `1,234,567`; anything that is not an integer is returned unchanged.
    static func groupedInteger(_ text: String) -> String {
        var digits = Substring(text)
        var sign = ""
        if digits.first == "-" {
            sign = "-"
            digits = digits.dropFirst()
        }
        guard !digits.isEmpty, digits.allSatisfy(\.isASCII), digits.allSatisfy(\.isNumber) else { return text }
        var result = ""
        for (index, ch) in digits.enumerated() {
            if index > 0 && (digits.count - index) % 3 == 0 { result.append(",") }
            result.append(ch)
        }
        return sign + result
    }

    /// A duration's display value: `1970-01-02 04:23:17` → `1 Day 4 Hours 23 Minutes`.
    ///
    /// Recorded instance answers show the largest units only down to minutes (102,197 seconds read
    /// `1 Day 4 Hours 23 Minutes`, 28,800 read `8 Hours`); seconds appear only under a minute. An
    /// empty value stays empty; text that is no duration is returned unchanged.
    static func duration(_ text: String) -> String {
        guard !text.isEmpty else { return "" }
        guard let seconds = durationSeconds(text) else { return text }
        if seconds < 60 { return unit(seconds, "Second") }
        let parts = [(seconds / 86_400, "Day"), (seconds % 86_400 / 3_600, "Hour"), (seconds % 3_600 / 60, "Minute")]
        return parts.filter { $0.0 > 0 }.map { unit($0.0, $0.1) }.joined(separator: " ")
    }

    private static func unit(_ count: Int, _ name: String) -> String {
        "\(count) \(name)\(count == 1 ? "" : "s")"
    }

    /// The length of a `yyyy-MM-dd HH:mm:ss` duration (an offset from 1970-01-01 00:00:00) in seconds.
    private static func durationSeconds(_ text: String) -> Int? {
        let parts = text.split(whereSeparator: { $0 == "-" || $0 == " " || $0 == ":" }).map { Int($0) }
        guard parts.count == 6, let year = parts[0], let month = parts[1], let day = parts[2], let hour = parts[3],
            let minute = parts[4], let second = parts[5], year >= 1970, (1...12).contains(month), (1...31).contains(day)
        else { return nil }
        // Days since 1970-01-01 of the proleptic Gregorian date (H. Hinnant's days_from_civil).
        let shifted = month <= 2 ? year - 1 : year
        let era = shifted / 400
        let yearOfEra = shifted - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        let days = era * 146_097 + dayOfEra - 719_468
        return days * 86_400 + hour * 3_600 + minute * 60 + second
    }

    /// `1234.5` → `1,234.5`: groups the integer part of a decimal.
    static func groupedDecimal(_ text: String) -> String {
        guard let dot = text.firstIndex(of: ".") else { return groupedInteger(text) }
        return groupedInteger(String(text[..<dot])) + text[dot...]
    }
}
