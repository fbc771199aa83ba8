/// An output as a pipeline declares it — format, format options and file options — from which a
/// sink is made where it is used.
///
/// The name is historical: a database output (``Format/sqlite(_:)``) is a spec too, its file the
/// database (``FileSinkOptions/path`` under ``FileSinkOptions/outputDirectory``), so that every output
/// reaches ``TableRunning`` the same way.
///
/// The spec is a `Sendable` value (config → plan → run), while sinks are not thread-safe objects; a
/// runner keeps specs in its plan and calls ``makeSink(maps:)`` inside the task that writes a table.
public struct FileSinkSpec: Sendable, Hashable {
    /// The format and its options.
    public enum Format: Sendable, Hashable {
        /// CSV (``CSVSink``).
        case csv(CSVSinkOptions)
        /// XML, records or unload (``XMLSink``).
        case xml(XMLSinkOptions)
        /// JSON Lines or a JSON array (``JSONSink``).
        case json(JSONSinkOptions)
        /// A table of a SQLite database (``DatabaseSink``).
        case sqlite(SQLiteSinkOptions)
        /// A table of a PostgreSQL schema (``DatabaseSink``; ``FileSinkSpec/options`` unused).
        case postgres(PostgresSinkOptions)
        /// A table of a MySQL or MariaDB database (``DatabaseSink``; ``FileSinkSpec/options`` unused).
        case mysql(MySQLSinkOptions)
        /// Another instance (``InstanceSink``; ``FileSinkSpec/options`` unused).
        case instance(InstanceSinkOptions)
    }

    /// The format and its options.
    public var format: Format
    /// Where the files go, compression and splitting.
    public var options: FileSinkOptions

    /// Whether this output is a database table (a ``TransactionalSink``), not files.
    public var isDatabase: Bool {
        switch format {
        case .sqlite, .postgres, .mysql: true
        case .csv, .xml, .json, .instance: false
        }
    }

    /// Whether this output is an XML unload (whatever its other options), whose planner adds the unload columns.
    public var isUnload: Bool {
        if case .xml(let xml) = format { return xml.format == .unload }
        return false
    }

    /// Whether this output writes date-times as ISO 8601 (`datetime_format: iso8601`), so the planner
    /// marks the columns that read date-time fields (``ColumnSchema/isDateTimeField``).
    public var writesISO8601DateTimes: Bool {
        switch format {
        case .csv(let csv): csv.dateTimeFormat == .iso8601
        case .json(let json): json.dateTimeFormat == .iso8601
        case .xml(let xml): xml.format == .records && xml.dateTimeFormat == .iso8601
        case .sqlite, .postgres, .mysql, .instance: false
        }
    }

    /// Whether this output cannot store text holding NUL (U+0000): PostgreSQL's text types cannot, so a
    /// record with such a value is rejected before any output sees it (``TablePlan/refusesNUL``).
    public var refusesNUL: Bool {
        if case .postgres = format { return true }
        return false
    }

    /// Whether this output writes into another instance (a migration: every field's stored value).
    public var isInstance: Bool {
        if case .instance = format { return true }
        return false
    }

    /// What an output needs of a table's plan (``TablePlanner``).
    public struct PlanNeeds: OptionSet, Sendable, Hashable {
        public let rawValue: Int
        public init(rawValue: Int) { self.rawValue = rawValue }
        /// The unload columns of an XML unload.
        public static let unloadColumns = PlanNeeds(rawValue: 1 << 0)
        /// Columns typed from the dictionary (a database).
        public static let typedColumns = PlanNeeds(rawValue: 1 << 1)
        /// Every field's stored value (a migration into another instance).
        public static let migrationFields = PlanNeeds(rawValue: 1 << 2)
        /// The date-time fields marked, for ISO 8601 date-times.
        public static let iso8601DateTimes = PlanNeeds(rawValue: 1 << 3)
        /// Records with NUL in a value rejected before any output sees them.
        public static let refusesNUL = PlanNeeds(rawValue: 1 << 4)
    }

    /// What this output needs of the plan: the one question the engine asks an output before it plans.
    public var planNeeds: PlanNeeds {
        var needs: PlanNeeds = []
        if isUnload { needs.insert(.unloadColumns) }
        if isDatabase { needs.insert(.typedColumns) }
        if isInstance { needs.insert(.migrationFields) }
        if writesISO8601DateTimes { needs.insert(.iso8601DateTimes) }
        if refusesNUL { needs.insert(.refusesNUL) }
        return needs
    }

    /// Whether this output writes files of the run (not a database, not an instance): what goes beside
    /// it (dead letters) goes into its directory.
    public var writesFiles: Bool { !isDatabase && !isInstance }

    /// Creates a spec.
    public init(format: Format, options: FileSinkOptions) {
        self.format = format
        self.options = options
    }

    /// The database a database output loads, `nil` for the other outputs.
    public var database: DatabaseSink.Database? {
        switch format {
        case .sqlite(let sqlite): .sqlite(sqlite, file: options)
        case .postgres(let postgres): .postgres(postgres)
        case .mysql(let mysql): .mysql(mysql)
        case .csv, .xml, .json, .instance: nil
        }
    }

    /// A new sink for this output; an instance output's gets `maps`, the run's maps of coalesced tables.
    public func makeSink(maps: InstanceMaps = InstanceMaps()) -> any RecordSink {
        if let database { return DatabaseSink(database) }
        switch format {
        case .csv(let csv): return CSVSink(options: options, csv: csv)
        case .xml(let xml): return XMLSink(options: options, xml: xml)
        case .json(let json): return JSONSink(options: options, json: json)
        case .sqlite, .postgres, .mysql: preconditionFailure("a database output's sink is made above")
        case .instance(let instance): return InstanceSink(options: instance, maps: maps)
        }
    }
}
