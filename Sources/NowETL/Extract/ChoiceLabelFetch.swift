import Foundation
import NowData

/// Reads a table's choice labels from the instance's `sys_choice` for `choice_labels: true`: the rows
/// of the table's hierarchy (`nameIN<table>,<ancestors>`), only the fields the load needs, by NowData's
/// keyset paginator (which refuses a cursor that does not move), one request at a time through the
/// run's request limiter; then the rows that apply to the table (``ChoiceLabels/applying(_:chain:)``).
///
/// Everything in the answer is checked where it enters (ARCHITECTURE.md, hostile input): a field or
/// language name keeps to its rule, texts have a bounded length and no NUL (PostgreSQL cannot store
/// one), a sequence is an integer, the rows belong to the tables asked for, and the table's rows are
/// bounded in number and bytes — a `sys_choice` answering more is refused with an error naming the table
/// rather than loaded. The texts are bound as parameters by the load, never spliced into SQL.
struct ChoiceLabelFetch {
    /// The most `sys_choice` rows of one table's hierarchy (inactive ones included) that are read.
    static let maximumRows = 200_000
    /// The most bytes of text those rows may hold in all.
    static let maximumBytes = 64 << 20
    /// The longest field name (ServiceNow's column names have at most 80 characters).
    static let maximumElementBytes = 80
    /// The longest value and label kept.
    static let maximumTextBytes = 4_000
    /// The longest language name (`en`, `pt_BR`, `zh_CN`).
    static let maximumLanguageBytes = 40

    /// The pipeline table.
    let table: String
    /// The table and its ancestors, child first (``TableDictionary/chain``).
    let chain: [String]
    let service: NowTableService
    let limiter: RequestLimiter
    let decoder: any PageDecoding
    /// Records a request (`sysparm_limit`).
    let pageSize: Int

    /// The fields read: `sys_id` is the paginator's cursor.
    static let fields = [
        "sys_id", "name", "element", "value", "label", "language", "sequence", "inactive", "dependent_value",
    ]

    /// Reads and selects the table's choice labels.
    ///
    /// - Throws: ``NowETLError`` naming the table: a failed request (classified, as for any page), an
    ///   answer that breaks the rules above; `CancellationError`.
    func run() async throws -> ChoiceLabels {
        for name in chain where NameRule.offsetOfInvalidLowercaseName(name) != nil || name.isEmpty {
            throw NowETLError(
                .failed, table: table,
                "reading sys_choice: the table's hierarchy names '\(PrintableText.escaped(String(name.prefix(80))))', "
                    + "which is no table name")
        }
        let pages = service.paginator(
            from: "sys_choice",
            configuration: FetchConfiguration(
                filter: Filter(query: "nameIN" + chain.joined(separator: ",")), limit: pageSize,
                readConfiguration: FieldReadConfiguration(
                    includeFields: Self.fields, options: [.actualValues, .excludeReferenceLink])),
            strategy: .keyset())
        var read: [(table: String, row: ChoiceLabels.Row)] = []
        var rows = 0
        var bytes = 0
        while pages.hasNext {
            let body = try await limiter.withSlot(table: table, during: Self.step) {
                do {
                    return try await pages.next()
                } catch let error as PaginationError {
                    throw NowETLError(table: table, during: Self.step, paging: error)
                }
            }
            let records: [Record]
            do {
                records = try decoder.records(in: body)
            } catch {
                throw NowETLError(.failed, table: table, Self.step, cause: error)
            }
            rows += records.count
            guard rows <= Self.maximumRows else {
                throw NowETLError(
                    .failed, table: table,
                    "\(Self.step): sys_choice holds more than \(Self.maximumRows) rows for "
                        + "\(chain.joined(separator: ", ")); that is no choice list, so choice_labels is refused "
                        + "for this table", remedy: "leave choice_labels out for this table")
            }
            for record in records {
                let checked = try check(record)
                bytes += checked.row.element.utf8.count + checked.row.value.utf8.count + checked.row.label.utf8.count
                guard bytes <= Self.maximumBytes else {
                    throw NowETLError(
                        .failed, table: table,
                        "\(Self.step): sys_choice's rows for \(chain.joined(separator: ", ")) hold more than "
                            + "\(Self.maximumBytes >> 20) MiB of text; choice_labels is refused for this table",
                        remedy: "leave choice_labels out for this table")
                }
                if checked.active { read.append((checked.table, checked.row)) }
            }
        }
        return ChoiceLabels(table: table, rows: ChoiceLabels.applying(read, chain: chain))
    }

    private static let step = "reading sys_choice (choice_labels)"

    /// One record of the answer as a row, checked.
    private func check(_ record: Record) throws(NowETLError) -> (table: String, row: ChoiceLabels.Row, active: Bool) {
        func text(_ field: String) -> String { record.text(at: RecordPath(field), plainForm: .value) ?? "" }
        let owner = text("name")
        guard chain.contains(owner) else {
            throw problem(
                "a row of table '\(PrintableText.escaped(String(owner.prefix(80))))', which was not asked for")
        }
        let element = text("element")
        guard !element.isEmpty, Self.isName(element, maximumBytes: Self.maximumElementBytes, also: []) else {
            throw problem(
                "the field name '\(PrintableText.escaped(String(element.prefix(80))))' (a field name is letters, digits and underscores, at most \(Self.maximumElementBytes) bytes)"
            )
        }
        let value = text("value")
        let label = text("label")
        for (name, text) in [("value", value), ("label", label)] {
            guard text.utf8.count <= Self.maximumTextBytes, !text.utf8.contains(0) else {
                throw problem(
                    "field \(element): a \(name) longer than \(Self.maximumTextBytes) bytes or holding NUL (U+0000)")
            }
        }
        var language = text("language")
        if language.isEmpty { language = "en" }
        guard Self.isName(language, maximumBytes: Self.maximumLanguageBytes, also: [UInt8(ascii: "-")]) else {
            throw problem("field \(element): the language '\(PrintableText.escaped(String(language.prefix(40))))'")
        }
        let sequenceText = text("sequence").trimmingCharacters(in: .whitespaces)
        var sequence: Int?
        if !sequenceText.isEmpty {
            guard let number = Int(sequenceText), abs(number) <= Int(Int32.max) else {
                throw problem(
                    "field \(element): the sequence '\(PrintableText.escaped(String(sequenceText.prefix(40))))' is no integer"
                )
            }
            sequence = number
        }
        let dependent = text("dependent_value")
        guard dependent.utf8.count <= Self.maximumTextBytes, !dependent.utf8.contains(0) else {
            throw problem(
                "field \(element): a dependent value longer than \(Self.maximumTextBytes) bytes or holding NUL")
        }
        let row = ChoiceLabels.Row(
            element: element, value: value, label: label, language: language, sequence: sequence,
            dependentValue: dependent.isEmpty ? nil : dependent)
        return (owner, row, text("inactive") != "true")
    }

    /// Whether `text` is at most `maximumBytes` of ASCII letters, digits, underscores and the bytes `also`.
    private static func isName(_ text: String, maximumBytes: Int, also: [UInt8]) -> Bool {
        text.utf8.count <= maximumBytes
            && text.utf8.allSatisfy { byte in
                byte == UInt8(ascii: "_") || also.contains(byte) || (0x30...0x39).contains(byte)
                    || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            }
    }

    /// The error of an answer that breaks a rule: `what` it held.
    private func problem(_ what: String) -> NowETLError {
        NowETLError(.failed, table: table, "\(Self.step): the instance answered \(what)")
    }
}
