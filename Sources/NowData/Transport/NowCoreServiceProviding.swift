import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Performs the HTTP exchanges of a service; the seam for another HTTP stack.
///
/// ``NowTableService`` uses a libcurl-based provider by default (one connection pool per service, no
/// cookies, so parallel workers never serialise on one instance session; extra CAs, client
/// certificates and proxies from ``NowServiceConfiguration``). Supply your own — another HTTP stack,
/// or a recorder in tests — through ``NowTableService/init(configuration:coreServiceProvider:)``.
public protocol NowCoreServiceProviding: Sendable {
    /// Sends the request and returns the body and response; throws `URLError`s for failures below HTTP.
    ///
    /// Return every HTTP answer, 401 and 3xx included, as a response: the service maps statuses to
    /// ``NowDataError`` values and refreshes OAuth tokens on a 401 itself. A provider must not answer
    /// authentication challenges with stored credentials, and must not follow a redirect to another
    /// host with the request's `Authorization` header.
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

/// The SDK's name for the core service type.
public typealias NowCoreServiceProvider = NowCoreServiceProviding
