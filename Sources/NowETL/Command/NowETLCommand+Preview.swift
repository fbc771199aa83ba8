import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl preview`: the first rows of one table, extracted as `run` would, printed as a text table.
    static func preview(
        _ options: NowETLArguments.PreviewOptions, environment: [String: String], streams: CommandStreams
    ) async -> Int32 {
        guard
            let configuration = load(
                options.pipeline, overrides: options.overrides, environment: environment, streams: streams)
        else {
            return NowETLExitCode.configuration
        }
        let table: TableConfiguration
        do {
            let selected = try PipelineRun.selectTables(options.table.map { [$0] } ?? [], from: configuration)
            guard let first = selected.first else { return NowETLExitCode.configuration }
            table = first
        } catch {
            streams.standardError.writeLine(NowETLError.text(of: error, after: "nowetl"))
            return error.exitCode
        }
        let secrets = configuration.secretValues
        let logger = RunLogger(secrets: secrets, console: streams.standardError)
        let name = table.table
        do {
            let preview = TablePreview(
                configuration: configuration, transportEvents: { logger.log($0, table: name) })
            let result = try await preview.rows(of: table, limit: options.rows)
            streams.standardOutput(PreviewTable.render(schema: result.schema, rows: result.rows))
            let rows = result.rows.count
            var note = "\(table.table): \(rows) row\(rows == 1 ? "" : "s")"
            if result.rejects > 0 { note += ", \(result.rejects) rejected and left out" }
            streams.standardError.writeLine(note)
            return NowETLExitCode.ok
        } catch {
            return fail(
                logger.redact(NowETLError.text(of: error)), code: NowETLExitCode.code(for: error), streams: streams)
        }
    }
}
