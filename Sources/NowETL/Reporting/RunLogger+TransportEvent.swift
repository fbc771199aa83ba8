import NowData

extension RunLogger {
    /// How many retries of one request are logged at `info`; later ones are warnings (the instance
    /// keeps failing: a maintenance window, an outage, a rate limit that does not end).
    public static let retriesLoggedAtInfo = 2

    /// Logs a retry or a slow request of NowData's transport; other events are not logged.
    ///
    /// ```
    /// level=info msg="retrying a request" table=incident method=GET attempt=2 wait_seconds=0.31 reason="HTTP 503"
    /// level=warning msg="request has no answer yet" table=incident method=GET attempt=1 waited_seconds=30
    /// ```
    ///
    /// `attempt` is the attempt that follows the wait (2 for the first retry). The request's `url`
    /// (after `method`) is in the line only under `--log-level debug`: a page's query runs to hundreds
    /// of characters of internal parameters. It never carries credentials (NowData removes user info;
    /// secrets are redacted besides).
    public func log(_ event: TransportEvent, table: String?) {
        let tableField = table.map { [("table", $0)] } ?? []
        func request(_ method: String, _ url: String) -> [(String, any LogFieldValue)] {
            minimumLevel <= .debug ? [("method", method), ("url", url)] : [("method", method)]
        }
        switch event {
        case .retry(let method, let url, let attempt, let delay, let reason):
            let level: LogLevel = attempt - 1 <= Self.retriesLoggedAtInfo ? .info : .warning
            log(
                level, "retrying a request",
                tableField + request(method, url) + [
                    ("attempt", attempt), ("wait_seconds", LogValue.seconds(delay)), ("reason", reason),
                ])
        case .slowRequest(let method, let url, let attempt, let waited):
            warning(
                "request has no answer yet",
                tableField + request(method, url) + [("attempt", attempt), ("waited_seconds", Int(waited.rounded()))])
        case .tokenRefreshed:
            break
        }
    }
}
