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
    func data(for request: URLRequest) async throws -> (Data, URLResponse)
}

/// The SDK's name for the core service type.
public typealias NowCoreServiceProvider = NowCoreServiceProviding

/// The default provider: one ephemeral `URLSession` per service.
final class URLSessionCoreService: NowCoreServiceProviding {
    private let session: URLSession

    init(configuration: NowServiceConfiguration) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.urlCache = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.timeoutIntervalForRequest = configuration.requestTimeout
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        session = URLSession(configuration: sessionConfiguration)
    }

    deinit { session.finishTasksAndInvalidate() }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await session.data(for: request)
    }
}
