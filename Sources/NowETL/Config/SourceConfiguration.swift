import Foundation
import NowData

/// The instance a pipeline reads from, and how hard it may be pushed: `source:`.
///
/// How to reach the instance (`instance`, `auth`, `timeout_seconds`, `retry`, `slow_request_seconds`,
/// `allow_insecure_http`, `tls`, `proxy`) is an ``InstanceConnection``, the type an `instance:` output
/// decodes too; `source:` adds `concurrency` and `page_size`.
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
///   max_response_mb: 64       # 1…4096: the largest answer (decompressed) accepted; default
///                             # max(64, page_size × 64 KiB)
/// ```
@dynamicMemberLookup
public struct SourceConfiguration: Sendable, Hashable, Decodable {
    /// The allowed `concurrency` values.
    public static let concurrencyRange = 1...32
    /// The allowed `page_size` values.
    public static let pageSizeRange = 1...10_000
    /// The allowed `timeout_seconds` values.
    public static let timeoutRange = InstanceConnection.timeoutRange
    /// The allowed `slow_request_seconds` values.
    public static let slowRequestRange = InstanceConnection.slowRequestRange

    /// How to reach the instance: URL, sign-in and transport settings.
    public var connection: InstanceConnection
    /// Requests in flight against this instance (default 4).
    public var concurrency: Int
    /// Records per request (`sysparm_limit`, default 1000).
    public var pageSize: Int
    /// The allowed `max_response_mb` values.
    public static let maximumResponseRange = 1...4096
    /// `max_response_mb`: the largest answer accepted, in MiB after decompression; `nil` for the default
    /// (``defaultMaximumResponseBytes(pageSize:)``).
    public var maximumResponseMiB: Int?

    /// The largest answer accepted by default for pages of `pageSize` records: 64 KiB a record (records
    /// of every field with display values stay far below it), at least 64 MiB.
    public static func defaultMaximumResponseBytes(pageSize: Int) -> Int {
        max(64 << 20, min(pageSize, pageSizeRange.upperBound) << 16)
    }

    /// The largest answer accepted, in bytes (``maximumResponseMiB`` or the default for ``pageSize``).
    public var maximumResponseBytes: Int {
        maximumResponseMiB.map { $0 << 20 } ?? Self.defaultMaximumResponseBytes(pageSize: pageSize)
    }

    /// The connection's settings, read and written as the source's own (`source.instance`,
    /// `source.retry`, …): `source:` holds them beside its own keys, and one ``InstanceConnection``
    /// documents and decodes them.
    public subscript<Value>(dynamicMember keyPath: WritableKeyPath<InstanceConnection, Value>) -> Value {
        get { connection[keyPath: keyPath] }
        set { connection[keyPath: keyPath] = newValue }
    }

    /// Creates a source configuration with the file format's defaults.
    public init(
        instance: URL, auth: SourceAuthentication, concurrency: Int = 4, pageSize: Int = 1000,
        timeoutSeconds: Double = 120, allowInsecureHTTP: Bool = false, retry: RetryConfiguration = .default,
        slowRequestSeconds: Double = 30, tls: TLSConfiguration? = nil, proxy: ProxyConfiguration? = nil
    ) {
        self.connection = InstanceConnection(
            instance: instance, auth: auth, timeoutSeconds: timeoutSeconds, allowInsecureHTTP: allowInsecureHTTP,
            retry: retry, slowRequestSeconds: slowRequestSeconds, tls: tls, proxy: proxy)
        self.concurrency = concurrency
        self.pageSize = pageSize
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case concurrency
        case pageSize = "page_size"
        case maximumResponseMiB = "max_response_mb"
    }

    /// Decodes and checks `source` (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        // This mapping's own keys are opened first, so that a failure in the connection's keys is not
        // taken for an unknown concurrency or page_size.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        connection = try InstanceConnection(from: decoder)
        concurrency = try container.decodeInteger(.concurrency, default: 4, in: Self.concurrencyRange)!
        pageSize = try container.decodeInteger(.pageSize, default: 1000, in: Self.pageSizeRange)!
        maximumResponseMiB = try container.decodeInteger(
            .maximumResponseMiB, default: nil, in: Self.maximumResponseRange)
    }
}
