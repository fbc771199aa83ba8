import Foundation
import NowData
import Testing

@testable import NowETL

@Suite(.timeLimit(.minutes(5))) struct ExtractTests {
    static let source = SourceConfiguration(
        instance: URL(string: "http://127.0.0.1:1")!, auth: .basic(user: "u", password: Secret("p")), concurrency: 3,
        pageSize: 50)

    @Test func planMarksReferencesOnlyWhenBothFormsAreRead() throws {
        let dictionary = [
            DictionaryField(name: "caller_id", internalType: "reference", reference: "sys_user", definedOn: "incident"),
            DictionaryField(name: "number", internalType: "string", definedOn: "task"),
        ]
        for mode in DisplayValueMode.allCases {
            let table = try TableConfiguration(table: "incident", displayValue: mode)
            let plan = TablePlanner.plan(table, dictionary: dictionary, source: Self.source)
            #expect(plan.columns.map(\.schema.name) == ["caller_id", "number"])
            #expect(plan.columns.map(\.schema.isReference) == [mode == .all, false])
            #expect(plan.readConfiguration.includeFields == ["caller_id", "number"])
            #expect(plan.readConfiguration.options.contains(.excludeReferenceLink))
            #expect(plan.readConfiguration.displayValueParameter == mode.rawValue)
            #expect(plan.partitions == SysIDRange.partitions(3))
            #expect(plan.pageSize == 50)
        }
    }

    @Test func anUnloadOutputPlansTheFieldsWithStoredAndDisplayValues() throws {
        let dictionary = [
            DictionaryField(name: "caller_id", internalType: "reference", reference: "sys_user", definedOn: "incident"),
            DictionaryField(name: "number", internalType: "string", definedOn: "task"),
            DictionaryField(name: "state", internalType: "integer", definedOn: "task", isChoice: true),
        ]
        for mode in DisplayValueMode.allCases {
            let table = try TableConfiguration(
                table: "incident", fields: ["state", "number", "caller_id", "caller_id.name"], displayValue: mode,
                columns: [
                    ColumnConfiguration(name: "caller", path: "caller_id.name"),
                    ColumnConfiguration(name: "state_label", path: "state"),
                ])
            let plan = TablePlanner.plan(table, dictionary: dictionary, source: Self.source, unload: true)
            #expect(plan.columns.map(\.schema.name) == ["caller", "state_label"])
            #expect(plan.unloadColumns.map(\.schema.name) == ["caller_id", "number", "state", "sys_id"])
            #expect(
                plan.unloadColumns.map(\.path.text) == [
                    "caller_id.value", "number.value", "state.value", "sys_id.value",
                ])
            #expect(plan.unloadColumns.map(\.schema.isReference) == [true, false, true, false])
            #expect(
                plan.readConfiguration.includeFields == ["state", "number", "caller_id", "caller_id.name", "sys_id"])
            #expect(plan.readConfiguration.displayValueParameter == "all")
            #expect(plan.displayValue == mode, "the columns keep the forms they asked for")
            #expect(plan.schema.count == 6)

            // A column naming just a field still gets the form its mode means, from both forms.
            let transformer = RecordTransformer(
                columns: plan.columns, unloadColumns: plan.unloadColumns, displayValue: plan.displayValue)
            var batch = RowBatch(schema: transformer.schema)
            let record = Record(fields: [
                "sys_id": .forms(value: "a1", displayValue: "a1", link: nil),
                "number": .forms(value: "INC1", displayValue: "INC1", link: nil),
                "state": .forms(value: "7", displayValue: "Closed", link: nil),
                "caller_id": .forms(value: "u1", displayValue: "Fred", link: nil),
                "caller_id.name": .forms(value: "Fred", displayValue: "Fred", link: nil),
            ])
            #expect(transformer.transform([record], into: &batch).isEmpty)
            #expect(batch[0, 1] == .string(mode == .display ? "Closed" : "7"))
            #expect((2..<6).map { batch[0, $0] } == [.string("u1"), .string("INC1"), .string("7"), .string("a1")])
            #expect(batch.displayValue(row: 0, column: 2) == "Fred")
            #expect(batch.displayValue(row: 0, column: 4) == "Closed")
        }
        let plain = TablePlanner.plan(
            try TableConfiguration(table: "incident", fields: ["number"]), dictionary: [], source: Self.source)
        #expect(plain.unloadColumns.isEmpty && plain.readConfiguration.includeFields == ["number"])
    }

    @Test func planKeepsReferenceLinksWhenAColumnReadsThem() throws {
        let table = try TableConfiguration(
            table: "incident", fields: ["caller_id"],
            columns: [ColumnConfiguration(name: "link", path: "caller_id.link")])
        let plan = TablePlanner.plan(table, dictionary: [], source: Self.source)
        #expect(!plan.readConfiguration.options.contains(.excludeReferenceLink))
        #expect(plan.columns.first?.path.field == "caller_id")
        #expect(plan.columns.first?.path.form == .link)
    }

    @Test(arguments: [
        (NowDataError.badResponse(statusCode: 401, context: ResponseContext(method: "GET", url: "u")), Int32(77)),
        (.badResponse(statusCode: 403, context: ResponseContext(method: "GET", url: "u")), 77),
        (.badResponse(statusCode: 429, context: ResponseContext(method: "GET", url: "u")), 75),
        (.badResponse(statusCode: 400, context: ResponseContext(method: "GET", url: "u")), 1),
        (.network(.systemError(URLError(.cannotConnectToHost))), 69),
        (.network(.systemError(URLError(.timedOut))), 75),
        (.cannotParseResponse, 1),
    ])
    func errorsMapToExitCodes(error: NowDataError, exitCode: Int32) {
        let runError = NowETLError(table: "incident", during: "fetching a page", error, partition: 1, page: 2)
        #expect(runError.exitCode == exitCode)
        #expect(runError.description.hasPrefix("table incident, partition 1, page 2: fetching a page"))
    }
}

/// A thread-safe counter.
final class Counter: @unchecked Sendable {
    private let lock = NSLock()
    private var count = 0
    func increment() { lock.withLock { count += 1 } }
    var value: Int { lock.withLock { count } }
}
