import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``NowCoreServiceProviding``: libcurl, one multi handle per service on a thread of its
/// own (``CurlMultiLoop``).
///
/// - Connections are reused between requests (the multi handle's cache), at most
///   ``NowServiceConfiguration/maximumConnectionsPerHost`` per host; HTTP/2 where the server offers it
///   over TLS.
/// - ``NowServiceConfiguration/requestTimeout`` bounds the time without progress (connecting, waiting
///   for the answer, between bytes), ``NowServiceConfiguration/totalRequestTimeout`` the whole request.
/// - Trust: the system store plus ``NowServiceConfiguration/additionalCertificateAuthorities``; a client
///   certificate when configured; ``NowServiceConfiguration/proxy`` or libcurl's `HTTPS_PROXY`/`NO_PROXY`.
/// - Authentication challenges are never answered (a 401 is the answer) and libcurl follows no
///   redirect; this type follows one itself only when ``RedirectRule`` allows it (same host).
///   No cookies, no cache: each request carries its own `Authorization`.
/// - Cancelling the calling task removes the request from the multi handle at once.
final class CurlCoreService: NowCoreServiceProviding {
    private let loop: CurlMultiLoop
    private let settings: CurlTransferSettings

    /// Redirect hops followed (same host only) before the last 3xx is returned as the answer.
    static let maximumRedirects = 5

    init(configuration: NowServiceConfiguration) {
        loop = CurlMultiLoop(maximumConnectionsPerHost: configuration.maximumConnectionsPerHost)
        settings = CurlTransferSettings(configuration: configuration)
    }

    /// Ends the loop thread; a request in flight keeps the service alive, so none is cut off here.
    deinit { loop.stop() }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        try await data(for: request, stream: nil)
    }

    /// As ``data(for:)``, with a 2xx answer's body written to `stream` (the returned data is then empty).
    func data(for request: URLRequest, stream: (any ResponseBodyStream)?) async throws -> (Data, URLResponse) {
        var request = request
        var hops = 0
        while true {
            try Task.checkCancellation()
            let (data, response) = try await perform(request, stream: stream)
            guard hops < Self.maximumRedirects, let next = Self.redirect(after: response, of: request) else {
                return (data, response)
            }
            hops += 1
            request = next
        }
    }

    private func perform(_ request: URLRequest, stream: (any ResponseBodyStream)?) async throws -> (Data, URLResponse) {
        let exchange = try CurlExchange(request: request, settings: settings, stream: stream)
        let loop = self.loop
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                loop.submit(exchange, continuation: continuation)
            }
        } onCancel: {
            loop.cancel(exchange)
        }
    }

    /// The request that follows a 3xx answer, or `nil` when the redirect is not followed (another
    /// host, port or a downgrade: the 3xx is returned and reported by the transport).
    static func redirect(after response: URLResponse, of request: URLRequest) -> URLRequest? {
        guard let http = response as? HTTPURLResponse, [301, 302, 303, 307, 308].contains(http.statusCode),
            let source = request.url, let location = http.value(forHTTPHeaderField: "Location"),
            let target = URL(string: location, relativeTo: source)?.absoluteURL,
            RedirectRule.allows(from: source, to: target)
        else { return nil }
        var next = request
        next.url = target
        let method = (request.httpMethod ?? "GET").uppercased()
        if http.statusCode == 303 || ([301, 302].contains(http.statusCode) && method == "POST") {
            next.httpMethod = method == "HEAD" ? "HEAD" : "GET"
            next.httpBody = nil
            next.setValue(nil, forHTTPHeaderField: "Content-Type")
        }
        return next
    }

    /// Timeouts in whole seconds, rounded up (libcurl's no-progress limit counts seconds).
    static func wholeSeconds(_ timeout: TimeInterval) -> TimeInterval {
        guard timeout.isFinite, timeout > 0 else { return 60 }
        return max(1, timeout.rounded(.up))
    }
}
