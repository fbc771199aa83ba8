import NowSQLite

/// The records a list or aggregate request selects: its filter (`sysparm_query` or name=value pairs)
/// compiled against the table, with the joins it needs.
///
/// Shared by the Table API and the Aggregate API so that both read queries exactly alike,
/// `--invalid-query-returns-no-rows` included.
struct RecordFilter {
    /// Joins for dot-walked fields; callers add more (display values, projections) after the filter.
    let joins: JoinPlan
    /// The SQL condition (without `WHERE`).
    let whereSQL: String
    /// Its parameters.
    let parameters: [SQLiteValue]
    /// The `ORDER BY` list, empty when the query has no ORDERBY.
    let orderSQL: String

    init(request: HTTPRequest, table: TableDefinition, catalog: Catalog, settings: InstanceSettings) {
        let reader = QueryReader(request: request, table: table, catalog: catalog)
        joins = JoinPlan(catalog: catalog, base: table)
        let compiled = QueryCompiler(
            catalog: catalog,
            options: .init(invalidQueryReturnsNoRows: settings.invalidQueryReturnsNoRows, now: settings.now())
        ).compile(reader.query, joins: joins)
        if settings.invalidQueryReturnsNoRows && !reader.droppedSegments.isEmpty {
            whereSQL = "0"
            parameters = []
        } else {
            whereSQL = compiled.whereSQL
            parameters = compiled.parameters
        }
        orderSQL = compiled.orderSQL
    }
}
