import Foundation

/// One item of `outputs:`: a single-key mapping naming the format.
///
/// ```yaml
/// outputs:
///   - csv:  { path: "{table}-{run_date}.csv.gz" }
///   - xml:  { path: "{table}.xml", format: unload }
///   - json: { path: "{table}.jsonl.gz", split: { rows: 1000000 } }   # incident-0001.jsonl.gz, …
///   - sqlite: { path: "report.db", mode: merge }                     # a table per pipeline table
///   - postgres: { url: "${PG_URL}", schema: servicenow }             # the same in PostgreSQL
///   - mysql: { url: "${MYSQL_URL}", mode: merge }                     # the same in MySQL or MariaDB
///   - instance: { instance: https://target.service-now.com, auth: { … } }  # rows into another instance
/// ```
///
/// Every setting is already a sink type, so ``fileSinkSpec(outputDirectory:fileMode:)`` is all a plan needs.
public enum OutputConfiguration: Sendable, Hashable, Decodable {
    /// A CSV file per table.
    case csv(CSVOutputConfiguration)
    /// An XML file per table.
    case xml(XMLOutputConfiguration)
    /// A JSON Lines or JSON array file per table.
    case json(JSONOutputConfiguration)
    /// A table per pipeline table in a SQLite database.
    case sqlite(SQLiteOutputConfiguration)
    /// A table per pipeline table in a PostgreSQL schema.
    case postgres(PostgresOutputConfiguration)
    /// A table per pipeline table in a MySQL or MariaDB database.
    case mysql(MySQLOutputConfiguration)
    /// The rows of every table written into another instance (a migration, ``InstanceSink``).
    case instance(InstanceOutputConfiguration)

    /// The format's name as written in the file.
    public enum Kind: String, Sendable, Hashable, CaseIterable, CodingKey {
        /// `csv`.
        case csv
        /// `xml`.
        case xml
        /// `json`.
        case json
        /// `sqlite`.
        case sqlite
        /// `postgres`.
        case postgres
        /// `mysql`.
        case mysql
        /// `instance`.
        case instance
    }

    /// Which format this is.
    public var kind: Kind {
        switch self {
        case .csv: .csv
        case .xml: .xml
        case .json: .json
        case .sqlite: .sqlite
        case .postgres: .postgres
        case .mysql: .mysql
        case .instance: .instance
        }
    }

    /// Whether this output is a database (no file of the run: exempt from the `{table}` and `{run_id}`
    /// rules, always under `output_dir` even in publish mode).
    public var isDatabase: Bool {
        switch self {
        case .sqlite, .postgres, .mysql: true
        case .csv, .xml, .json, .instance: false
        }
    }

    /// Whether this output is another instance (no file of the run: exempt from the `{table}` and `{run_id}`
    /// rules; its progress record lives in `output_dir`'s run journal).
    public var isInstance: Bool {
        if case .instance = self { return true }
        return false
    }

    /// Whether this output writes files of the run (not a database, not an instance).
    var writesFiles: Bool { !isDatabase && !isInstance }

    /// Path, compression and splitting.
    public var file: OutputFileSettings {
        switch self {
        case .csv(let csv): csv.file
        case .xml(let xml): xml.file
        case .json(let json): json.file
        case .sqlite(let sqlite): sqlite.file
        case .postgres(let postgres): postgres.file
        case .mysql(let mysql): mysql.file
        case .instance(let instance): instance.file
        }
    }

    /// The sink spec for this output, writing under `outputDirectory` (the pipeline's `output_dir`) files
    /// of `fileMode` (the pipeline's `file_mode`).
    public func fileSinkSpec(outputDirectory: String, fileMode: mode_t = 0o640) -> FileSinkSpec {
        let format: FileSinkSpec.Format =
            switch self {
            case .csv(let csv): .csv(csv.options)
            case .xml(let xml): .xml(xml.options)
            case .json(let json): .json(json.options)
            case .sqlite(let sqlite): .sqlite(sqlite.options)
            case .postgres(let postgres): .postgres(postgres.options)
            case .mysql(let mysql): .mysql(mysql.options)
            case .instance(let instance): .instance(instance.options.keepingProgress(in: outputDirectory))
            }
        return FileSinkSpec(
            format: format, options: file.fileSinkOptions(outputDirectory: outputDirectory, fileMode: fileMode))
    }

    /// Decodes an output: exactly one of `csv`, `xml`, `json`, `sqlite`, `postgres`, `mysql`, `instance`.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Kind.self)
        let present = Kind.allCases.filter { container.contains($0) }
        guard let kind = present.first else {
            throw container.issue(
                "\(container.containerPath) needs one of csv, xml, json, sqlite, postgres, mysql or instance",
                kind: .missingKey)
        }
        guard present.count == 1 else {
            throw container.issue(
                present[1],
                "\(container.containerPath) has both \(present[0].rawValue) and \(present[1].rawValue); "
                    + "write each output as its own list item (- \(present[1].rawValue): …)",
                pointsAtKey: true)
        }
        switch kind {
        case .csv: self = .csv(try container.decode(CSVOutputConfiguration.self, forKey: .csv))
        case .xml: self = .xml(try container.decode(XMLOutputConfiguration.self, forKey: .xml))
        case .json: self = .json(try container.decode(JSONOutputConfiguration.self, forKey: .json))
        case .sqlite: self = .sqlite(try container.decode(SQLiteOutputConfiguration.self, forKey: .sqlite))
        case .postgres:
            self = .postgres(try container.decode(PostgresOutputConfiguration.self, forKey: .postgres))
        case .mysql: self = .mysql(try container.decode(MySQLOutputConfiguration.self, forKey: .mysql))
        case .instance:
            self = .instance(try container.decode(InstanceOutputConfiguration.self, forKey: .instance))
        }
    }

    /// A database output's mode, `nil` for a file output.
    var databaseMode: DatabaseLoadMode? {
        switch self {
        case .sqlite(let sqlite): sqlite.options.mode
        case .postgres(let postgres): postgres.options.mode
        case .mysql(let mysql): mysql.options.mode
        case .csv, .xml, .json, .instance: nil
        }
    }

    /// A database output's `table_name`, `nil` for a file output or the default name.
    var databaseTableName: String? {
        switch self {
        case .sqlite(let sqlite): sqlite.options.tableName
        case .postgres(let postgres): postgres.options.tableName
        case .mysql(let mysql): mysql.options.tableName
        case .csv, .xml, .json, .instance: nil
        }
    }
}
