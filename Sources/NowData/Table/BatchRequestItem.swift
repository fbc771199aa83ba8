import Foundation

/// One request inside a Batch API call (``NowTableService/batch(_:)``): an instance-relative URL, a
/// method and a JSON body.
public struct BatchRequestItem: Sendable, Hashable {
    /// The item's id, echoed in its answer (unique within the call).
    public var id: String
    /// The method.
    public var method: HTTPMethod
    /// The instance-relative URL with its query, e.g. `/api/now/table/incident?sysparm_fields=sys_id`.
    public var url: String
    /// The JSON body, or `nil`.
    public var body: Data?

    /// Creates an item.
    public init(id: String, method: HTTPMethod, url: String, body: Data? = nil) {
        self.id = id
        self.method = method
        self.url = url
        self.body = body
    }
}
