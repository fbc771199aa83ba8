/// Something the transport did that callers may want to count or log (never contains credentials).
public enum TransportEvent: Sendable {
    /// A request is retried after `delay` seconds; `reason` is the status or error that caused it.
    case retry(method: String, url: String, attempt: Int, delay: Double, reason: String)
    /// An OAuth access token was obtained or refreshed (`grant` is `password`, `refresh_token`, …).
    case tokenRefreshed(grant: String)
}
