/// The HTTP methods the Table API uses.
public enum HTTPMethod: String, Sendable, Hashable {
    /// Read.
    case get = "GET"
    /// Create.
    case post = "POST"
    /// Update (a partial update on ServiceNow).
    case put = "PUT"
    /// Partial update.
    case patch = "PATCH"
    /// Delete.
    case delete = "DELETE"

    /// Whether repeating the request has the same effect as sending it once (RFC 9110 §9.2.2).
    public var isIdempotent: Bool {
        switch self {
        case .get, .put, .delete: return true
        case .post, .patch: return false
        }
    }
}
