import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl discover`: a table's dictionary fields as pipeline YAML; credentials from the sign-in options,
    /// else `SN_CLIENT_ID` and `SN_CLIENT_SECRET` (OAuth client credentials), else `SN_USER` and `SN_PASSWORD`
    /// (``dictionaryConnection(instance:command:environment:signIn:)``).
    static func discover(
        _ options: NowETLArguments.DiscoverOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        let connection: DictionaryConnection
        switch dictionaryConnection(
            instance: options.instance, command: "discover", environment: environment, signIn: options.signIn)
        {
        case .success(let value): connection = value
        case .failure(let message): return fail(message.description, code: NowETLExitCode.usage, streams: streams)
        }
        switch await connection.fields(of: options.table) {
        case .success(let fields):
            streams.standardOutput(DiscoveredTableYAML.render(table: options.table, fields: fields))
            return NowETLExitCode.ok
        case .failure(let failure):
            return fail(failure.message, code: failure.code, streams: streams)
        }
    }
}
