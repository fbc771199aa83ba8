import Foundation
import NowData

/// An output that writes each table's rows into another instance (a migration): `instance:`.
///
/// ```yaml
/// outputs:
///   - instance:
///       instance: ${TARGET_INSTANCE}
///       auth: { basic: { user: "${TARGET_USER}", password_file: /etc/nowetl/target_password } }
///       mode: upsert            # insert_or_update by sys_id (default) | insert_only
///       concurrency: 4          # 1…32 requests in flight against the target
///       rate_per_second: 20     # optional ceiling (> 0)
/// ```
///
/// How to reach the target takes the keys of `source:` (``InstanceConnection``: `instance`, `auth`,
/// `timeout_seconds`, `retry`, `slow_request_seconds`, `allow_insecure_http`, `tls`, `proxy`), checked
/// the same way. Its secrets join the pipeline's, so the log redacts them. The reconcile command
/// reaches the target through ``serviceConfiguration(eventHandler:)`` or ``makeTableService()``.
public struct InstanceOutputConfiguration: Sendable, Hashable, Decodable {
    /// The target, the mode, the concurrency and the rate ceiling.
    public var options: InstanceSinkOptions

    /// How to reach the target instance.
    public var connection: InstanceConnection { options.connection }

    /// Creates an instance output.
    public init(options: InstanceSinkOptions) {
        self.options = options
    }

    /// NowData's configuration for the target: its connection settings with ``InstanceSinkOptions/concurrency``
    /// connections.
    ///
    /// - Parameter eventHandler: receives transport events (retries, slow requests), or `nil`.
    public func serviceConfiguration(eventHandler: (@Sendable (TransportEvent) -> Void)? = nil)
        -> NowServiceConfiguration
    {
        connection.serviceConfiguration(maximumConnectionsPerHost: options.concurrency, eventHandler: eventHandler)
    }

    /// A table service for the target (libcurl transport).
    public func makeTableService() -> NowTableService {
        NowTableService(configuration: serviceConfiguration())
    }

    /// A stand-in path, unique per target, for the checks every output shares (no file is written).
    public var file: OutputFileSettings {
        let host = connection.instance.host ?? ""
        let port = connection.instance.port.map(String.init) ?? ""
        let text =
            "instance_"
            + "\(host)_\(port)".map { $0.isASCII && ($0.isLetter || $0.isNumber) ? String($0) : "_" }.joined()
        // ASCII letters, digits and underscores only: a valid template whatever the URL holds.
        guard let path = try? OutputPathTemplate(text) else { preconditionFailure("\(text) is a valid path") }
        return OutputFileSettings(path: path)
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case mode, concurrency
        case ratePerSecond = "rate_per_second"
    }

    /// Decodes and checks an instance output.
    public init(from decoder: any Decoder) throws {
        // This mapping's own keys are opened first, so that a failure in the connection's keys is not
        // taken for an unknown mode, concurrency or rate_per_second.
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let connection = try InstanceConnection(from: decoder)
        let mode = try container.decode(.mode, default: InstanceWriteMode.upsert)
        let concurrency = try container.decodeInteger(
            .concurrency, default: 4, in: InstanceSinkOptions.concurrencyRange)
        let rate = try container.decodeIfPresent(Double.self, forKey: .ratePerSecond)
        if let rate, !(rate > 0 && rate.isFinite) {
            throw container.issue(
                .ratePerSecond, "\(container.path(.ratePerSecond)) must be a number of requests per second above 0")
        }
        options = InstanceSinkOptions(
            connection: connection, mode: mode, concurrency: concurrency ?? 4, ratePerSecond: rate)
    }
}
