import NowSimTesting
import Testing

/// A nowsim table read whole through the Table API, the way an independent client would: keyset pages in
/// sys_id order. The end-to-end suites compare what they loaded with it.
enum SimRecords {
    /// Every record of `table` on `sim`, `pageSize` a request, with the query parameters `parameters`
    /// added to each (`sysparm_fields`, say).
    static func all(
        _ sim: NowSimInstance, _ table: String, pageSize: Int, parameters: [(String, String)] = []
    ) async throws -> [[String: Any]] {
        var records: [[String: Any]] = []
        var after = ""
        while true {
            let response = try await sim.request(
                "/api/now/table/\(table)",
                query: [
                    ("sysparm_query", (after.isEmpty ? "" : "sys_id>\(after)^") + "ORDERBYsys_id"),
                    ("sysparm_limit", String(pageSize)),
                ] + parameters)
            try #require(response.status == 200, "\(table): \(String(decoding: response.body, as: UTF8.self))")
            records += response.resultList
            guard let last = response.resultList.last?["sys_id"] as? String else { return records }
            after = last
        }
    }

    /// `fields` of every record of `table` on `sim` as the Table API gives them (stored values), by sys_id
    /// ("" where a field is missing), 500 a request.
    static func fields(_ sim: NowSimInstance, _ table: String, _ fields: [String]) async throws -> [String: [String:
        String]]
    {
        var rows: [String: [String: String]] = [:]
        let records = try await all(
            sim, table, pageSize: 500, parameters: [("sysparm_fields", (["sys_id"] + fields).joined(separator: ","))])
        for record in records {
            rows[record["sys_id"] as? String ?? ""] = Dictionary(
                uniqueKeysWithValues: fields.map { ($0, record[$0] as? String ?? "") })
        }
        return rows
    }
}
