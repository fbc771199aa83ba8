import Foundation
import NowData

/// How to reach an instance: its URL, the sign-in and the transport settings — the keys `source:` and
/// an `instance:` output share.
///
/// ```yaml
/// instance: https://acme.service-now.com   # scheme and host (and port) only
/// auth: { basic: { user: etl, password_file: /run/secrets/sn } }   # see SourceAuthentication
/// timeout_seconds: 120      # per request, 1…3600
/// retry: { attempts: 50, max_wait_seconds: 30, total_seconds: 300 }   # see RetryConfiguration
/// slow_request_seconds: 30  # 1…3600: a request without an answer this long is logged
/// allow_insecure_http: false  # plain http is allowed for loopback hosts only, unless true
/// tls: { ca_file: ca.pem, client_cert: etl.pem, client_key: etl.key }  # see TLSConfiguration
/// proxy: http://proxy.example:3128   # else HTTPS_PROXY / NO_PROXY from the environment
/// compressed_transfer: auto  # ask for gzip answers: auto (unless loopback), always, never
/// ```
///
/// It decodes from the same mapping as the type that holds it (``SourceConfiguration``,
/// ``InstanceOutputConfiguration``), which adds its own keys; a key neither knows is reported as
/// unknown with a suggestion, as everywhere. Messages never repeat the URL: it may come from the
/// environment, and a pasted URL may carry credentials.
public struct InstanceConnection: Sendable, Hashable, Decodable {
    /// The allowed `timeout_seconds` values.
    public static let timeoutRange = 1.0...3600.0
    /// The allowed `slow_request_seconds` values.
    public static let slowRequestRange = 1.0...3600.0

    /// The instance's base URL, normalised to `scheme://host[:port]` (no path, no trailing slash).
    public var instance: URL
    /// How to sign in.
    public var auth: SourceAuthentication
    /// Per-request timeout in seconds (default 120, NowData's default).
    public var timeoutSeconds: Double
    /// Whether plain `http` is allowed for hosts other than loopback (default `false`).
    public var allowInsecureHTTP: Bool
    /// When to retry a request, and for how long (default ``RetryConfiguration/default``).
    public var retry: RetryConfiguration
    /// After how many seconds without an answer a request is logged as slow, and again every as many
    /// seconds while it waits (default 30).
    public var slowRequestSeconds: Double
    /// Extra CAs and a client certificate (`tls:`), or `nil`.
    public var tls: TLSConfiguration?
    /// The proxy (`proxy:`), or `nil` for the environment's `HTTPS_PROXY`/`NO_PROXY`.
    public var proxy: ProxyConfiguration?
    /// Whether requests ask for gzip answers (`compressed_transfer:`, default `auto`: unless the
    /// instance is on loopback).
    public var compressedTransfer: CompressedTransfer

    /// Creates connection settings with the file format's defaults.
    public init(
        instance: URL, auth: SourceAuthentication, timeoutSeconds: Double = 120, allowInsecureHTTP: Bool = false,
        retry: RetryConfiguration = .default, slowRequestSeconds: Double = 30, tls: TLSConfiguration? = nil,
        proxy: ProxyConfiguration? = nil, compressedTransfer: CompressedTransfer = .automatic
    ) {
        self.instance = instance
        self.auth = auth
        self.timeoutSeconds = timeoutSeconds
        self.allowInsecureHTTP = allowInsecureHTTP
        self.retry = retry
        self.slowRequestSeconds = slowRequestSeconds
        self.tls = tls
        self.proxy = proxy
        self.compressedTransfer = compressedTransfer
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case instance, auth
        case timeoutSeconds = "timeout_seconds"
        case allowInsecureHTTP = "allow_insecure_http"
        case retry
        case slowRequestSeconds = "slow_request_seconds"
        case tls, proxy
        case compressedTransfer = "compressed_transfer"
    }

    /// Decodes and checks the connection keys of the mapping (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let instanceText = try container.decode(String.self, forKey: .instance)
        auth = try container.decode(SourceAuthentication.self, forKey: .auth)
        timeoutSeconds = try container.decode(.timeoutSeconds, default: 120.0)
        guard Self.timeoutRange.contains(timeoutSeconds) else {
            throw container.issue(.timeoutSeconds, "\(container.path(.timeoutSeconds)) must be between 1 and 3600")
        }
        allowInsecureHTTP = try container.decode(.allowInsecureHTTP, default: false)
        retry = try container.decode(.retry, default: .default)
        slowRequestSeconds = try container.decode(.slowRequestSeconds, default: 30.0)
        guard Self.slowRequestRange.contains(slowRequestSeconds) else {
            throw container.issue(
                .slowRequestSeconds, "\(container.path(.slowRequestSeconds)) must be between 1 and 3600")
        }
        instance = try Self.instanceURL(instanceText, allowInsecureHTTP: allowInsecureHTTP, container: container)
        tls = try container.decodeIfPresent(TLSConfiguration.self, forKey: .tls)
        proxy = try container.decodeIfPresent(ProxyConfiguration.self, forKey: .proxy)
        compressedTransfer = try container.decode(.compressedTransfer, default: .automatic)
    }

    /// NowData's configuration for this instance: URL, sign-in, `timeout_seconds`, `retry`,
    /// `slow_request_seconds`, `tls`, `proxy` and `compressed_transfer` (without a proxy libcurl's `HTTPS_PROXY`/`NO_PROXY`
    /// handling stays in force).
    ///
    /// - Parameters:
    ///   - maximumConnectionsPerHost: the connections kept to the instance (the requests in flight).
    ///   - eventHandler: receives transport events (retries, slow requests), or `nil`.
    public func serviceConfiguration(
        maximumConnectionsPerHost: Int, eventHandler: (@Sendable (TransportEvent) -> Void)? = nil
    ) -> NowServiceConfiguration {
        var service = NowServiceConfiguration(
            instanceURL: instance, authentication: auth.authentication, requestTimeout: timeoutSeconds,
            retryPolicy: retry.policy, allowsInsecureHTTP: allowInsecureHTTP,
            maximumConnectionsPerHost: maximumConnectionsPerHost, eventHandler: eventHandler)
        service.slowRequestInterval = slowRequestSeconds
        // Tokens obtained while running are secrets of every log line from then on.
        service.credentialObserver = { RuntimeSecrets.add($0) }
        // `timeout_seconds` limits the time without progress; the whole request must be allowed at least
        // as long, or a larger setting would be cut at NowData's default total.
        service.totalRequestTimeout = max(service.totalRequestTimeout, timeoutSeconds)
        service.additionalCertificateAuthorities = tls?.caFile
        service.clientCertificate = tls?.clientCertificate
        service.clientPrivateKey = tls?.clientKey
        service.proxy = proxy?.url
        service.compressedTransfer = compressedTransfer
        return service
    }

    /// Every secret value of these settings, for the logger to redact: the authentication's and the
    /// password of a `proxy:` URL, as written and percent-decoded.
    public var secretValues: [String] {
        var values = auth.secretValues
        if let proxy, let components = URLComponents(url: proxy.url, resolvingAgainstBaseURL: false) {
            if let encoded = components.percentEncodedPassword, !encoded.isEmpty { values.append(encoded) }
            if let password = components.password, !password.isEmpty { values.append(password) }
        }
        return values
    }

    /// Checks the instance URL.
    private static func instanceURL(
        _ text: String, allowInsecureHTTP: Bool, container: KeyedDecodingContainer<CodingKeys>
    ) throws -> URL {
        let path = container.path(.instance)
        let example = "such as https://acme.service-now.com"
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            let host = components.host, !host.isEmpty
        else {
            throw container.issue(.instance, "\(path) must be an instance URL \(example)")
        }
        guard scheme == "https" || scheme == "http" else {
            throw container.issue(.instance, "\(path) must be an http or https URL \(example)")
        }
        guard components.user == nil, components.password == nil else {
            throw container.issue(
                .instance,
                "\(path) must not contain a user name or password; put credentials under \(container.path(.auth))")
        }
        guard components.query == nil, components.fragment == nil, components.path.isEmpty || components.path == "/"
        else {
            throw container.issue(
                .instance, "\(path) must be the instance's base URL \(example), without a path, query or fragment")
        }
        if scheme == "http", !allowInsecureHTTP, !NowServiceConfiguration.isLoopbackHost(host) {
            throw container.issue(
                .instance,
                "\(path) uses plain http, which would send credentials unencrypted; use https, or set "
                    + "\(container.path(.allowInsecureHTTP)): true")
        }
        var normalized = URLComponents()
        normalized.scheme = scheme
        normalized.host = host
        normalized.port = components.port
        guard let url = normalized.url else {
            throw container.issue(.instance, "\(path) must be an instance URL \(example)")
        }
        return url
    }
}
