import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// Everything a service needs to talk to one instance: where, as whom, and how patiently.
///
/// ```swift
/// let configuration = NowServiceConfiguration(
///     instanceURL: URL(string: "https://example.service-now.com")!,
///     authentication: .basic(username: "integration", password: secret))
/// ```
public struct NowServiceConfiguration: Sendable {
    /// The instance base URL (`https://<name>.service-now.com`).
    public var instanceURL: URL
    /// How requests authenticate.
    public var authentication: Authentication
    /// How long a request may go without progress — connecting, waiting for the answer, between body
    /// bytes — in seconds (default 120). The default transport works in whole seconds and rounds up.
    public var requestTimeout: TimeInterval
    /// How long one request may take in all, progress or not, in seconds (default 600); a retry starts
    /// the clock again. Zero or a non-finite value means no total limit (``requestTimeout`` still holds).
    public var totalRequestTimeout: TimeInterval
    /// When to retry.
    public var retryPolicy: RetryPolicy
    /// The `User-Agent` header.
    public var userAgent: String
    /// A PEM file of extra certificate authorities to trust besides the system store (self-signed
    /// instances, TLS-intercepting proxies).
    ///
    /// The default transport (libcurl) trusts these and the system store (`/etc/ssl/certs`); it also
    /// uses them for an `https` ``proxy``.
    public var additionalCertificateAuthorities: URL?
    /// A PEM client certificate presented when the instance asks for one (mutual TLS); goes with
    /// ``clientPrivateKey``.
    public var clientCertificate: URL?
    /// The unencrypted PEM private key of ``clientCertificate``.
    public var clientPrivateKey: URL?
    /// The proxy requests go through (`http://[user:password@]host:port`, or `https://…`), or `nil`
    /// for libcurl's own environment handling (`HTTPS_PROXY`/`https_proxy`, `http_proxy`, `NO_PROXY`).
    ///
    /// Credentials in the URL are sent to the proxy only and never appear in messages.
    public var proxy: URL?
    /// Whether plain `http` to hosts other than loopback is allowed (default `false`).
    public var allowsInsecureHTTP: Bool
    /// The Table API version segment (`"v1"`, `"v2"`), or `nil` for the unversioned (latest) path.
    public var apiVersion: String?
    /// Concurrent connections per host (default 6).
    public var maximumConnectionsPerHost: Int
    /// Receives retry, slow-request and token events (called on arbitrary threads).
    public var eventHandler: (@Sendable (TransportEvent) -> Void)?
    /// After how many seconds without an answer an attempt is reported as slow to ``eventHandler``
    /// (``TransportEvent/slowRequest(method:url:attempt:waited:)``), and again every as many seconds
    /// while it is outstanding; `nil` (the default) reports nothing.
    public var slowRequestInterval: TimeInterval? = nil
    /// Receives each credential the transport obtains while it runs — OAuth access and refresh tokens —
    /// so that a caller who logs can redact it as it redacts the configured password. Called with
    /// nothing else; `nil` (the default) hands them to no one.
    public var credentialObserver: (@Sendable (String) -> Void)? = nil
    /// The most bytes one response body may have, after decompression (default 64 MiB).
    ///
    /// An answer is hostile input: a proxy's endless page or a small gzip body that inflates to
    /// gigabytes would otherwise take all memory. A body that grows past this limit, or announces more
    /// in `Content-Length`, ends the request with a `URLError` `.dataLengthExceedsMaximum` naming the URL
    /// and the limit, which is not retried. Only `gzip` is asked for and decoded: an answer in any other
    /// content encoding ends the request the same way (`.cannotDecodeContentData`).
    public var maximumResponseBytes: Int = NowServiceConfiguration.defaultMaximumResponseBytes

    /// Whether requests ask for gzip-compressed answers (default ``CompressedTransfer/automatic``: unless
    /// the instance is on loopback). An answer in gzip is decoded, within ``maximumResponseBytes``, even
    /// when it was not asked for.
    public var compressedTransfer: CompressedTransfer = .automatic

    /// The default ``maximumResponseBytes``: 64 MiB, some 10 KiB per record of a 1000-record page with
    /// room to spare six times over.
    public static let defaultMaximumResponseBytes = 64 * 1024 * 1024

    /// Creates a configuration.
    public init(
        instanceURL: URL, authentication: Authentication, requestTimeout: TimeInterval = 120,
        retryPolicy: RetryPolicy = .default, userAgent: String = NowServiceConfiguration.defaultUserAgent,
        additionalCertificateAuthorities: URL? = nil, allowsInsecureHTTP: Bool = false, apiVersion: String? = nil,
        maximumConnectionsPerHost: Int = 6, eventHandler: (@Sendable (TransportEvent) -> Void)? = nil,
        totalRequestTimeout: TimeInterval = 600, clientCertificate: URL? = nil, clientPrivateKey: URL? = nil,
        proxy: URL? = nil
    ) {
        self.instanceURL = instanceURL
        self.authentication = authentication
        self.requestTimeout = requestTimeout
        self.totalRequestTimeout = totalRequestTimeout
        self.retryPolicy = retryPolicy
        self.userAgent = userAgent
        self.additionalCertificateAuthorities = additionalCertificateAuthorities
        self.clientCertificate = clientCertificate
        self.clientPrivateKey = clientPrivateKey
        self.proxy = proxy
        self.allowsInsecureHTTP = allowsInsecureHTTP
        self.apiVersion = apiVersion
        self.maximumConnectionsPerHost = maximumConnectionsPerHost
        self.eventHandler = eventHandler
    }

    /// The SDK's spelling of ``instanceURL``.
    public var instanceUrl: URL { instanceURL }

    /// The default `User-Agent`.
    public static let defaultUserAgent = "NowData-Swift/1.0"

    /// The instance URL without user info, for messages.
    public var redactedInstanceURL: String { URLRedaction.redact(instanceURL) }

    /// Checks scheme, host and the plain-`http` rule.
    /// - Throws: ``NowDataError/invalidURL`` or ``NowDataError/insecureConnectionRefused(host:)``.
    public func validate() throws(NowDataError) {
        try validate(instanceURL)
    }

    /// Checks scheme, host and the plain-`http` rule of `url` (the instance URL, or a request's).
    /// - Throws: ``NowDataError/invalidURL`` or ``NowDataError/insecureConnectionRefused(host:)``.
    func validate(_ url: URL) throws(NowDataError) {
        guard let scheme = url.scheme?.lowercased(), scheme == "https" || scheme == "http",
            let host = url.host, !host.isEmpty
        else { throw .invalidURL }
        if scheme == "http", !allowsInsecureHTTP, !URLRedaction.isLoopback(host) {
            throw .insecureConnectionRefused(host: host)
        }
    }
}

extension NowServiceConfiguration: CustomStringConvertible, CustomDebugStringConvertible, CustomReflectable {
    /// The instance and authentication kind, without secrets.
    public var description: String {
        "NowServiceConfiguration(instanceURL: \(redactedInstanceURL), authentication: \(authentication), "
            + "requestTimeout: \(requestTimeout))"
    }

    /// Same as ``description``.
    public var debugDescription: String { description }

    /// A mirror without secrets.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "instanceURL": redactedInstanceURL, "authentication": authentication.description,
                "requestTimeout": requestTimeout, "retryPolicy": retryPolicy, "userAgent": userAgent,
                "allowsInsecureHTTP": allowsInsecureHTTP, "proxy": proxy.map { URLRedaction.redact($0) } as Any,
            ])
    }
}

/// URL helpers that keep credentials out of text.
enum URLRedaction {
    /// The URL as text with any user info removed.
    static func redact(_ url: URL) -> String {
        guard url.user != nil || url.password != nil,
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        else { return url.absoluteString }
        components.user = nil
        components.password = nil
        return components.string ?? "<url>"
    }

    /// Whether the host is loopback; see ``NowServiceConfiguration/isLoopbackHost(_:)``.
    static func isLoopback(_ host: String) -> Bool {
        NowServiceConfiguration.isLoopbackHost(host)
    }
}

extension NowServiceConfiguration {
    /// Whether `host` is a loopback address, where plain `http` needs no opt-in: `localhost`, a dotted
    /// IPv4 literal in `127.0.0.0/8`, or `::1` (with or without brackets).
    ///
    /// Only literals count, never a name that merely looks like one: `127.attacker.example` or
    /// `127.0.0.1.nip.io` are ordinary host names that resolve wherever their owner likes, so they get
    /// no exemption. The IPv4 test is `inet_pton`'s strict dotted-quad form (no octal, hex or short
    /// forms such as `127.1`). `localhost` is the one name: libcurl answers it with loopback itself,
    /// without asking a resolver.
    public static func isLoopbackHost(_ host: String) -> Bool {
        var host = host.lowercased()
        if host.hasPrefix("["), host.hasSuffix("]") { host = String(host.dropFirst().dropLast()) }
        if host == "localhost" { return true }
        var ipv4 = in_addr()
        if inet_pton(AF_INET, host, &ipv4) == 1 {
            return withUnsafeBytes(of: &ipv4) { $0.first == 127 }
        }
        var ipv6 = in6_addr()
        if inet_pton(AF_INET6, host, &ipv6) == 1 {
            return withUnsafeBytes(of: &ipv6) { bytes in bytes.prefix(15).allSatisfy { $0 == 0 } && bytes[15] == 1 }
        }
        return false
    }
}
