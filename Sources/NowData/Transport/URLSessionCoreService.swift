import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The default ``NowCoreServiceProviding``: one ephemeral `URLSession` per service, driven through a
/// session delegate.
///
/// The delegate (``URLSessionEventRouter``) is what makes URLSession on Linux safe for the Table API:
/// a 401 comes back as a response instead of hanging the task, redirects leave the instance's host
/// never, and a watchdog (``URLSessionExchange``) bounds every request by its timeout. No cookies, no
/// cache, no credential storage: each request carries its own `Authorization`.
final class URLSessionCoreService: NowCoreServiceProviding {
    private let session: URLSession
    private let router: URLSessionEventRouter

    init(configuration: NowServiceConfiguration) {
        let sessionConfiguration = URLSessionConfiguration.ephemeral
        sessionConfiguration.httpShouldSetCookies = false
        sessionConfiguration.httpCookieAcceptPolicy = .never
        sessionConfiguration.httpCookieStorage = nil
        sessionConfiguration.urlCache = nil
        sessionConfiguration.urlCredentialStorage = nil
        sessionConfiguration.requestCachePolicy = .reloadIgnoringLocalCacheData
        sessionConfiguration.timeoutIntervalForRequest = Self.wholeSeconds(configuration.requestTimeout)
        sessionConfiguration.httpMaximumConnectionsPerHost = configuration.maximumConnectionsPerHost
        let router = URLSessionEventRouter()
        let delegateQueue = OperationQueue()
        delegateQueue.name = "NowData.URLSessionCoreService"
        delegateQueue.maxConcurrentOperationCount = 1
        self.router = router
        session = URLSession(configuration: sessionConfiguration, delegate: router, delegateQueue: delegateQueue)
    }

    /// Lets running tasks finish; the session then releases its delegate.
    deinit { session.finishTasksAndInvalidate() }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        var request = request
        let timeout = Self.wholeSeconds(request.timeoutInterval)
        request.timeoutInterval = timeout
        let exchange = URLSessionExchange(inactivityLimit: timeout + 1)
        let session = self.session
        let router = self.router
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request)
                let identifier = task.taskIdentifier
                router.register(exchange, for: identifier)
                exchange.start(task, continuation: continuation) { router.unregister(identifier) }
            }
        } onCancel: {
            exchange.cancel()
        }
    }

    /// swift-corelibs-foundation truncates timeouts to whole seconds (0.5 s would be 0); round up instead.
    static func wholeSeconds(_ timeout: TimeInterval) -> TimeInterval {
        guard timeout.isFinite, timeout > 0 else { return 60 }
        return max(1, timeout.rounded(.up))
    }
}
