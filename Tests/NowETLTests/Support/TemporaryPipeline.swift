import Foundation
import NowSimTesting

/// Pipeline files in fresh temporary directories, for the in-process commands against a nowsim
/// (``InProcessNowETL``): the callers remove the directory.
enum TemporaryPipeline {
    /// Writes `pipeline` as `pipeline.yaml` in a new directory `nowetl-PREFIX-…`, its `output_dir` the
    /// folder `out` inside it.
    static func write(_ prefix: String, _ pipeline: PipelineYAML) throws -> (
        directory: URL, path: String, text: String
    ) {
        let directory = FileManager.default.temporaryDirectory.appendingPathComponent(
            "nowetl-\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var pipeline = pipeline
        pipeline.outputDirectory = directory.appendingPathComponent("out").path
        let path = try pipeline.write("pipeline.yaml", in: directory).path
        return (directory, path, pipeline.text)
    }

    /// A pipeline on `${SN_INSTANCE}` (see ``environment(_:)``), 100 records a page, with `tableYAML`
    /// under `tables:` from line 8 on (the positions DictionaryNameCheckTests expect count from there).
    static func online(tableYAML: String, outputYAML: String = #"  - csv: { path: "{table}.csv" }"#) throws -> (
        directory: URL, path: String
    ) {
        let written = try write(
            "dict", PipelineYAML(source: ["page_size: 100"], tables: tableYAML, outputs: outputYAML))
        return (written.directory, written.path)
    }

    /// The variables of an ``online(tableYAML:outputYAML:)`` pipeline reading from `server`.
    static func environment(_ server: NowSimInstance) -> [String: String] {
        ["SN_INSTANCE": server.baseURL.absoluteString]
    }
}
