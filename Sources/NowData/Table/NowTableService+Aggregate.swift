import Foundation

extension NowTableService {
    /// How many records of a table match a filter, read from the Aggregate API
    /// (`GET /api/now/stats/{table}?sysparm_count=true`, ref §7.1).
    ///
    /// The count is taken before ACLs are applied to rows, like `X-Total-Count`: an export may
    /// legitimately receive fewer records. Sorting clauses of the filter are ignored by the instance.
    /// - Parameters:
    ///   - tableName: the table, e.g. `incident`.
    ///   - filter: the records to count; `nil` counts the whole table.
    /// - Returns: the count and the attempts the request took (retries included).
    public func count(from tableName: String, filter: Filter? = nil) async throws(NowDataError) -> (
        count: Int, attempts: Int
    ) {
        var items = [URLQueryItem(name: "sysparm_count", value: "true")]
        if let filter, !filter.query.isEmpty { items.append(URLQueryItem(name: "sysparm_query", value: filter.query)) }
        let url = try TableEndpoint.url(configuration: configuration, table: tableName, queryItems: items, api: "stats")
        let response = try await transport.send(TransportRequest(method: .get, url: url, table: tableName))
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let result = object["result"] as? [String: Any], let stats = result["stats"] as? [String: Any],
            let text = stats["count"] as? String
        else { throw .cannotParseResponse }
        guard let count = InstanceCount.parse(text) else {
            throw .badResponse(
                statusCode: response.statusCode,
                context: ResponseContext(
                    method: "GET", url: URLRedaction.redact(url), table: tableName, statusCode: response.statusCode,
                    message: "the Aggregate API's count '\(String(text.prefix(40)))' is not a record count "
                        + "(0 to \(InstanceCount.maximum))", attempts: response.attempts))
        }
        return (count, response.attempts)
    }
}
