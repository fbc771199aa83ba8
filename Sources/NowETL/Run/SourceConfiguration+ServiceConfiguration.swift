import NowData

extension SourceConfiguration {
    /// NowData's configuration for this source: instance, sign-in, `timeout_seconds`, `retry`,
    /// `slow_request_seconds`, `tls` and `proxy` (without a proxy libcurl's `HTTPS_PROXY`/`NO_PROXY`
    /// handling stays in force), with transport events (retries, slow requests) going to `eventHandler`.
    func serviceConfiguration(
        maximumConnectionsPerHost: Int, eventHandler: (@Sendable (TransportEvent) -> Void)?
    ) -> NowServiceConfiguration {
        var service = NowServiceConfiguration(
            instanceURL: instance, authentication: auth.authentication, requestTimeout: timeoutSeconds,
            retryPolicy: retry.policy, allowsInsecureHTTP: allowInsecureHTTP,
            maximumConnectionsPerHost: maximumConnectionsPerHost, eventHandler: eventHandler)
        service.slowRequestInterval = slowRequestSeconds
        // `timeout_seconds` limits the time without progress; the whole request must be allowed at least
        // as long, or a larger setting would be cut at NowData's default total.
        service.totalRequestTimeout = max(service.totalRequestTimeout, timeoutSeconds)
        service.additionalCertificateAuthorities = tls?.caFile
        service.clientCertificate = tls?.clientCertificate
        service.clientPrivateKey = tls?.clientKey
        service.proxy = proxy?.url
        return service
    }
}
