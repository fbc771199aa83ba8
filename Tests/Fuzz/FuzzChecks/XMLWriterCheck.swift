@testable import NowETL
@testable import NowSim

/// The XML writer (records and unload) on derived rows: text cells written from the batch's bytes, or
/// from Strings, give the bytes of the reference that escapes every text cell through libxml2, with the
/// same count of replaced characters; an unload document reads back with nowsim's reader to the rows,
/// forbidden characters replaced by U+FFFD.
enum XMLWriterCheck {
    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        var input = FuzzInput(bytes)
        let options = XMLSinkOptions(
            format: input.pick([.records, .unload]), dateTimeFormat: input.pick([.instance, .iso8601]))
        var table = DerivedTable(&input, minimumColumns: 1)
        // The derived names are rarely XML names; the columns' texts are what this check is about.
        table.schema = RowSchema(
            columns: table.schema.columns.enumerated().map { index, column in
                ColumnSchema(name: "c\(index)", isDateTimeField: column.isDateTimeField)
            })
        let written: [UInt8]
        let encoder = XMLRowEncoder(options: options)
        let reference = XMLRowEncoder(options: options, escapesThroughLibXML2: true)
        do {
            try encoder.open(schema: table.schema, context: DerivedTable.context, displayPath: "fuzz.xml")
            try reference.open(schema: table.schema, context: DerivedTable.context, displayPath: "fuzz.xml")
            written = try table.encoded(by: encoder)
            guard try table.encoded(by: reference) == written else {
                return FuzzFailure("text cells are escaped differently from libxml2")
            }
        } catch {
            return FuzzFailure("the XML writer failed: \(error)")
        }
        // `encoded` wrote each table twice with the encoder; the reference the same.
        guard encoder.replacedCharacterCount == reference.replacedCharacterCount else {
            return FuzzFailure(
                "\(encoder.replacedCharacterCount) characters replaced, libxml2's way \(reference.replacedCharacterCount)"
            )
        }
        guard options.format == .unload else { return nil }
        let shown = String(decoding: written, as: UTF8.self).debugDescription
        switch UnloadXMLCheck.read(written) {
        case .failure(let error):
            return FuzzFailure("the unload document does not read: \(error): \(shown)")
        case .success(let records):
            guard records.count == table.rows.count else {
                return FuzzFailure("\(records.count) records read, \(table.rows.count) written: \(shown)")
            }
            for (record, row) in zip(records, table.rows) {
                let wanted = row.map(expected)
                guard record.table == "fuzz", record.fields.map(\.value) == wanted else {
                    return FuzzFailure("a record reads \(record), not \(wanted): \(shown)")
                }
            }
        }
        return nil
    }

    /// A value as an unload document carries it: text with forbidden characters replaced, typed values
    /// in the instance's forms (durations as the date-time that many seconds after the epoch); null
    /// and empty text as an empty element.
    private static func expected(_ value: ColumnValue?) -> String? {
        switch value {
        case nil: return nil
        case .string(let text), .decimal(let text):
            return text.isEmpty ? nil : XMLRowEncoder.xmlSafe(text)?.0 ?? text
        case .duration(let seconds): return ExpectedText.of(.dateTime(secondsSinceEpoch: seconds), format: .instance)
        case .some(let other): return ExpectedText.of(other, format: .instance)
        }
    }
}
