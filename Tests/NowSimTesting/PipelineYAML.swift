import Foundation

/// A pipeline file for the tests, written from parts: the tests say only what their pipeline is about
/// (its tables, outputs and the source settings under test) and share the rest.
///
/// The instance and the credentials are `${VAR}` placeholders by default (``NowSimInstance/pipelineEnvironment``
/// fills them), so one text serves every server; a test that needs a literal URL passes it as `instance`.
/// ``text`` is laid out as
///
/// ```yaml
/// version: 1
/// source:
///   instance: <instance>
///   auth: <auth>
///   <source lines>
/// output_dir: <outputDirectory>   # left out when nil
/// <settings lines>
/// tables:
/// <tables>
/// outputs:
/// <outputs>
/// ```
public struct PipelineYAML: Sendable {
    /// The value of `source.instance`.
    public var instance: String
    /// The value of `source.auth` (a flow mapping or an indented block starting with a line break).
    public var auth: String
    /// Further lines of `source:` without their indentation (`concurrency: 2`, `page_size: 100`).
    public var source: [String]
    /// The value of `output_dir`; the key is left out when `nil`.
    public var outputDirectory: String?
    /// Further top-level lines after `output_dir` (`file_mode: "0600"`, `order: [...]`).
    public var settings: [String]
    /// The block under `tables:`, indented as it stands there (`  - table: incident`).
    public var tables: String
    /// The block under `outputs:`, indented as it stands there (`  - csv: { path: "{table}.csv" }`).
    public var outputs: String

    /// The credentials as placeholders, quoted as YAML needs for `${…}` values.
    public static let placeholderAuth = #"{ basic: { user: "${SN_USER}", password: "${SN_PASSWORD}" } }"#
    /// The credentials as placeholders in block form: `auth:` then `basic:` on a line of its own (the
    /// pipelines whose tests name line numbers were written so).
    public static let placeholderAuthBlock = #"\#n    basic: { user: "${SN_USER}", password: "${SN_PASSWORD}" }"#
    /// nowsim's seeded administrator, written out.
    public static let adminAuth = "{ basic: { user: admin, password: admin } }"

    /// Creates a pipeline; see the type's description for where each part goes.
    public init(
        instance: String = "${SN_INSTANCE}", auth: String = adminAuth, source: [String] = [],
        outputDirectory: String? = "out", settings: [String] = [], tables: String = "  - table: incident",
        outputs: String = #"  - csv: { path: "{table}.csv" }"#
    ) {
        self.instance = instance
        self.auth = auth
        self.source = source
        self.outputDirectory = outputDirectory
        self.settings = settings
        self.tables = tables
        self.outputs = outputs
    }

    /// Creates a pipeline reading from `sim`'s URL, written out literally (no `SN_INSTANCE` needed).
    public init(
        _ sim: NowSimInstance, auth: String = adminAuth, source: [String] = [], outputDirectory: String? = "out",
        settings: [String] = [], tables: String = "  - table: incident",
        outputs: String = #"  - csv: { path: "{table}.csv" }"#
    ) {
        self.init(
            instance: sim.baseURL.absoluteString, auth: auth, source: source, outputDirectory: outputDirectory,
            settings: settings, tables: tables, outputs: outputs)
    }

    /// The file's text, ending in a line break.
    public var text: String {
        // A block `auth` starts with its line break; no space after the colon then.
        var lines = [
            "version: 1", "source:", "  instance: \(instance)", "  auth:" + (auth.hasPrefix("\n") ? "" : " ") + auth,
        ]
        lines += source.map { "  " + $0 }
        if let outputDirectory { lines.append("output_dir: \(outputDirectory)") }
        lines += settings
        lines += ["tables:", tables.trimmingTrailingNewlines, "outputs:", outputs.trimmingTrailingNewlines]
        return lines.joined(separator: "\n") + "\n"
    }

    /// Writes ``text`` to `url` (atomically).
    public func write(to url: URL) throws {
        try text.write(to: url, atomically: true, encoding: .utf8)
    }

    /// Writes ``text`` to `name` in `directory` and returns the file's URL.
    @discardableResult
    public func write(_ name: String, in directory: URL) throws -> URL {
        let url = directory.appendingPathComponent(name)
        try write(to: url)
        return url
    }
}

extension NowSimInstance {
    /// The variables of a ``PipelineYAML``'s placeholders for this server and its seeded administrator.
    public var pipelineEnvironment: [String: String] {
        ["SN_INSTANCE": baseURL.absoluteString, "SN_USER": "admin", "SN_PASSWORD": "admin"]
    }
}

extension String {
    fileprivate var trimmingTrailingNewlines: String {
        var text = self
        while text.hasSuffix("\n") { text.removeLast() }
        return text
    }
}
