import Foundation
import NowSQLite

/// The Aggregate API: `GET /api/now[/v1]/stats/{table}` (ref §7.1).
///
/// Counts, `min`/`max`/`avg`/`sum` of fields, `sysparm_group_by` with `sysparm_having` and
/// `sysparm_order_by`; every number is rendered as a string, averages with four decimals as an
/// instance does.
///
/// Under read ACLs that hide rows from the caller (``visibility``), counts are taken before them,
/// as an instance counts before ACLs (ref §3.2), but `min`/`max`/`avg`/`sum` cover only the rows
/// the caller sees and a group none of whose rows the caller sees is left out.
struct StatsAPI {
    let catalog: Catalog
    let pool: SQLiteConnectionPool
    let settings: InstanceSettings
    /// Which rows the caller sees (``RowVisibility``), `nil` for all.
    var visibility: RowVisibility?
    /// The text every `count` is answered with instead of the real one (the `count` fault).
    var countOverride: String?

    private static let aggregates = ["min", "max", "avg", "sum"]

    func handle(_ request: HTTPRequest, route: TableRoute) -> HTTPResponse {
        guard request.method == "GET" || request.method == "HEAD", route.sysId == nil else {
            return ErrorEnvelope.methodNotAllowed(request.method, allowed: ["GET", "HEAD"])
        }
        guard let table = catalog.table(route.table) else {
            return ErrorEnvelope.invalidTable(route.table)
        }
        do {
            return try compute(request, table: table)
        } catch {
            return ErrorEnvelope.response(status: 500, message: "Internal server error", detail: "\(error)")
        }
    }

    private struct Aggregate {
        var function: String
        var field: JoinPlan.ResolvedField
        var name: String
    }

    private func compute(_ request: HTTPRequest, table: TableDefinition) throws -> HTTPResponse {
        let filter = RecordFilter(request: request, table: table, catalog: catalog, settings: settings)
        let joins = filter.joins
        let whereSQL = filter.whereSQL
        let parameters = filter.parameters
        var tableAPI = TableAPI(catalog: catalog, pool: pool, settings: settings)
        tableAPI.visibility = visibility
        let (classSQL, classParameters) = tableAPI.classFilter(table)
        let visible = tableAPI.visibilitySQL(joins: joins)

        let wantsCount = isTrue(request.query("sysparm_count"))
        var aggregates: [Aggregate] = []
        for function in Self.aggregates {
            for name in Self.list(request.query("sysparm_\(function)_fields")) {
                if let field = joins.resolve(name) {
                    aggregates.append(Aggregate(function: function, field: field, name: name))
                }
            }
        }
        let groupNames = Self.list(request.query("sysparm_group_by"))
        let groups = groupNames.compactMap { name in joins.resolve(name).map { (name, $0) } }
        let displayMode = ReadOptions(request: request).displayMode

        var select: [String] = ["COUNT(*)"]
        var selectParameters: [SQLiteValue] = []
        for aggregate in aggregates {
            select.append(sqlAggregate(aggregate, visible: visible, parameters: &selectParameters))
        }
        for (_, field) in groups { select.append(field.expression) }
        var sql = "SELECT \(select.joined(separator: ", ")) \(joins.fromClause) WHERE \(classSQL) AND (\(whereSQL))"
        var havingParameters: [SQLiteValue] = []
        if !groups.isEmpty {
            sql += " GROUP BY " + groups.map { $0.1.expression }.joined(separator: ", ")
            var having: [String] = []
            if let visible {
                // A group is a value the caller reads only when one of its rows is visible.
                having.append("MAX(CASE WHEN (\(visible.sql)) THEN 1 ELSE 0 END) = 1")
                havingParameters += visible.parameters
            }
            let asked = havingClause(
                request.query("sysparm_having"), joins: joins, visible: visible, parameters: &havingParameters)
            if !asked.isEmpty { having.append(asked) }
            if !having.isEmpty { sql += " HAVING " + having.joined(separator: " AND ") }
            sql += " ORDER BY " + orderClause(request.query("sysparm_order_by"), groups: groups)
        }
        return try pool.withConnection { db in
            try db.withStatement(sql) { statement in
                try statement.bind(selectParameters + classParameters + parameters + havingParameters)
                var out = JSONWriter()
                out.raw("{\"result\":")
                if groups.isEmpty {
                    _ = try statement.step()
                    writeStats(statement, wantsCount: wantsCount, aggregates: aggregates, into: &out)
                } else {
                    out.byte(UInt8(ascii: "["))
                    var first = true
                    while try statement.step() {
                        if !first { out.byte(UInt8(ascii: ",")) }
                        first = false
                        out.raw("{\"stats\":")
                        writeStats(statement, wantsCount: wantsCount, aggregates: aggregates, into: &out, nested: false)
                        out.raw(",\"groupby_fields\":[")
                        for (index, (name, field)) in groups.enumerated() {
                            if index > 0 { out.byte(UInt8(ascii: ",")) }
                            let value = statement.text(Int32(1 + aggregates.count + index)) ?? ""
                            out.raw("{\"field\":")
                            out.string(name)
                            out.raw(",\"value\":")
                            out.string(value)
                            if displayMode != .value {
                                out.raw(",\"display_value\":")
                                out.string(groupDisplayValue(field, value: value, db: db))
                            }
                            out.byte(UInt8(ascii: "}"))
                        }
                        out.raw("]}")
                    }
                    out.byte(UInt8(ascii: "]"))
                }
                out.byte(UInt8(ascii: "}"))
                return TableAPI.json(status: 200, body: out.bytes)
            }
        }
    }

    private func writeStats(
        _ row: SQLiteStatement, wantsCount: Bool, aggregates: [Aggregate], into out: inout JSONWriter,
        nested: Bool = true
    ) {
        if nested { out.raw("{\"stats\":") }
        out.byte(UInt8(ascii: "{"))
        var wroteAny = false
        for function in Self.aggregates {
            let members = aggregates.enumerated().filter { $0.element.function == function }
            if members.isEmpty { continue }
            if wroteAny { out.byte(UInt8(ascii: ",")) }
            wroteAny = true
            out.key(function)
            out.byte(UInt8(ascii: "{"))
            for (position, (index, aggregate)) in members.enumerated() {
                if position > 0 { out.byte(UInt8(ascii: ",")) }
                out.key(aggregate.name)
                out.string(formatAggregate(aggregate, row: row, column: Int32(1 + index)))
            }
            out.byte(UInt8(ascii: "}"))
        }
        if wantsCount {
            if wroteAny { out.byte(UInt8(ascii: ",")) }
            out.raw("\"count\":")
            out.string(countOverride ?? String(row.integer(0)))
        }
        out.byte(UInt8(ascii: "}"))
        if nested { out.byte(UInt8(ascii: "}")) }
    }

    /// The SQL of one aggregate over the rows `visible` (all when `nil`), whose parameters it adds.
    private func sqlAggregate(
        _ aggregate: Aggregate, visible: (sql: String, parameters: [SQLiteValue])?, parameters: inout [SQLiteValue]
    ) -> String {
        let c = aggregate.field.expression
        let numeric = aggregate.field.column.comparison == .number
        var value = "NULLIF(\(c), '')"
        if let visible {
            value = "CASE WHEN (\(visible.sql)) THEN \(value) END"
            parameters += visible.parameters
        }
        switch aggregate.function {
        case "avg": return "AVG(CAST(\(value) AS REAL))"
        case "sum": return "SUM(CAST(\(value) AS REAL))"
        case "min": return numeric ? "MIN(CAST(\(value) AS REAL))" : "MIN(\(value))"
        default: return numeric ? "MAX(CAST(\(value) AS REAL))" : "MAX(\(value))"
        }
    }

    private func formatAggregate(_ aggregate: Aggregate, row: SQLiteStatement, column: Int32) -> String {
        if row.isNull(column) { return "" }
        let numeric =
            aggregate.function == "avg" || aggregate.function == "sum" || aggregate.field.column.comparison == .number
        guard numeric else { return row.text(column) ?? "" }
        let number = row.real(column)
        if aggregate.function == "avg" { return String(format: "%.4f", number) }
        if number == number.rounded(), abs(number) < 1e15 { return String(Int(number)) }
        return String(format: "%.4f", number)
    }

    /// `aggregate^field^operator^value`, comma-separated (`count^priority^>^3`).
    private func havingClause(
        _ text: String?, joins: JoinPlan, visible: (sql: String, parameters: [SQLiteValue])?,
        parameters: inout [SQLiteValue]
    ) -> String {
        var clauses: [String] = []
        for item in Self.list(text) {
            let parts = item.split(separator: "^", omittingEmptySubsequences: false).map(String.init)
            guard parts.count == 4, ["=", "!=", "<", "<=", ">", ">="].contains(parts[2]),
                let number = Double(parts[3])
            else { continue }
            let function = parts[0].lowercased()
            let expression: String
            if function == "count" {
                expression = "COUNT(*)"
            } else if Self.aggregates.contains(function), let field = joins.resolve(parts[1]) {
                expression = sqlAggregate(
                    Aggregate(function: function, field: field, name: parts[1]), visible: visible,
                    parameters: &parameters)
            } else {
                continue
            }
            parameters.append(.real(number))
            clauses.append("\(expression) \(parts[2] == "!=" ? "<>" : parts[2]) ?")
        }
        return clauses.joined(separator: " AND ")
    }

    /// `sysparm_order_by`: a group-by field or `COUNT`, optionally `^DESC`; defaults to the group fields.
    private func orderClause(_ text: String?, groups: [(String, JoinPlan.ResolvedField)]) -> String {
        var parts: [String] = []
        for item in Self.list(text) {
            let pieces = item.split(separator: "^").map(String.init)
            guard let name = pieces.first else { continue }
            let descending = pieces.dropFirst().contains { $0.uppercased() == "DESC" }
            if name.uppercased() == "COUNT" {
                parts.append("COUNT(*)" + (descending ? " DESC" : " ASC"))
            } else if let group = groups.first(where: { $0.0 == name }) {
                parts.append(group.1.expression + (descending ? " DESC" : " ASC"))
            }
        }
        if parts.isEmpty { parts = groups.map { $0.1.expression + " ASC" } }
        return parts.joined(separator: ", ")
    }

    private func groupDisplayValue(_ field: JoinPlan.ResolvedField, value: String, db: SQLiteConnection) -> String {
        if value.isEmpty { return "" }
        if field.column.hasChoices {
            return catalog.choiceLabel(table: field.table.name, element: field.column.element, value: value) ?? value
        }
        if field.column.internalType == "reference", let targetName = field.column.reference,
            let target = catalog.table(targetName), target.column(target.displayField) != nil
        {
            let label = try? db.withStatement(
                "SELECT \(SQLIdentifier.quote(target.displayField)) FROM \(SQLIdentifier.quote(target.storageTable)) WHERE \"sys_id\" = ?"
            ) { statement in
                try statement.bind([.text(value)])
                return try statement.step() ? statement.text(0) ?? "" : ""
            }
            return label ?? ""
        }
        return value
    }

    private static func list(_ text: String?) -> [String] {
        (text ?? "").split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }
}
