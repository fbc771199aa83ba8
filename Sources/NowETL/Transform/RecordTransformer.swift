/// Turns ``Record``s into rows of a table's ``RowSchema``: each column's dot path is looked up and its
/// text converted to the column's type (``ValueConverter``).
///
/// A record with a value that will not convert becomes a ``Rejection`` and no row; what happens next is
/// the caller's reject policy; so is a record whose text holds NUL (U+0000) when ``refusesNUL`` (a
/// PostgreSQL output, whose text cannot hold it). Reference columns (``ColumnSchema/isReference``) carry the field's
/// display value beside the stored value. Unload columns (``RowSchema/unloadColumns``) follow the
/// columns in each row.
public struct RecordTransformer: Sendable {
    /// The columns, then the unload columns, in schema order.
    public let columns: [PlannedColumn]
    /// The schema of the rows produced.
    public let schema: RowSchema
    /// Which form a plain string stands for (see ``Record/text(at:plainForm:)``).
    public let plainForm: RecordPath.Form
    /// Whether a text value holding NUL (U+0000) in one of the ``RowSchema/columns`` rejects its record
    /// (``Rejection/Problem/nulCharacter``); unload columns go to XML only and may hold it.
    public let refusesNUL: Bool

    /// Creates a transformer for `columns` (and `unloadColumns`) of a table read with `displayValue`;
    /// `refusesNUL` when an output cannot store NUL in text.
    public init(
        columns: [PlannedColumn], unloadColumns: [PlannedColumn] = [], displayValue: DisplayValueMode,
        refusesNUL: Bool = false
    ) {
        self.columns = columns + unloadColumns
        self.schema = RowSchema(columns: columns.map(\.schema), unloadColumns: unloadColumns.map(\.schema))
        self.plainForm = displayValue == .display ? .displayValue : .value
        self.refusesNUL = refusesNUL
    }

    /// Appends one row per convertible record to `batch` and returns the rejected records, in order.
    ///
    /// Records that share a ``RecordLayout`` (a page's, from ``FastPageDecoder``) are read by slot: each
    /// column's path is resolved once per layout, not looked up by name per record, and only the form a
    /// column reads becomes a `String` (the record holds byte ranges of its page).
    public func transform(_ records: [Record], into batch: inout RowBatch) -> [Rejection] {
        var rejections: [Rejection] = []
        var resolvedLayout: RecordLayout?
        var slots: [Slots] = []
        var classSlots = Slots(whole: nil, part: nil, display: nil)
        let checkedForNUL = refusesNUL ? schema.columns.count : 0
        // What each column needs, read once: a `PlannedColumn` read per cell is copied, strings and all.
        let facts = columns.map { ColumnFacts($0, plainForm: plainForm) }
        records: for record in records {
            // The page and the values by slot, read out of the record once (not per cell).
            let page: PageText?
            let raw: [RawValue]
            if case .slots(let layout, let recordValues) = record.storage {
                if layout !== resolvedLayout {
                    slots = columns.map { Slots(path: $0.path, in: layout) }
                    classSlots = Slots(path: Self.classPath, in: layout)
                    resolvedLayout = layout
                }
                page = recordValues.page
                raw = recordValues.raw
            } else {
                page = nil
                raw = []
            }
            // The row is filled in place and taken back when the record is rejected.
            let row = batch.appendRow()
            for index in facts.indices {
                let column = facts[index]
                let text: String?
                var copied = false
                if let page {
                    let range = slots[index].range(in: raw, form: column.form, plainForm: plainForm)
                    if column.copiesText, range.kind == .plain {
                        // Text without escapes goes from the body to the batch as bytes, no String: it
                        // is valid UTF-8 (the parser checked) and holds no NUL (JSON has no raw one).
                        // Empty text is null, as ValueConverter has it.
                        if range.count > 0 {
                            page.withBytes(range) { batch.setText($0, row: row, column: index) }
                        }
                        copied = true
                        text = nil
                    } else {
                        text = page.string(range)
                    }
                } else {
                    text = record.text(at: columns[index].path, plainForm: plainForm)
                }
                switch copied ? .null : ValueConverter.convert(text, to: column.type) {
                case .null: break
                case .value(let value):
                    if index < checkedForNUL, case .string(let string) = value, Self.holdsNUL(string) {
                        batch.removeLastRow()
                        rejections.append(
                            Rejection(
                                sysID: record.sysID ?? "", column: columns[index].schema.name,
                                type: column.type, value: string, record: record.jsonLine(),
                                problem: .nulCharacter))
                        continue records
                    }
                    batch[row, index] = value
                case .invalid:
                    batch.removeLastRow()
                    rejections.append(
                        Rejection(
                            sysID: record.sysID ?? "", column: columns[index].schema.name,
                            type: column.type, value: text ?? "", record: record.jsonLine()))
                    continue records
                }
                if column.carriesDisplayValue {
                    let display: String?
                    if plainForm == .displayValue, column.hasDisplayColumn {
                        // display_value: true sends display values only: the column's text is the label.
                        display = text
                    } else if let page {
                        let forms = slots[index].display.map { raw[$0] } ?? .absent
                        display = forms.shape == .forms ? page.string(forms.displayValue) : nil
                    } else {
                        let path = columns[index].path
                        display = record.displayValue(of: path.field ?? path.text)
                    }
                    // A display column is a database text column too: PostgreSQL cannot store NUL there.
                    if index < checkedForNUL, column.hasDisplayColumn, let display, Self.holdsNUL(display) {
                        batch.removeLastRow()
                        rejections.append(
                            Rejection(
                                sysID: record.sysID ?? "",
                                column: columns[index].schema.name + TablePlan.displayColumnSuffix, type: .string,
                                value: display, record: record.jsonLine(), problem: .nulCharacter))
                        continue records
                    }
                    if display != nil, batch.carriesDisplayValues {
                        batch.setDisplayValue(display, row: row, column: index)
                    }
                }
            }
            if let page {
                batch.setRecordTable(
                    page.string(classSlots.range(in: raw, form: Self.classPath.form, plainForm: plainForm)), row: row)
            } else {
                batch.setRecordTable(record.text(at: Self.classPath, plainForm: plainForm), row: row)
            }
        }
        return rejections
    }

    /// The facts of one column the transform reads for every cell, without its strings.
    private struct ColumnFacts {
        var form: RecordPath.Form?
        var type: ColumnType
        /// A reference, or a column with a database display column: rows carry its display value.
        var carriesDisplayValue: Bool
        var hasDisplayColumn: Bool
        /// A text column whose text nothing else reads as a `String`: it may go to the batch as bytes.
        var copiesText: Bool

        init(_ column: PlannedColumn, plainForm: RecordPath.Form) {
            form = column.path.form
            type = column.schema.type
            carriesDisplayValue = column.schema.isReference || column.schema.hasDisplayColumn
            hasDisplayColumn = column.schema.hasDisplayColumn
            // With display_value: true a display column's label is the column's text, kept as a String.
            copiesText = column.schema.type == .string && !(plainForm == .displayValue && hasDisplayColumn)
        }
    }

    private static let classPath = RecordPath("sys_class_name.value")

    /// Whether `text` holds U+0000 (searched in its contiguous UTF-8 storage when it has one: every value
    /// of a table with a PostgreSQL output passes here).
    static func holdsNUL(_ text: String) -> Bool {
        text.utf8.withContiguousStorageIfAvailable { $0.contains(0) } ?? text.utf8.contains(0)
    }

    /// Where one path's fields sit in a layout (see ``Record/text(at:plainForm:)``): the path's whole
    /// text, the field before its form component, and the field whose display value a reference
    /// column carries.
    private struct Slots {
        var whole: Int?
        var part: Int?
        var display: Int?

        init(whole: Int?, part: Int?, display: Int?) {
            self.whole = whole
            self.part = part
            self.display = display
        }

        init(path: RecordPath, in layout: RecordLayout) {
            whole = layout.slot(of: path.text)
            part = path.field.flatMap { layout.slot(of: $0) }
            display = layout.slot(of: path.field ?? path.text)
        }

        /// Where the path's text is among a record's `raw` values (``RawValue/range(whole:part:form:plainForm:)``
        /// of its whole text as a field, else of the field before its form component).
        func range(in raw: [RawValue], form: RecordPath.Form?, plainForm: RecordPath.Form) -> TextRange {
            let whole = self.whole.map { raw[$0] } ?? .absent
            let part = whole.shape == .absent ? self.part.map { raw[$0] } ?? .absent : .absent
            return RawValue.range(whole: whole, part: part, form: form, plainForm: plainForm)
        }
    }
}
