import Foundation
import NowData

extension NowETLCommand {
    /// `nowetl preview`: the first rows of one table, extracted as `run` would, printed as a text table —
    /// after the same check of every name against the instance's dictionary (a misspelt filter field
    /// would preview every row, a misspelt field an empty column): exit 78 at its position.
    static func preview(
        _ options: NowETLArguments.PreviewOptions, environment: [String: String], streams: CommandStreams,
        makeTableRunner: TableRunnerFactory = makeDefaultTableRunner
    ) async throws(Exit) -> Int32 {
        let start = try prologue(
            options.pipeline, overrides: options.overrides, tables: options.table.map { [$0] } ?? [],
            environment: environment, streams: streams)
        guard let table = start.tables.first else { return NowETLExitCode.configuration }
        let (configuration, logger) = (start.configuration, start.logger)
        let name = table.table
        let runner = try makeRunner(configuration, makeTableRunner: makeTableRunner, logger: logger, streams: streams)
        if let exit = await checkNames(start.located, runner: runner, tables: [name], logger: logger, streams: streams)
        {
            return exit.code
        }
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
            return fail(error, logger: logger, streams: streams)
        }
    }
}
