import Foundation

/// A pipeline file, decoded and checked: what to read, from where, and where to write it.
///
/// ```yaml
/// version: 1                      # required; this program reads version 1
/// source: { … }                   # SourceConfiguration
/// tables: [ … ]                   # TableConfiguration, at least one, unique names
/// outputs: [ … ]                  # OutputConfiguration, at least one
/// output_dir: out                 # default "out"; output paths are relative to it
/// file_mode: "0640"               # default; the outputs', manifest's and SQLite files' mode
/// publish: { mode: directories }  # PublishConfiguration; default: files replaced in place
/// order: [sys_user, incident]     # optional: the order to write the tables in (TableOrder)
/// ```
///
/// Beyond each part's own checks: with more than one table every file output's path must contain
/// `{table}` (each table writes its own files) and a database output's `table_name`, when given, too;
/// no two outputs may use the same path. `order:`, when given, lists every table of `tables:` once
/// (unknown, repeated and missing names are errors at the `order:` item or key).
/// Relative paths in the file — `output_dir`, `*_file` secrets, `source.tls` files — are relative to
/// the directory of the pipeline file, wherever the command runs (`--output-dir` on the command line
/// is relative to the working directory, like any argument).
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
    /// The directory output paths are relative to (default `out`), relative to the pipeline file's
    /// directory as loaded (`pipelines/../out/demo` for `output_dir: ../out/demo` in `pipelines/demo.yaml`).
    public var outputDirectory: String
    /// How a run's files become visible (default: replaced in place in ``outputDirectory``).
    public var publish: PublishConfiguration
    /// The mode of the files the outputs write — data files, the manifest, SQLite databases — set
    /// whatever the umask (`file_mode`, default 0640). nowetl's own state stays 0600 (``OwnFiles``).
    public var fileMode: mode_t = 0o640
    /// The order to write the tables in (`order:`), every table once; `nil` for the order
    /// ``TableOrder`` computes when ``needsDependencyOrder``, else the order of ``tables``. When given,
    /// the instance's dictionary is not read for an order.
    public var order: [String]?

    /// Creates a configuration (no checks; ``PipelineLoader`` checks what it loads).
    public init(
        source: SourceConfiguration, tables: [TableConfiguration], outputs: [OutputConfiguration],
        outputDirectory: String = "out", publish: PublishConfiguration = .inPlace, order: [String]? = nil
    ) {
        self.version = Self.supportedVersion
        self.source = source
        self.tables = tables
        self.outputs = outputs
        self.outputDirectory = outputDirectory
        self.publish = publish
        self.order = order
    }

    /// The table configuration named `name`, if the pipeline has one.
    public func table(named name: String) -> TableConfiguration? {
        tables.first { $0.table == name }
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case version, source, tables, outputs
        case outputDirectory = "output_dir"
        case publish, order
        case fileMode = "file_mode"
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
        let outputDirectory = try container.decode(.outputDirectory, default: "out")
        if outputDirectory.isEmpty {
            throw container.issue(
                .outputDirectory, "output_dir must not be empty; write . for the pipeline file's directory")
        }
        self.outputDirectory = PipelineLoadContext.of(decoder.userInfo)?.resolve(outputDirectory) ?? outputDirectory
        publish = try container.decode(.publish, default: .inPlace)
        if let text = try container.decodeIfPresent(String.self, forKey: .fileMode) {
            guard let mode = Self.fileMode(text) else {
                throw container.issue(
                    .fileMode,
                    "file_mode must be an octal mode of data files such as \"0640\" or \"0600\": read and write "
                        + "for the owner, no execute, setuid, setgid or sticky bits; got '\(text)'")
            }
            fileMode = mode
        }
        order = try container.decodeIfPresent([String].self, forKey: .order)
        try checkOrder(container)
        try checkOutputPaths(container)
        try checkIncrementalOutputs(container)
        try checkCoalescedTables(container)
        try checkWholeRecordOutputs(container)
        try checkChoiceLabelOutputs(at: container.codingPath)
        try checkKeptRuns(at: container.codingPath)
    }

    /// `attachments`, `journal` and `audit` need an output that takes them: files (written beside the
    /// rows) or an instance (migrated after the records); a database output alone would drop them.
    private func checkWholeRecordOutputs(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard outputs.allSatisfy(\.isDatabase) else { return }
        for (index, table) in tables.enumerated() where !table.wholeRecord.isEmpty {
            let key =
                table.wholeRecord.attachments != nil
                ? "attachments" : table.wholeRecord.journal.isEmpty ? "audit" : "journal"
            let path: [any CodingKey] =
                container.codingPath + [CodingKeys.tables, PathKey(index: index), PathKey(stringValue: key)]
            throw ConfigIssue(
                .invalidValue, at: path,
                "\(ConfigPath(codingPath: path)) needs a file or instance output: database outputs do not take "
                    + "attachments, journal entries or audit rows (docs/whole-record.md)", pointsAtKey: true)
        }
    }

    /// The mode `text` writes (`"0640"`, `"640"`), or `nil` when it is not 3 or 4 octal digits that
    /// let the owner read and write and set no execute or special bit.
    static func fileMode(_ text: String) -> mode_t? {
        var digits = Substring(text)
        if digits.count == 4, digits.first == "0" { digits = digits.dropFirst() }
        guard digits.count == 3, digits.allSatisfy({ ("0"..."7").contains($0) }),
            let value = mode_t(digits, radix: 8), value & 0o600 == 0o600, value & 0o111 == 0
        else { return nil }
        return value
    }

    /// `order:` must name the pipeline's tables, each once, and all of them: a table added to `tables:`
    /// later must be placed on purpose, not appended silently.
    private func checkOrder(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard let order else { return }
        let known = tables.map(\.table)
        var seen: [String: Int] = [:]
        for (index, name) in order.enumerated() {
            let itemPath: [any CodingKey] = container.codingPath + [CodingKeys.order, PathKey(index: index)]
            if let first = seen[name] {
                throw ConfigIssue(
                    .invalidValue, at: itemPath, "'\(name)' appears twice in order (first as order[\(first)])")
            }
            guard known.contains(name) else {
                let suggestion = KeySuggestion.closest(to: name, among: known.filter { seen[$0] == nil })
                throw ConfigIssue(
                    .invalidValue, at: itemPath,
                    "order[\(index)] names '\(name)', which is not a table of the pipeline (its tables are "
                        + "\(known.joined(separator: ", ")))" + (suggestion.map { "; did you mean '\($0)'?" } ?? ""))
            }
            seen[name] = index
        }
        let missing = known.filter { seen[$0] == nil }
        if !missing.isEmpty {
            throw container.issue(
                .order,
                "order must list every table of the pipeline, each once; it leaves out "
                    + "\(missing.joined(separator: ", ")) (add \(missing.count == 1 ? "it" : "them") where "
                    + "\(missing.count == 1 ? "it is" : "they are") to be written)")
        }
    }

    /// An incremental table's runs each hold only what changed: no output may overwrite the previous
    /// run's file (a consumer that had not picked it up would lose those changes), and deletion records
    /// have no place in an XML unload (an instance would import them as empty records).
    private func checkIncrementalOutputs(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        guard let (tableIndex, table) = tables.enumerated().first(where: { $0.element.incremental != nil }) else {
            return
        }
        let firstDeleting = tables.enumerated().first { $0.element.incremental?.deletes == true }
        for (index, output) in outputs.enumerated() {
            let outputPath: [any CodingKey] =
                container.codingPath + [CodingKeys.outputs, PathKey(index: index), output.kind]
            // An output that cannot take deletion records, when a table sends them.
            func refusesDeletions(_ what: String, _ refusal: String, advice: String = "") -> ConfigIssue? {
                guard let (deletesIndex, deleting) = firstDeleting else { return nil }
                return ConfigIssue(
                    .invalidValue, at: outputPath,
                    "\(ConfigPath(codingPath: outputPath)) \(what), which \(refusal) the deletion records of "
                        + "table '\(deleting.table)' (tables[\(deletesIndex)] has deletes: true)" + advice)
            }
            if output.databaseMode == .replace {
                throw ConfigIssue(
                    .invalidValue, at: outputPath + [PathKey(stringValue: "mode")],
                    "\(ConfigPath(codingPath: outputPath + [PathKey(stringValue: "mode")])) is replace, but table "
                        + "'\(table.table)' (tables[\(tableIndex)]) is incremental: replacing the database table with "
                        + "one run's changes would lose the rest; use mode: merge (or append)")
            }
            // A database output keeps every run's rows in one table: no file to overwrite.
            if case .instance(let instance) = output, instance.options.matching.deletions == nil,
                let issue = refusesDeletions(
                    "writes into another instance", "does not take",
                    advice: " unless it says what they do there: deletes: propagate (delete the target's record) "
                        + "or deletes: ignore")
            {
                throw issue
            }
            if publish.mode != .directories, output.writesFiles, !output.file.path.contains(.runID) {
                throw ConfigIssue(
                    .invalidValue, at: outputPath + [PathKey(stringValue: "path")],
                    "\(ConfigPath(codingPath: outputPath + [PathKey(stringValue: "path")])) must contain {run_id} "
                        + "(or set publish: { mode: directories }): table '\(table.table)' (tables[\(tableIndex)]) is "
                        + "incremental, so each run writes only what changed and must not replace the last run's file")
            }
            if case .xml(let xml) = output, xml.options.format == .unload,
                let issue = refusesDeletions("is an XML unload", "cannot carry", advice: "; use format: records")
            {
                throw issue
            }
        }
    }

    /// A coalesced table must be one the pipeline migrates: its source records are what is matched.
    private func checkCoalescedTables(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        let known = tables.map(\.table)
        for (index, output) in outputs.enumerated() {
            guard case .instance(let instance) = output else { continue }
            for table in instance.options.matching.coalesce.keys.sorted() where !known.contains(table) {
                let path: [any CodingKey] =
                    container.codingPath + [
                        CodingKeys.outputs, PathKey(index: index), output.kind, PathKey(stringValue: "coalesce"),
                        PathKey(stringValue: table),
                    ]
                let suggestion = KeySuggestion.closest(to: table, among: known)
                throw ConfigIssue(
                    .invalidValue, at: path,
                    "\(ConfigPath(codingPath: path)) names '\(table)', which is not a table of the pipeline (its "
                        + "records are what is matched; add it to tables:)"
                        + (suggestion.map { "; did you mean '\($0)'?" } ?? ""), pointsAtKey: true)
            }
        }
    }

    private func checkOutputPaths(_ container: KeyedDecodingContainer<CodingKeys>) throws {
        var seen: [String: Int] = [:]
        var seenTables: [String: Int] = [:]
        var databaseOutputs: Set<Int> = []
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
            // Database outputs may share a database (their tables differ); a file is one output's alone.
            let path = output.file.path.text
            if output.isDatabase {
                // Every database table the output loads, one per pipeline table, case folded (SQLite's
                // names are case-insensitive).
                let names = Set(
                    tables.map { table in
                        (output.databaseTableName ?? "{table}").replacingOccurrences(of: "{table}", with: table.table)
                            .lowercased()
                    })
                for name in names.sorted() {
                    if let first = seenTables[path + "\u{0}" + name] {
                        throw ConfigIssue(
                            .invalidValue, at: pathPath,
                            "\(described): outputs[\(first)] loads the same database table \(name); give one of them "
                                + "another table_name:")
                    }
                }
                for name in names { seenTables[path + "\u{0}" + name] = index }
            }
            if let first = seen[path], !(output.isDatabase && databaseOutputs.contains(first)) {
                throw ConfigIssue(
                    .invalidValue, at: pathPath,
                    "\(described) is the same path as outputs[\(first)]; each output needs its own file")
            }
            if seen[path] == nil { seen[path] = index }
            if output.isDatabase { databaseOutputs.insert(index) }
        }
    }
}
