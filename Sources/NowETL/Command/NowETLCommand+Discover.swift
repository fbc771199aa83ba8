import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl discover`: a table's dictionary fields as pipeline YAML; credentials from `SN_CLIENT_ID` and
    /// `SN_CLIENT_SECRET` (OAuth client credentials), else `SN_USER` and
    /// `SN_PASSWORD`.
    static func discover(
        _ options: NowETLArguments.DiscoverOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        let connection: DictionaryConnection
        switch dictionaryConnection(instance: options.instance, command: "discover", environment: environment) {
        case .success(let value): connection = value
        case .failure(let message): return fail(message.description, code: NowETLExitCode.usage, streams: streams)
        }
        do {
            let fields = try await FieldDiscovery(service: connection.service).fields(of: options.table)
            guard !fields.isEmpty else {
                return fail(
                    "sys_dictionary lists no fields for '\(options.table)'", code: NowETLExitCode.failed,
                    streams: streams)
            }
            streams.standardOutput(DiscoveredTableYAML.render(table: options.table, fields: fields))
            return NowETLExitCode.ok
        } catch {
            return fail(connection.redact(error), code: NowETLExitCode.code(for: error), streams: streams)
        }
    }
}
