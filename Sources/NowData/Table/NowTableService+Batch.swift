import Foundation

extension NowTableService {
    /// A Batch API item writing `fields` to `tableName`: a POST, or a PUT of `sysId` when given.
    ///
    /// - Throws: ``NowDataError/invalidURL`` for a table name that cannot be part of a URL,
    ///   ``NowDataError/cannotEncodeModel(_:)`` when the fields do not encode.
    public func batchWriteItem(
        id: String, table tableName: String, sysId: SysID? = nil, fields: [FieldName: FieldValue],
        writeOptions: FieldWriteOptions? = nil, configuration: FieldReadConfiguration? = nil
    ) throws(NowDataError) -> BatchRequestItem {
        let items = (configuration?.queryItems ?? []) + (writeOptions?.queryItems ?? [])
        let url = try TableEndpoint.url(
            configuration: self.configuration, table: tableName, sysId: sysId, queryItems: items)
        guard let components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { throw .invalidURL }
        let relative = components.percentEncodedPath + (components.percentEncodedQuery.map { "?" + $0 } ?? "")
        return BatchRequestItem(
            id: id, method: sysId == nil ? .post : .put, url: relative, body: try Coder.default.encode(fields))
    }

    /// Runs `items` in one `POST /api/now/v1/batch` call (ref §7.2) and returns every item's answer.
    ///
    /// The instance runs the items one after another as the caller; an item's own failure (a 403, a
    /// 429) is its ``BatchResponse/Item/statusCode``, not an error of the call. The call is retried as
    /// the retry policy says for a POST (only with ``RetryPolicy/retriesNonIdempotentRequests``: items
    /// that had run would run again).
    ///
    /// - Throws: ``NowDataError`` when the call itself fails, or
    ///   ``NowDataError/cannotParseResponse`` when its answer is not a batch response.
    public func batch(_ items: [BatchRequestItem]) async throws(NowDataError) -> BatchResponse {
        var text = configuration.instanceURL.absoluteString
        while text.hasSuffix("/") { text.removeLast() }
        guard let url = URL(string: text + "/api/now/v1/batch") else { throw .invalidURL }
        let requests: [[String: Any]] = items.map { item in
            var request: [String: Any] = [
                "id": item.id, "method": item.method.rawValue, "url": item.url, "exclude_response_headers": true,
                "headers": [
                    ["name": "Content-Type", "value": "application/json"],
                    ["name": "Accept", "value": "application/json"],
                ],
            ]
            if let body = item.body { request["body"] = body.base64EncodedString() }
            return request
        }
        let body: Data
        do {
            body = try JSONSerialization.data(withJSONObject: [
                "batch_request_id": UUID().uuidString.lowercased(), "rest_requests": requests,
            ])
        } catch {
            throw .invalidURL
        }
        let response = try await transport.send(
            TransportRequest(method: .post, url: url, table: nil, body: body, validatesJSONBody: false))
        guard let object = try? JSONSerialization.jsonObject(with: response.body) as? [String: Any],
            let serviced = object["serviced_requests"] as? [[String: Any]]
        else { throw .cannotParseResponse }
        return BatchResponse(
            serviced: serviced.compactMap { entry in
                guard let id = entry["id"] as? String, let status = entry["status_code"] as? Int else { return nil }
                let data = (entry["body"] as? String).flatMap { Data(base64Encoded: $0) } ?? Data()
                return BatchResponse.Item(id: id, statusCode: status, body: data)
            },
            unserviced: (object["unserviced_requests"] as? [String]) ?? [])
    }
}
