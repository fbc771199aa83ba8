import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Performs the HTTP exchanges of a service; the seam for another HTTP stack.
///
/// ``NowTableService`` uses a URLSession-based provider by default (ephemeral, no cookies, so parallel
/// workers never serialise on one instance session). Supply your own — for example one built on
/// libcurl that honours ``NowServiceConfiguration/additionalCertificateAuthorities`` — through
/// ``NowTableService/init(configuration:coreServiceProvider:)``.
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
