/// A pipeline file, decoded and checked: what to read, from where, and where to write it.
///
/// ```yaml
/// version: 1                      # required; this program reads version 1
/// source: { … }                   # SourceConfiguration
/// tables: [ … ]                   # TableConfiguration, at least one, unique names
/// outputs: [ … ]                  # OutputConfiguration, at least one
/// output_dir: out                 # default "out"; output paths are relative to it
/// publish: { mode: directories }  # PublishConfiguration; default: files replaced in place
/// ```
///
/// Beyond each part's own checks: with more than one table every file output's path must contain
/// `{table}` (each table writes its own files) and a database output's `table_name`, when given, too;
/// no two outputs may use the same path.
/// Relative `output_dir` and `*_file` paths are relative to the current directory when the
/// pipeline runs, like any command-line argument.
public struct PipelineConfiguration: Sendable, Hashable, Decodable {
    /// The pipeline file format this program reads.
    public static let supportedVersion = 1

    /// The file format version (always ``supportedVersion``).
    public var version: Int
    /// The instance to read from.
    public var source: SourceConfiguration
    /// The tables to export, in file order.
    public var tables: [TableConfiguration]
    /// What to write for every table, in file order.
    public var outputs: [OutputConfiguration]
    /// The directory output paths are relative to (default `out`).
    public var outputDirectory: String
    /// How a run's files become visible (default: replaced in place in ``outputDirectory``).
    public var publish: PublishConfiguration

    /// Creates a configuration (no checks; ``PipelineLoader`` checks what it loads).
    public init(
        source: SourceConfiguration, tables: [TableConfiguration], outputs: [OutputConfiguration],
        outputDirectory: String = "out", publish: PublishConfiguration = .inPlace
    ) {
        self.version = Self.supportedVersion
        self.source = source
        self.tables = tables
        self.outputs = outputs
        self.outputDirectory = outputDirectory
        self.publish = publish
    }

    /// The table configuration named `name`, if the pipeline has one.
    public func table(named name: String) -> TableConfiguration? {
        tables.first { $0.table == name }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case version, source, tables, outputs
        case outputDirectory = "output_dir"
        case publish
    }

    /// Decodes and checks a whole pipeline (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        version = try container.decode(Int.self, forKey: .version)
        guard version == Self.supportedVersion else {
            throw container.issue(
                .version,
                "unsupported version \(version); this nowetl reads version \(Self.supportedVersion) pipeline files",
                kind: .unsupportedVersion)
        }
        source = try container.decode(SourceConfiguration.self, forKey: .source)
        tables = try container.decode([TableConfiguration].self, forKey: .tables)
        guard !tables.isEmpty else {
            throw container.issue(.tables, "tables must list at least one table")
        }
        var tableIndex: [String: Int] = [:]
        for (index, table) in tables.enumerated() {
            if let first = tableIndex[table.table] {
                throw ConfigIssue(
                    .invalidValue,
                    at: container.codingPath + [
                        CodingKeys.tables, PathKey(index: index), PathKey(stringValue: "table"),
                    ],
                    "table '\(table.table)' appears twice in tables (first as tables[\(first)])")
            }
            tableIndex[table.table] = index
        }
        outputs = try container.decode([OutputConfiguration].self, forKey: .outputs)
        guard !outputs.isEmpty else {
            throw container.issue(.outputs, "outputs must list at least one output")
        }
        outputDirectory = try container.decode(.outputDirectory, default: "out")
        if outputDirectory.isEmpty {
            throw container.issue(.outputDirectory, "output_dir must not be empty; write . for the current directory")
        }
        publish = try container.decode(.publish, default: .inPlace)
        try checkOutputPaths(container)
        try checkIncrementalOutputs(container)
    }

    /// An incremental table's runs each hold only what changed: no output may overwrite the previous
    /// run's file (a consumer that had not picked it up would lose those changes), and deletion records
    /// have no place in an XML unload (an instance would import them as empty records).
    private func checkIncrementalOutputs(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard let (tableIndex, table) = tables.enumerated().first(where: { $0.element.incremental != nil }) else {
            return
        }
        for (index, output) in outputs.enumerated() {
            let outputPath: [any CodingKey] =
                container.codingPath + [CodingKeys.outputs, PathKey(index: index), output.kind]
            if output.databaseMode == .replace {
                throw ConfigIssue(
                    .invalidValue, at: outputPath + [PathKey(stringValue: "mode")],
                    "\(ConfigPath(codingPath: outputPath + [PathKey(stringValue: "mode")])) is replace, but table "
                        + "'\(table.table)' (tables[\(tableIndex)]) is incremental: replacing the database table with "
                        + "one run's changes would lose the rest; use mode: merge (or append)")
            }
            // A database output keeps every run's rows in one table: no file to overwrite.
            if output.isInstance,
                let (deletesIndex, deleting) = tables.enumerated().first(where: {
                    $0.element.incremental?.deletes == true
                })
            {
                throw ConfigIssue(
                    .invalidValue, at: outputPath,
                    "\(ConfigPath(codingPath: outputPath)) writes into another instance, which does not take the "
                        + "deletion records of table '\(deleting.table)' (tables[\(deletesIndex)] has deletes: true)")
            }
            if publish.mode != .directories, output.writesFiles, !output.file.path.contains(.runID) {
                throw ConfigIssue(
                    .invalidValue, at: outputPath + [PathKey(stringValue: "path")],
                    "\(ConfigPath(codingPath: outputPath + [PathKey(stringValue: "path")])) must contain {run_id} "
                        + "(or set publish: { mode: directories }): table '\(table.table)' (tables[\(tableIndex)]) is "
                        + "incremental, so each run writes only what changed and must not replace the last run's file")
            }
            if case .xml(let xml) = output, xml.options.format == .unload,
                let (deletesIndex, deleting) = tables.enumerated().first(where: {
                    $0.element.incremental?.deletes == true
                })
            {
                throw ConfigIssue(
                    .invalidValue, at: outputPath,
                    "\(ConfigPath(codingPath: outputPath)) is an XML unload, which cannot carry the deletion records of "
                        + "table '\(deleting.table)' (tables[\(deletesIndex)] has deletes: true); use format: records")
            }
        }
    }

    private func checkOutputPaths(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        var seen: [String: Int] = [:]
        for (index, output) in outputs.enumerated() {
            let pathPath: [any CodingKey] =
                container.codingPath + [
                    CodingKeys.outputs, PathKey(index: index), output.kind, PathKey(stringValue: "path"),
                ]
            let described = ConfigPath(codingPath: pathPath)
            if output.isDatabase {
                if tables.count > 1, let name = output.databaseTableName, !name.contains("{table}") {
                    let namePath: [any CodingKey] =
                        container.codingPath + [
                            CodingKeys.outputs, PathKey(index: index), output.kind, PathKey(stringValue: "table_name"),
                        ]
                    throw ConfigIssue(
                        .invalidValue, at: namePath,
                        "\(ConfigPath(codingPath: namePath)) must contain {table} when the pipeline exports more than "
                            + "one table (or leave it out: each table then loads the table of its own name)")
                }
            } else if tables.count > 1, output.writesFiles, !output.file.path.contains(.table) {
                throw ConfigIssue(
                    .invalidValue, at: pathPath,
                    "\(described) must contain {table} when the pipeline exports more than one table")
            }
            if let first = seen[output.file.path.text] {
                throw ConfigIssue(
                    .invalidValue, at: pathPath,
                    "\(described) is the same path as outputs[\(first)]; each output needs its own file")
            }
            seen[output.file.path.text] = index
        }
    }
}
