import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Sends requests with authentication, retries and response validation.
///
/// Retries follow ``RetryPolicy``: backoff with full jitter, or exactly the server's `Retry-After`
/// (never both). A 401 with a token-based authentication refreshes the token once and repeats the
/// request once. A 2xx body that is not complete JSON, or that carries an `error` member, is an error
/// (``NowDataError/truncatedResponse(_:)``, ``NowDataError/transactionCancelled(_:)``) and never data.
final class HTTPTransport: Sendable {
    let configuration: NowServiceConfiguration
    private let core: any NowCoreServiceProviding
    private let authorizer: Authorizer
    /// Sleeps for the given seconds; injected by tests to observe delays without waiting.
    let sleep: @Sendable (TimeInterval) async throws -> Void
    /// Draws from `0..<1` for the jitter.
    let unitRandom: @Sendable () -> Double

    init(
        configuration: NowServiceConfiguration, core: (any NowCoreServiceProviding)? = nil,
        sleep: (@Sendable (TimeInterval) async throws -> Void)? = nil,
        unitRandom: (@Sendable () -> Double)? = nil, now: @escaping @Sendable () -> Date = { Date() }
    ) {
        self.configuration = configuration
        // NowSDK.core()'s default stands for "no provider": this service's own libcurl stack.
        let core = core.flatMap { $0 is DefaultCoreService ? nil : $0 } ?? CurlCoreService(configuration: configuration)
        self.core = core
        let sleep =
            sleep ?? { seconds in
                guard seconds > 0 else { return }
                try await Task.sleep(nanoseconds: UInt64(seconds * 1_000_000_000))
            }
        self.sleep = sleep
        let unitRandom = unitRandom ?? { Double.random(in: 0..<1) }
        self.unitRandom = unitRandom
        switch configuration.authentication {
        case .none:
            authorizer = .none
        case .basic(let username, let password):
            authorizer = .basic("Basic " + Data("\(username):\(password)".utf8).base64EncodedString())
        case .bearerToken(let provider):
            authorizer = .bearer(provider)
        case .oauth2(let credentials):
            let tokenTransport = HTTPTransport(
                unauthenticated: configuration, core: core, sleep: sleep, unitRandom: unitRandom)
            authorizer = .bearer(
                OAuth2TokenProvider(
                    instanceURL: configuration.instanceURL, credentials: credentials, transport: tokenTransport,
                    now: now))
        }
    }

    /// A transport without credentials (for the token endpoint).
    private init(
        unauthenticated configuration: NowServiceConfiguration, core: any NowCoreServiceProviding,
        sleep: @escaping @Sendable (TimeInterval) async throws -> Void, unitRandom: @escaping @Sendable () -> Double
    ) {
        self.configuration = configuration
        self.core = core
        self.authorizer = .none
        self.sleep = sleep
        self.unitRandom = unitRandom
    }

    /// Sends a request, retrying per policy.
    func send(_ request: TransportRequest) async throws(NowDataError) -> TransportResponse {
        try configuration.validate()
        try configuration.validate(request.url)
        let policy = configuration.retryPolicy
        let mayRetry = request.forceRetryable || policy.allowsRetry(of: request.method)
        let redactedURL = URLRedaction.redact(request.url)
        var attempt = 0
        var refreshedAfter401 = false
        var forceRefresh = false
        var timeline = RetryTimeline()

        while true {
            attempt += 1
            if Task.isCancelled { throw .network(.operationCanceled) }
            var urlRequest = URLRequest(url: request.url)
            urlRequest.httpMethod = request.method.rawValue
            urlRequest.timeoutInterval = configuration.requestTimeout
            urlRequest.setValue(request.accept, forHTTPHeaderField: "Accept")
            urlRequest.setValue(configuration.userAgent, forHTTPHeaderField: "User-Agent")
            if let body = request.body {
                urlRequest.httpBody = body
                urlRequest.setValue(request.contentType ?? "application/json", forHTTPHeaderField: "Content-Type")
            }
            if request.authorize, let authorization = try await authorizer.header(forceRefresh: forceRefresh) {
                urlRequest.setValue(authorization, forHTTPHeaderField: "Authorization")
            }
            forceRefresh = false

            let data: Data
            let response: URLResponse
            do {
                (data, response) = try await exchange(urlRequest, request: request, url: redactedURL, attempt: attempt)
            } catch {
                let failure = Self.networkError(error)
                let unreachable = NowDataError.network(failure).classification == .unreachable
                if mayRetry, failure.isTransient,
                    try await retry(
                        after: policy.backoff(beforeRetry: attempt, unitRandom: unitRandom()), request: request,
                        url: redactedURL, attempt: attempt, reason: failure.description, timeline: &timeline,
                        attemptLimit: policy.attemptLimit(unreachable: unreachable))
                {
                    continue
                }
                throw .network(Self.counting(attempt, in: failure))
            }
            guard let http = response as? HTTPURLResponse else { throw .cannotParseResponse }
            let status = http.statusCode
            var headers: [String: String] = [:]
            for (name, value) in http.allHeaderFields {
                if let name = name as? String, let value = value as? String { headers[name.lowercased()] = value }
            }
            var context = ResponseContext(
                method: request.method.rawValue, url: redactedURL, table: request.table, statusCode: status,
                attempts: attempt)

            if (200..<300).contains(status) {
                guard request.validatesJSONBody, !data.isEmpty else {
                    return TransportResponse(
                        statusCode: status, headers: headers, body: data, scan: nil, attempts: attempt)
                }
                if let reader = request.bodyReader, let read = reader(data) {
                    return TransportResponse(
                        statusCode: status, headers: headers, body: data, scan: read.scan, content: read.content,
                        attempts: attempt)
                }
                let scan = ResponseBodyScanner.scan(data)
                if scan.isComplete, !scan.hasError {
                    return TransportResponse(
                        statusCode: status, headers: headers, body: data, scan: scan, attempts: attempt)
                }
                context.message = scan.errorMessage
                context.detail = scan.errorDetail
                if scan.isTransactionCancelled {
                    context.message = context.message ?? ResponseBodyScan.transactionCancelledText
                    throw .transactionCancelled(context)
                }
                if !scan.startsLikeJSON {
                    context.bodyPrefix = Self.prefix(of: data)
                    throw .badResponse(statusCode: status, context: context)
                }
                if scan.hasError, scan.isComplete { throw .badResponse(statusCode: status, context: context) }
                if mayRetry,
                    try await retry(
                        after: policy.backoff(beforeRetry: attempt, unitRandom: unitRandom()), request: request,
                        url: redactedURL, attempt: attempt, reason: "truncated body", timeline: &timeline)
                {
                    continue
                }
                context.bodyPrefix = nil
                throw .truncatedResponse(context)
            }

            let scan = data.isEmpty ? nil : ResponseBodyScanner.scan(data)
            if let scan, scan.errorMessage != nil || scan.errorDetail != nil {
                context.message = scan.errorMessage
                context.detail = scan.errorDetail
            } else if !data.isEmpty {
                context.bodyPrefix = Self.prefix(of: data)
            }
            if let scan, scan.isTransactionCancelled { throw .transactionCancelled(context) }
            if status == 401, context.message == nil, context.bodyPrefix == nil {
                // The body was not available (the HTTP stack dropped it); say what the instance says.
                context.message = Self.notAuthenticatedMessage
                context.detail = Self.notAuthenticatedDetail
            }
            if (300..<400).contains(status), context.message == nil {
                let location = headers["location"].map { Self.redactedLocation($0, relativeTo: request.url) }
                context.message = RedirectRule.refusalMessage(location: location ?? "(no Location)")
                context.bodyPrefix = nil
            }

            if status == 401, request.authorize, authorizer.canRefresh, !refreshedAfter401 {
                refreshedAfter401 = true
                forceRefresh = true
                attempt -= 1
                continue
            }

            if policy.retryableStatusCodes.contains(status), mayRetry {
                let retryAfter = headers["retry-after"].flatMap { RetryAfter.delay(from: $0) }
                context.retryAfter = retryAfter
                if (retryAfter ?? 0) <= policy.maximumRetryAfter,
                    try await retry(
                        after: retryAfter ?? policy.backoff(beforeRetry: attempt, unitRandom: unitRandom()),
                        request: request, url: redactedURL, attempt: attempt, reason: "HTTP \(status)",
                        timeline: &timeline)
                {
                    continue
                }
            } else if let value = headers["retry-after"] {
                context.retryAfter = RetryAfter.delay(from: value)
            }
            throw .badResponse(statusCode: status, context: context)
        }
    }

    /// Waits `delay` seconds before attempt `attempt + 1` and reports the retry, when the policy allows
    /// another attempt (`attemptLimit`, ``RetryPolicy/maximumAttempts`` unless given) and the wait ends
    /// within its time budget.
    /// - Returns: `false` (without waiting) when the attempts or the budget are used up.
    private func retry(
        after delay: TimeInterval, request: TransportRequest, url: String, attempt: Int, reason: String,
        timeline: inout RetryTimeline, attemptLimit: Int? = nil
    ) async throws(NowDataError) -> Bool {
        let policy = configuration.retryPolicy
        guard attempt < attemptLimit ?? policy.maximumAttempts,
            policy.budgetAllows(wait: delay, after: timeline.elapsed)
        else {
            return false
        }
        configuration.eventHandler?(
            .retry(method: request.method.rawValue, url: url, attempt: attempt + 1, delay: delay, reason: reason))
        do {
            try await timeline.wait(delay, sleep: sleep)
        } catch {
            throw .network(.operationCanceled)
        }
        return true
    }

    /// One exchange with the core service, watched: while it has no answer, a
    /// ``TransportEvent/slowRequest(method:url:attempt:waited:)`` is reported every
    /// ``NowServiceConfiguration/slowRequestInterval`` seconds. The watchdog ends with the exchange.
    private func exchange(
        _ urlRequest: URLRequest, request: TransportRequest, url: String, attempt: Int
    ) async throws -> (Data, URLResponse) {
        guard let interval = configuration.slowRequestInterval, interval > 0,
            let handler = configuration.eventHandler
        else { return try await perform(urlRequest, stream: request.stream) }
        let method = request.method.rawValue
        let watchdog = Task {
            let clock = ContinuousClock()
            let started = clock.now
            var deadline = started
            while true {
                deadline += .seconds(interval)
                do {
                    try await clock.sleep(until: deadline)
                } catch {
                    return
                }
                if Task.isCancelled { return }
                let waited = clock.now - started
                handler(
                    .slowRequest(
                        method: method, url: url, attempt: attempt,
                        waited: Double(waited.components.seconds) + Double(waited.components.attoseconds) / 1e18))
            }
        }
        defer { watchdog.cancel() }
        return try await perform(urlRequest, stream: request.stream)
    }

    /// One exchange with the core service; a 2xx answer's body goes to `stream` when one is given (the
    /// returned data is then empty). libcurl streams as the bytes arrive; another HTTP stack answers in
    /// memory, and its body is handed to the stream whole.
    private func perform(_ urlRequest: URLRequest, stream: (any ResponseBodyStream)?) async throws -> (
        Data, URLResponse
    ) {
        guard let stream else { return try await core.data(for: urlRequest) }
        if let curl = core as? CurlCoreService { return try await curl.data(for: urlRequest, stream: stream) }
        let (data, response) = try await core.data(for: urlRequest)
        guard let http = response as? HTTPURLResponse, (200..<300).contains(http.statusCode) else {
            return (data, response)
        }
        try stream.restart()
        try data.withUnsafeBytes { try stream.append($0) }
        return (Data(), response)
    }

    /// `failure` after `attempts` attempts: a `URLError` whose description says how many, so the error
    /// that ends the retries counts them as ``ResponseContext/attempts`` does for HTTP errors.
    static func counting(_ attempts: Int, in failure: NetworkServiceError) -> NetworkServiceError {
        guard attempts > 1, case .systemError(let error) = failure, let urlError = error as? URLError else {
            return failure
        }
        var userInfo = urlError.userInfo
        userInfo[NetworkServiceError.attemptsKey] = attempts
        return .systemError(URLError(urlError.code, userInfo: userInfo))
    }

    static func networkError(_ error: any Error) -> NetworkServiceError {
        if error is CancellationError { return .operationCanceled }
        if let urlError = error as? URLError {
            return urlError.code == .cancelled ? .operationCanceled : .systemError(urlError)
        }
        let nsError = error as NSError
        if nsError.domain == NSURLErrorDomain {
            let code = URLError.Code(rawValue: nsError.code) ?? .unknown
            let urlError = URLError(code, userInfo: nsError.userInfo)
            return code == .cancelled ? .operationCanceled : .systemError(urlError)
        }
        return .systemError(error)
    }

    /// The instance's `error.message` for a 401.
    static let notAuthenticatedMessage = "User Not Authenticated"
    /// The instance's `error.detail` for a 401.
    static let notAuthenticatedDetail = "Required to provide Auth information"

    /// A `Location` value resolved against the request URL, without user info.
    static func redactedLocation(_ location: String, relativeTo url: URL) -> String {
        guard let target = URL(string: location, relativeTo: url)?.absoluteURL else { return "(unreadable Location)" }
        return URLRedaction.redact(target)
    }

    /// The first bytes of a body as printable text, for errors about non-JSON answers.
    static func prefix(of data: Data, limit: Int = 200) -> String {
        let text = String(decoding: data.prefix(limit), as: UTF8.self)
        let cleaned = String(
            String.UnicodeScalarView(text.unicodeScalars.map { PrintableText.needsEscape($0) ? " " : $0 }))
        return data.count > limit ? cleaned + "…" : cleaned
    }
}

/// Produces the `Authorization` header.
enum Authorizer: Sendable {
    case none
    case basic(String)
    case bearer(any AccessTokenProvider)

    var canRefresh: Bool {
        if case .bearer = self { return true }
        return false
    }

    func header(forceRefresh: Bool) async throws(NowDataError) -> String? {
        switch self {
        case .none: return nil
        case .basic(let value): return value
        case .bearer(let provider):
            do {
                return "Bearer " + (try await provider.accessToken(forceRefresh: forceRefresh))
            } catch {
                throw .accessToken(error)
            }
        }
    }
}
