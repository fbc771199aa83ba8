import Foundation
import NowData
import Testing

@testable import NowETL

/// What a database output changes before any row: the planner types the untyped columns from the
/// dictionary, and the table journal keeps an id across a resume (the database load's id).
@Suite(.timeLimit(.minutes(5))) struct SinkSQLitePlanTests {
    static func types(_ plan: TablePlan) -> [String: ColumnType] {
        Dictionary(uniqueKeysWithValues: plan.columns.map { ($0.schema.name, $0.schema.type) })
    }

    @Test func discoveredFieldsTakeTheDictionarysTypesOnlyWithADatabaseOutput() throws {
        let table = try TableConfiguration(table: "incident")
        let typed = TablePlanner.plan(
            table, dictionary: PlannerDictionary.fields, source: PlannerDictionary.source, typed: true)
        #expect(
            Self.types(typed) == [
                "sys_id": .string, "number": .string, "priority": .int, "active": .bool, "opened_at": .dateTime,
                "due_date": .dateTime, "u_day": .date, "business_duration": .duration, "u_cost": .decimal,
                "caller_id": .string,
            ])
        let untyped = TablePlanner.plan(table, dictionary: PlannerDictionary.fields, source: PlannerDictionary.source)
        #expect(untyped.columns.allSatisfy { $0.schema.type == .string })
    }

    @Test func columnsWithoutATypeReadingAStoredValueAreTypedAndADeclaredTypeWins() throws {
        let table = try TableConfiguration(
            table: "incident", fields: ["priority", "opened_at", "caller_id"], displayValue: .all,
            columns: [
                ColumnConfiguration(name: "priority", path: "priority.value"),
                ColumnConfiguration(name: "priority_label", path: "priority.display_value"),
                ColumnConfiguration(name: "opened_text", path: "opened_at", type: .string, typeIsDeclared: true),
                ColumnConfiguration(name: "opened_at", path: "opened_at"),
                ColumnConfiguration(name: "caller", path: "caller_id.value"),
                ColumnConfiguration(name: "caller_name", path: "caller_id.display_value"),
            ])
        let plan = TablePlanner.plan(
            table, dictionary: PlannerDictionary.fields, source: PlannerDictionary.source, typed: true)
        #expect(
            Self.types(plan) == [
                "priority": .int, "priority_label": .string, "opened_text": .string, "opened_at": .dateTime,
                "caller": .string, "caller_name": .string,
            ])
        // Under display_value: true a bare field path sends the display text: not typed; `.value` is.
        let display = try TableConfiguration(
            table: "incident", fields: ["priority"], displayValue: .display,
            columns: [ColumnConfiguration(name: "priority", path: "priority")])
        #expect(
            Self.types(
                TablePlanner.plan(
                    display, dictionary: PlannerDictionary.fields, source: PlannerDictionary.source, typed: true))
                == ["priority": .string])
    }

    /// The columns a database output writes a `_display` column beside: references and choices, under
    /// display values, with a database output only, by default without `columns:`, never with
    /// `display_columns: false`.
    @Test func referenceAndChoiceColumnsGetDisplayColumnsUnderDisplayValuesWithADatabaseOnly() throws {
        func marked(_ table: TableConfiguration, typed: Bool = true) -> [String] {
            TablePlanner.plan(
                table, dictionary: PlannerDictionary.fields, source: PlannerDictionary.source, typed: typed
            )
            .columns.filter(\.schema.hasDisplayColumn).map(\.schema.name)
        }
        let fields = ["sys_id", "number", "priority", "caller_id"]
        #expect(
            marked(try TableConfiguration(table: "incident", fields: fields, displayValue: .all)) == [
                "priority", "caller_id",
            ])
        #expect(
            marked(try TableConfiguration(table: "incident", fields: fields, displayValue: .display)) == [
                "priority", "caller_id",
            ])
        #expect(marked(try TableConfiguration(table: "incident", fields: fields)).isEmpty)
        #expect(
            marked(try TableConfiguration(table: "incident", fields: fields, displayValue: .all), typed: false).isEmpty)
        var off = try TableConfiguration(table: "incident", fields: fields, displayValue: .all)
        off.displayColumns = false
        #expect(marked(off).isEmpty)
        var listed = try TableConfiguration(
            table: "incident", fields: fields, displayValue: .all,
            columns: [
                ColumnConfiguration(name: "caller", path: "caller_id.value"),
                ColumnConfiguration(name: "caller_display", path: "caller_id.display_value"),
                ColumnConfiguration(name: "urgency", path: "priority"),
            ])
        #expect(!listed.wantsDisplayColumns && marked(listed).isEmpty)
        listed.displayColumns = true
        #expect(marked(listed) == ["urgency"])
        // Only the database sees the mark; the reference column stays what XML writes either way.
        let plan = TablePlanner.plan(
            try TableConfiguration(table: "incident", fields: fields, displayValue: .all),
            dictionary: PlannerDictionary.fields, source: PlannerDictionary.source, typed: true)
        #expect(plan.columns.filter(\.schema.isReference).map(\.schema.name) == ["caller_id"])
    }

    /// `display_columns` as written (`nil` when not) and whether the table then gets display columns.
    @Test(
        arguments: [
            ("    display_value: all\n", nil, true),
            ("    display_value: all\n    display_columns: false\n", false, false),
            ("    display_value: true\n    columns: [{ name: name, path: name }]\n", nil, false),
        ] as [(String, Bool?, Bool)])
    func displayColumnsIsReadFromTheTable(_ lines: String, _ written: Bool?, _ wanted: Bool) throws {
        let yaml = ConfigText.head + "tables:\n  - table: incident\n" + lines + "outputs:\n  - sqlite: { path: r.db }\n"
        let table = try #require(try ConfigText.load(yaml).tables.first)
        #expect(table.displayColumns == written)
        #expect(table.wantsDisplayColumns == wanted)
    }

    @Test func aColumnTypeWrittenInTheFileCountsAsDeclaredEvenWhenItIsString() throws {
        let pipeline = try PipelineLoader.load(
            text: """
                version: 1
                source: { instance: "https://acme.service-now.com", auth: { basic: { user: u, password: p } } }
                tables:
                  - table: incident
                    columns:
                      - { name: priority, path: priority, type: string }
                      - { name: state, path: state }
                outputs:
                  - sqlite: { path: report.db }
                """, file: "p.yaml", environment: [:])
        let columns = try #require(pipeline.tables.first?.columns)
        #expect(columns.map(\.typeIsDeclared) == [true, false])
    }

    @Test func theJournalKeepsItsIDAcrossAResumeAndGetsANewOneFresh() throws {
        let directory = NSTemporaryDirectory() + "nowetl-journal-id-\(UUID().uuidString.prefix(8))"
        defer { try? FileManager.default.removeItem(atPath: directory) }
        let first: String
        do {
            let (journal, opening) = try TableJournal.open(
                directory: directory, fingerprint: "plan", partitions: SysIDRange.partitions(1), restart: false)
            #expect(opening == .fresh)
            first = journal.id
            journal.close()
        }
        let header = try String(contentsOfFile: directory + "/journal.jsonl", encoding: .utf8)
        #expect(header.hasPrefix("{\"id\":\"\(first)\""), "\(header)")
        let (resumed, opening) = try TableJournal.open(
            directory: directory, fingerprint: "plan", partitions: SysIDRange.partitions(1), restart: false)
        #expect(opening == .resumed(pages: 0, rows: 0, partsRestarted: 0))
        #expect(resumed.id == first)
        resumed.close()
        let (restarted, _) = try TableJournal.open(
            directory: directory, fingerprint: "plan", partitions: SysIDRange.partitions(1), restart: true)
        #expect(restarted.id != first && !restarted.id.isEmpty)
        restarted.close()
        // A journal written before ids existed resumes, with a new id kept from then on.
        let old = header.replacingOccurrences(of: "\"id\":\"\(first)\",", with: "")
        try old.write(toFile: directory + "/journal.jsonl", atomically: true, encoding: .utf8)
        let (legacy, legacyOpening) = try TableJournal.open(
            directory: directory, fingerprint: "plan", partitions: SysIDRange.partitions(1), restart: false)
        #expect(legacyOpening == .resumed(pages: 0, rows: 0, partsRestarted: 0))
        #expect(!legacy.id.isEmpty && legacy.id != first)
        legacy.close()
    }
}
