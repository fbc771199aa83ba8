/// Supplies bearer tokens for ``Authentication/bearerToken(_:)``.
///
/// The service asks once per request; it asks with `forceRefresh: true` once after the instance
/// answered 401, then retries the request a single time.
public protocol AccessTokenProvider: Sendable {
    /// Returns a valid access token, fetching a new one when `forceRefresh` is set or the cached one expired.
    func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String
}
