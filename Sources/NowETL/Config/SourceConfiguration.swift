import Foundation
import NowData

/// The instance a pipeline reads from, and how hard it may be pushed: `source:`.
///
/// ```yaml
/// source:
///   instance: https://acme.service-now.com   # scheme and host (and port) only
///   auth: { basic: { user: etl, password_file: /run/secrets/sn } }
///   concurrency: 4            # 1…32 requests in flight against this instance
///   page_size: 1000           # 1…10000 records per request
///   timeout_seconds: 120      # per request, 1…3600
///   retry: { attempts: 50, max_wait_seconds: 30, total_seconds: 300 }   # see RetryConfiguration
///   slow_request_seconds: 30  # 1…3600: a request without an answer this long is logged, and again
///                             # every as many seconds
///   allow_insecure_http: false  # plain http is allowed for loopback hosts only, unless true
///   tls: { ca_file: ca.pem, client_cert: etl.pem, client_key: etl.key }  # see TLSConfiguration
///   proxy: http://proxy.example:3128   # else HTTPS_PROXY / NO_PROXY from the environment
/// ```
public struct SourceConfiguration: Sendable, Hashable, Decodable {
    /// The allowed `concurrency` values.
    public static let concurrencyRange = 1...32
    /// The allowed `page_size` values.
    public static let pageSizeRange = 1...10_000
    /// The allowed `timeout_seconds` values.
    public static let timeoutRange = 1.0...3600.0
    /// The allowed `slow_request_seconds` values.
    public static let slowRequestRange = 1.0...3600.0

    /// The instance's base URL, normalised to `scheme://host[:port]` (no path, no trailing slash).
    public var instance: URL
    /// How to sign in.
    public var auth: SourceAuthentication
    /// Requests in flight against this instance (default 4).
    public var concurrency: Int
    /// Records per request (`sysparm_limit`, default 1000).
    public var pageSize: Int
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

    /// Creates a source configuration with the file format's defaults.
    public init(
        instance: URL, auth: SourceAuthentication, concurrency: Int = 4, pageSize: Int = 1000,
        timeoutSeconds: Double = 120, allowInsecureHTTP: Bool = false, retry: RetryConfiguration = .default,
        slowRequestSeconds: Double = 30, tls: TLSConfiguration? = nil, proxy: ProxyConfiguration? = nil
    ) {
        self.instance = instance
        self.auth = auth
        self.concurrency = concurrency
        self.pageSize = pageSize
        self.timeoutSeconds = timeoutSeconds
        self.allowInsecureHTTP = allowInsecureHTTP
        self.retry = retry
        self.slowRequestSeconds = slowRequestSeconds
        self.tls = tls
        self.proxy = proxy
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case instance, auth, concurrency
        case pageSize = "page_size"
        case timeoutSeconds = "timeout_seconds"
        case allowInsecureHTTP = "allow_insecure_http"
        case retry
        case slowRequestSeconds = "slow_request_seconds"
        case tls, proxy
    }

    /// Decodes and checks `source` (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let instanceText = try container.decode(String.self, forKey: .instance)
        auth = try container.decode(SourceAuthentication.self, forKey: .auth)
        concurrency = try container.decodeInteger(.concurrency, default: 4, in: Self.concurrencyRange)!
        pageSize = try container.decodeInteger(.pageSize, default: 1000, in: Self.pageSizeRange)!
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
    }

    /// Checks the instance URL. Messages do not repeat the URL: it may have come from the
    /// environment, and a pasted URL may carry credentials.
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
                .instance, "\(path) must not contain a user name or password; put credentials under source.auth")
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
                    + "source.allow_insecure_http: true")
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
