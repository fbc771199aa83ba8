import NowData

@testable import NowETL

/// A plan made by hand instead of by the planner: the incident table's sys_id, number (an integer column)
/// and short_description, for the suites that drive the extraction engine directly (ExtractConcurrencyTests,
/// FastPageDecoderTests).
enum ScriptedPlan {
    /// The three planned columns.
    static let columns = [
        PlannedColumn(path: RecordPath("sys_id"), schema: ColumnSchema(name: "sys_id", type: .string)),
        PlannedColumn(path: RecordPath("number"), schema: ColumnSchema(name: "number", type: .int)),
        PlannedColumn(
            path: RecordPath("short_description"), schema: ColumnSchema(name: "short_description", type: .string)),
    ]

    /// The whole incident table in `partitions` sys_id ranges, read `pageSize` records a page.
    static func incident(pageSize: Int, partitions: Int) -> TablePlan {
        TablePlan(
            table: "incident", filter: EncodedQuery(), displayValue: .actual,
            readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "number", "short_description"]),
            columns: columns, partitions: SysIDRange.partitions(partitions), pageSize: pageSize)
    }
}
