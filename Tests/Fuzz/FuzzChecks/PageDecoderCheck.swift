import Foundation
import NowETL

/// ``FastPageDecoder`` against the reference ``FoundationPageDecoder`` on one body: both throw (the
/// fast message starting with the reference's) or both give the same records; the same with a field
/// projection; the rows a ``RecordTransformer`` makes of them are the same (the fast records hold byte
/// ranges of the body, read by slot); and a one-pass keyset read, when the fast decoder offers one,
/// agrees with its records.
enum PageDecoderCheck {
    /// The projection checked beside the whole records: a field pages always carry, two that seeds
    /// and awkward-value pages use, and one that is never there.
    static let projection: Set<String> = ["sys_id", "number", "x", "no_such_field"]

    static func check(_ bytes: [UInt8]) -> FuzzFailure? {
        let body = Data(bytes)
        if let failure = compare(body, fields: nil) { return failure }
        if let failure = compare(body, fields: projection) { return failure }
        return keysetRead(body)
    }

    private enum Outcome: Equatable {
        case records([Record])
        case threw(String)
    }

    private static func outcome(_ body: Data, _ decode: (Data) throws(PageDecodingError) -> [Record]) -> Outcome {
        do {
            return .records(try decode(body))
        } catch {
            return .threw(error.message)
        }
    }

    private static func compare(_ body: Data, fields: Set<String>?) -> FuzzFailure? {
        var reference = outcome(body) { body throws(PageDecodingError) in try FoundationPageDecoder().records(in: body)
        }
        if let fields, case .records(let records) = reference {
            reference = .records(records.map { Record(fields: $0.fields.filter { fields.contains($0.key) }) })
        }
        var fast = outcome(body) { body throws(PageDecodingError) in
            try FastPageDecoder(fields: fields).records(in: body)
        }
        let label = fields == nil ? "" : " (projection)"
        if case .records(let expected) = reference, case .records(let actual) = fast, hasInnerByteOrderMark(body) {
            // Foundation on Linux drops a raw U+FEFF that starts a string or follows an escape (CFString
            // takes the start of each run of unescaped bytes for one that may carry a byte order mark);
            // the fast decoder keeps the text as sent. Compare without U+FEFF; when dropping them merges
            // two keys of a record, only the verdict and the count can be compared.
            guard let expected = withoutByteOrderMarks(expected), let actual = withoutByteOrderMarks(actual) else {
                return expected.count == actual.count ? nil : FuzzFailure("record counts differ\(label)")
            }
            reference = .records(expected)
            fast = .records(actual)
        }
        switch (reference, fast) {
        case (.records(let expected), .records(let actual)):
            guard actual == expected else {
                return FuzzFailure("records differ\(label): \(difference(expected, actual))")
            }
            if fields == nil, !hasInnerByteOrderMark(body), let failure = compareRows(expected, actual) {
                return failure
            }
        case (.threw(let expected), .threw(let actual)):
            guard actual.hasPrefix(expected) else {
                return FuzzFailure("messages differ\(label): reference '\(expected)', fast '\(actual)'")
            }
        case (.records(let expected), .threw(let message)):
            return FuzzFailure("only the fast decoder threw\(label): '\(message)'; reference \(expected)")
        case (.threw(let message), .records(let actual)):
            return FuzzFailure("only the reference threw\(label): '\(message)'; fast \(actual)")
        }
        return nil
    }

    /// The paths the rows are compared on: plain fields, each value form, a typed column, a field
    /// that is never there.
    static let columns: [PlannedColumn] = [
        PlannedColumn(path: RecordPath("sys_id"), schema: ColumnSchema(name: "sys_id")),
        PlannedColumn(path: RecordPath("number"), schema: ColumnSchema(name: "number", isReference: true)),
        PlannedColumn(path: RecordPath("x"), schema: ColumnSchema(name: "x", hasDisplayColumn: true)),
        PlannedColumn(path: RecordPath("x.value"), schema: ColumnSchema(name: "x.value")),
        PlannedColumn(path: RecordPath("x.display_value"), schema: ColumnSchema(name: "x.display_value")),
        PlannedColumn(path: RecordPath("x.link"), schema: ColumnSchema(name: "x.link")),
        PlannedColumn(path: RecordPath("count"), schema: ColumnSchema(name: "count", type: .int)),
        PlannedColumn(path: RecordPath("no_such_field"), schema: ColumnSchema(name: "no_such_field")),
    ]

    /// The rows and rejections of the reference records and of the fast ones, for every display-value
    /// mode, with and without the NUL check, are the same.
    private static func compareRows(_ expected: [Record], _ actual: [Record]) -> FuzzFailure? {
        for mode in [DisplayValueMode.actual, .display, .all] {
            for refusesNUL in [false, true] {
                let transformer = RecordTransformer(columns: columns, displayValue: mode, refusesNUL: refusesNUL)
                var expectedRows = RowBatch(schema: transformer.schema)
                var actualRows = RowBatch(schema: transformer.schema)
                let expectedRejections = transformer.transform(expected, into: &expectedRows)
                let actualRejections = transformer.transform(actual, into: &actualRows)
                let same =
                    expectedRejections == actualRejections && expectedRows.count == actualRows.count
                    && (0..<expectedRows.count).allSatisfy { row in
                        expectedRows.values(row: row) == actualRows.values(row: row)
                            && expectedRows.recordTable(row: row) == actualRows.recordTable(row: row)
                            && (0..<expectedRows.columnCount).allSatisfy { column in
                                expectedRows.displayValue(row: row, column: column)
                                    == actualRows.displayValue(row: row, column: column)
                            }
                    }
                if !same {
                    return FuzzFailure("rows differ (display_value \(mode), refusing NUL \(refusesNUL))")
                }
            }
        }
        return nil
    }

    /// Whether the body holds the bytes of U+FEFF after its start (where both decoders skip a byte
    /// order mark alike).
    private static func hasInnerByteOrderMark(_ body: Data) -> Bool {
        let bytes = [UInt8](body)
        return bytes.count > 3
            && (1..<bytes.count - 2).contains { bytes[$0] == 0xEF && bytes[$0 + 1] == 0xBB && bytes[$0 + 2] == 0xBF }
    }

    /// The records with every U+FEFF removed from every key and text (which of them Foundation drops
    /// depends on escapes the decoded text no longer shows); `nil` when that makes two keys of a record
    /// equal.
    private static func withoutByteOrderMarks(_ records: [Record]) -> [Record]? {
        func strip(_ text: String) -> String {
            var kept = String.UnicodeScalarView()
            kept.append(contentsOf: text.unicodeScalars.lazy.filter { $0 != "\u{FEFF}" })
            return String(kept)
        }
        func strip(_ value: Record.Value) -> Record.Value {
            switch value {
            case .text(let text): .text(strip(text))
            case .forms(let value, let display, let link):
                .forms(value: value.map(strip), displayValue: display.map(strip), link: link.map(strip))
            case .null: .null
            }
        }
        var result: [Record] = []
        for record in records {
            var fields: [String: Record.Value] = [:]
            for (name, value) in record.fields {
                guard fields.updateValue(strip(value), forKey: strip(name)) == nil else { return nil }
            }
            result.append(Record(fields: fields))
        }
        return result
    }

    /// The first record that differs and its differing fields, names and values escaped.
    private static func difference(_ expected: [Record], _ actual: [Record]) -> String {
        guard expected.count == actual.count else { return "reference \(expected.count) records, fast \(actual.count)" }
        for (index, (reference, fast)) in zip(expected, actual).enumerated() where reference != fast {
            let names = Set(reference.fields.keys).union(fast.fields.keys).sorted()
            let fields = names.filter { reference.fields[$0] != fast.fields[$0] }.map { name in
                "\(name.debugDescription): reference \(String(describing: reference.fields[name])), "
                    + "fast \(String(describing: fast.fields[name]))"
            }
            return "record \(index): " + fields.joined(separator: "; ")
        }
        return "the records compare unequal field by field equal"
    }

    /// A one-pass read holds the records ``FastPageDecoder/records(in:)`` gives, their count and the
    /// greatest sys_id byte by byte; it is offered only for a body NowData may page on.
    private static func keysetRead(_ body: Data) -> FuzzFailure? {
        guard let read = FastPageDecoder().keysetPageRead(of: body) else { return nil }
        guard let records = try? FastPageDecoder().records(in: body) else {
            return FuzzFailure("a keyset read of a body that records(in:) refuses")
        }
        guard read.content == records, read.recordCount == records.count else {
            return FuzzFailure("the keyset read differs from records(in:): \(read.content) / \(records)")
        }
        let greatest = records.compactMap(\.sysID).max { $0.utf8.lexicographicallyPrecedes($1.utf8) }
        guard read.lastSysId == greatest else {
            return FuzzFailure(
                "the keyset read's last sys_id \(String(describing: read.lastSysId)) is not the greatest of the "
                    + "records, \(String(describing: greatest))")
        }
        return nil
    }
}
