import Foundation

/// Why an access token could not be obtained.
public enum AccessTokenProviderError: Error, Sendable {
    /// The provider could not retrieve a token (no further detail).
    case accessTokenRetrievalFailed
    /// The user's session is broken (custom providers report their own error here).
    case userSessionError(_ error: any Error)
    /// The token endpoint (`/oauth_token.do`) refused the request; `error` / `errorDescription` are the
    /// OAuth fields of its answer (never the secrets that were sent).
    case tokenRequestRejected(statusCode: HTTPStatusCode, error: String?, errorDescription: String?)
    /// The token endpoint answered 2xx without a usable `access_token`.
    case invalidTokenResponse
    /// The token request failed below HTTP.
    case network(NetworkServiceError)

    /// Whether asking again later may succeed.
    public var isTransient: Bool {
        switch self {
        case .tokenRequestRejected(let statusCode, _, _): return [429, 500, 502, 503, 504].contains(statusCode)
        case .network(let error): return error.isTransient
        default: return false
        }
    }
}

extension AccessTokenProviderError: CustomStringConvertible {
    /// A short explanation without secrets.
    public var description: String {
        switch self {
        case .accessTokenRetrievalFailed: return "access token retrieval failed"
        case .userSessionError(let error): return "user session error: \(error)"
        case .tokenRequestRejected(let statusCode, let error, let errorDescription):
            return "token endpoint answered \(statusCode): \(error ?? "-") \(errorDescription ?? "")"
        case .invalidTokenResponse: return "token endpoint answered without an access_token"
        case .network(let error): return "token request failed: \(error)"
        }
    }
}
