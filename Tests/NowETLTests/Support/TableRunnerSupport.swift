import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// TableRunner against the real nowsim, for the suites that run one table and read its files back:
/// the incident fields and columns, a pipeline, file outputs, a run that commits, and the source as NowData
/// reads it.
enum TableRunnerSupport {
    static let fields = ["sys_id", "number", "short_description", "description", "caller_id", "opened_at", "priority"]
    static let columns = [
        ColumnConfiguration(name: "sys_id", path: "sys_id"),
        ColumnConfiguration(name: "number", path: "number"),
        ColumnConfiguration(name: "short_description", path: "short_description"),
        ColumnConfiguration(name: "description", path: "description.value"),
        ColumnConfiguration(name: "caller", path: "caller_id.display_value"),
        ColumnConfiguration(name: "caller_id", path: "caller_id"),
        ColumnConfiguration(name: "opened", path: "opened_at.value", type: .dateTime),
        ColumnConfiguration(name: "priority", path: "priority", type: .int),
    ]

    static func pipeline(_ server: NowSimInstance, directory: String, concurrency: Int, pageSize: Int = 200)
        -> PipelineConfiguration
    {
        let source = SourceConfiguration(
            instance: server.baseURL, auth: .basic(user: "admin", password: Secret("admin")),
            concurrency: concurrency, pageSize: pageSize, timeoutSeconds: 30)
        return PipelineConfiguration(source: source, tables: [], outputs: [], outputDirectory: directory)
    }

    static func spec(_ format: FileSinkSpec.Format, _ path: String, directory: String) throws -> FileSinkSpec {
        FileSinkSpec(
            format: format, options: FileSinkOptions(outputDirectory: directory, path: try OutputPathTemplate(path)))
    }

    static func allOutputs(_ directory: String) throws -> [FileSinkSpec] {
        [
            // The files are compared with the source text: without the formula guard (on by default),
            // which puts `'` before the seed's `=…`, `+…`, `-…`, `@…` descriptions.
            try spec(.csv(CSVSinkOptions(formulaGuard: false)), "incident.csv", directory: directory),
            try spec(.json(JSONSinkOptions()), "incident.jsonl", directory: directory),
            try spec(.xml(XMLSinkOptions(format: .unload)), "incident.xml", directory: directory),
        ]
    }

    /// Runs a table and collects the progress events.
    static func run(
        _ table: TableConfiguration, _ server: NowSimInstance, directory: String, concurrency: Int,
        outputs: [FileSinkSpec]
    ) async throws -> (TableSummary, [TableProgress]) {
        let runner = TableRunner(configuration: pipeline(server, directory: directory, concurrency: concurrency))
        let events = EventLog()
        let prepared = try await runner.run(
            table, outputs: outputs, context: SinkTestSupport.context(), restart: true,
            progress: { events.append($0) })
        let context = SinkTestSupport.context()
        _ = try await RunCommit.commit(
            [prepared], runID: context.runID, outputDirectory: directory,
            manifest: Manifest(runID: context.runID, runStarted: context.runStarted, files: prepared.files))
        return (prepared.summary, events.all)
    }

    /// The source as NowData reads it in one request: sys_id → field → (value, display value).
    static func source(_ server: NowSimInstance, fields: [String], mode: FieldReadConfiguration.Options) async throws
        -> [String: [String: Any]]
    {
        let service = NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin")))
        let data = try await service.records(
            from: "incident",
            configuration: FetchConfiguration(
                limit: 10_000,
                readConfiguration: FieldReadConfiguration(
                    includeFields: fields, options: mode.union(.excludeReferenceLink))))
        let object = try JSONSerialization.jsonObject(with: data) as! [String: Any]
        var records: [String: [String: Any]] = [:]
        for record in object["result"] as! [[String: Any]] {
            let sysID = (record["sys_id"] as? [String: Any])?["value"] as? String ?? record["sys_id"] as! String
            records[sysID] = record
        }
        return records
    }

    /// What ``exportSysIDs(_:directory:user:password:concurrency:pageSize:)`` read.
    struct SysIDExport {
        /// The JSON Lines file's bytes.
        var bytes: Data
        /// The `sys_id` of every line, in file order.
        var sysIDs: [String]
        /// The table's summary.
        var summary: TableSummary
    }

    /// Exports `sys_id` and `number` of every incident `user` reads from `server` into JSON Lines under
    /// `directory`, `concurrency` ranges at a time in pages of `pageSize`, then aborts the outputs (nothing
    /// is committed): the suites that check which records an extraction delivers, and how.
    static func exportSysIDs(
        _ server: NowSimInstance, directory: String, user: String = "admin", password: String = "admin",
        concurrency: Int, pageSize: Int
    ) async throws -> SysIDExport {
        let source = SourceConfiguration(
            instance: server.baseURL, auth: .basic(user: user, password: Secret(password)), concurrency: concurrency,
            pageSize: pageSize, timeoutSeconds: 30)
        let runner = TableRunner(
            configuration: PipelineConfiguration(source: source, tables: [], outputs: [], outputDirectory: directory))
        let output = FileSinkSpec(
            format: .json(JSONSinkOptions()),
            options: FileSinkOptions(outputDirectory: directory, path: try OutputPathTemplate("incident.jsonl")))
        let prepared = try await runner.run(
            try TableConfiguration(table: "incident", fields: ["sys_id", "number"]), outputs: [output],
            context: SinkTestSupport.context(), restart: true, progress: { _ in })
        let staged = try #require(prepared.outputs.flatMap(\.staged).first)
        let bytes = try SinkTestSupport.read(staged.temporaryPath)
        await prepared.abort()
        let sysIDs = try bytes.split(separator: UInt8(ascii: "\n")).map { line in
            let row = try JSONSerialization.jsonObject(with: Data(line)) as? [String: Any]
            return row?["sys_id"] as? String ?? ""
        }
        return SysIDExport(bytes: bytes, sysIDs: sysIDs, summary: prepared.summary)
    }
}
