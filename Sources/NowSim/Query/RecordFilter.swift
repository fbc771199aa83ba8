import NowQuery
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

    /// The filter of a list or aggregate request on `table`; `ignoringCursor` drops every `sys_id>X`
    /// condition first (the `stuck-cursor` fault: a server that does not honour the keyset bound).
    init(
        request: HTTPRequest, table: TableDefinition, catalog: Catalog, settings: InstanceSettings,
        ignoringCursor: Bool = false
    ) {
        let reader = QueryReader(request: request, table: table, catalog: catalog)
        var query = reader.query
        if ignoringCursor {
            for index in query.groups.indices {
                query.groups[index].terms.removeAll { term in
                    term.conditions.count == 1 && term.conditions[0].field == "sys_id"
                        && term.conditions[0].op == .greaterThan
                }
            }
        }
        self.init(
            query: query, droppedSegments: !reader.droppedSegments.isEmpty,
            joins: JoinPlan(catalog: catalog, base: table), catalog: catalog, settings: settings)
    }

    /// The filter of `query` on the table behind `joins` (to which it adds the joins it dot-walks);
    /// row ACLs use it too. `droppedSegments` says that the query text had segments that did not parse.
    init(
        query: EncodedQuery, droppedSegments: Bool = false, joins: JoinPlan, catalog: Catalog,
        settings: InstanceSettings
    ) {
        self.joins = joins
        let compiled = QueryCompiler(
            catalog: catalog,
            options: .init(invalidQueryReturnsNoRows: settings.invalidQueryReturnsNoRows, now: settings.now())
        ).compile(query, joins: joins)
        if settings.invalidQueryReturnsNoRows && droppedSegments {
            whereSQL = "0"
            parameters = []
        } else {
            whereSQL = compiled.whereSQL
            parameters = compiled.parameters
        }
        orderSQL = compiled.orderSQL
    }
}
