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
///       coalesce:               # match these tables on business keys (InstanceMatching)
///         sys_user: [user_name]
///       on_match: update        # update (default) | keep
///       on_missing: insert      # insert (default) | skip | fail
///       on_unresolved: keep     # keep (default) | clear | fail
///       deletes: propagate      # deletion records of incremental tables: propagate | ignore
///       on_schema_mismatch: fail # fail (default) | warn (TargetPreflightPolicy)
///       side_effects: refuse    # refuse (default) | accept
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
        case coalesce
        case onMatch = "on_match"
        case onMissing = "on_missing"
        case onUnresolved = "on_unresolved"
        case deletes
        case onSchemaMismatch = "on_schema_mismatch"
        case sideEffects = "side_effects"
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
        let matching = InstanceMatching(
            coalesce: try Self.decodeCoalesce(container),
            onMatch: try container.decode(.onMatch, default: InstanceMatching.OnMatch.update),
            onMissing: try container.decode(.onMissing, default: InstanceMatching.OnMissing.insert),
            onUnresolved: try container.decode(.onUnresolved, default: InstanceMatching.OnUnresolved.keep),
            deletions: try container.decodeIfPresent(InstanceMatching.Deletions.self, forKey: .deletes))
        options = InstanceSinkOptions(
            connection: connection, mode: mode, concurrency: concurrency ?? 4, ratePerSecond: rate, matching: matching)
        options.preflight = TargetPreflightPolicy(
            onSchemaMismatch: try container.decode(
                .onSchemaMismatch, default: TargetPreflightPolicy.OnSchemaMismatch.fail),
            sideEffects: try container.decode(.sideEffects, default: TargetPreflightPolicy.SideEffects.refuse))
    }

    /// `coalesce:`: table names to non-empty lists of distinct field names.
    private static func decodeCoalesce(_ container: KeyedDecodingContainer<CodingKeys>) throws -> [String: [String]] {
        guard let tables = try container.decodeIfPresent([String: [String]].self, forKey: .coalesce) else { return [:] }
        for (table, fields) in tables.sorted(by: { $0.key < $1.key }) {
            let tablePath = container.codingPath + [CodingKeys.coalesce, PathKey(stringValue: table)]
            if let offset = NameRule.offsetOfInvalidLowercaseName(table) {
                throw ConfigIssue(
                    .invalidValue, at: tablePath,
                    "'\(table)' in \(container.path(.coalesce)) is not a table name: use the lower-case name (sys_user)",
                    utf8Offset: offset, pointsAtKey: true)
            }
            guard !fields.isEmpty else {
                throw ConfigIssue(
                    .invalidValue, at: tablePath,
                    "\(ConfigPath(codingPath: tablePath)) must list the fields \(table) records are matched on "
                        + "(sys_user: [user_name])")
            }
            for (index, field) in fields.enumerated() {
                if NameRule.offsetOfInvalidLowercaseName(field) != nil || fields[..<index].contains(field) {
                    throw ConfigIssue(
                        .invalidValue, at: tablePath + [PathKey(index: index)],
                        "'\(field)' in \(ConfigPath(codingPath: tablePath)) is not one field name: list distinct "
                            + "lower-case field names of \(table) (not dot-walked)")
                }
            }
        }
        return tables
    }
}
