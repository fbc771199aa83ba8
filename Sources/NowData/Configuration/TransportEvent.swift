/// Something the transport did that callers may want to count or log (never contains credentials).
public enum TransportEvent: Sendable, Hashable {
    /// A request is retried after `delay` seconds; `reason` is the status or error that caused it.
    /// `attempt` is the number of the attempt that follows the wait (2 for the first retry).
    case retry(method: String, url: String, attempt: Int, delay: Double, reason: String)
    /// An OAuth access token was obtained or refreshed (`grant` is `password`, `refresh_token`, …).
    case tokenRefreshed(grant: String)
    /// Attempt `attempt` of a request has had no answer for `waited` seconds; repeated every
    /// ``NowServiceConfiguration/slowRequestInterval`` while the attempt is outstanding.
    case slowRequest(method: String, url: String, attempt: Int, waited: Double)
}
