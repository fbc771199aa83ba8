import NowSQLite

extension Database {
    /// The seed of the schema rows' sys_ids: fixed, so every fresh database has the same schema rows.
    static let schemaSeed: UInt64 = 0x6E6F_7773_696D_0001

    /// Roles every fresh database has (`sys_user_role`), with their descriptions.
    static let standardRoles: [(name: String, description: String)] = [
        ("admin", "System administrator: full access to every table and record."),
        ("itil", "Fulfiller: works incidents, problems and changes."),
        ("itil_admin", "Administers ITIL processes."),
        ("rest_service", "Access to the REST APIs."),
        ("snc_platform_rest_api_access", "Access to the platform REST APIs (Table API and friends)."),
        ("web_service_admin", "Administers web services."),
    ]

    /// Inserts the `sys_db_object`, `sys_dictionary` and `sys_choice` rows describing every built-in
    /// table, and the standard roles.
    ///
    /// The sys_ids come from one stream in a fixed order, so every fresh database has the same schema
    /// rows. Tables and columns added after layout version 2 (`StandardSchema.laterTables`,
    /// `laterColumns`) draw from streams of their own, named after them, so that the rows of the
    /// older tables keep the sys_ids they had.
    static func insertSchemaRows(on connection: SQLiteConnection) throws {
        var random = SeedRandom(seed: schemaSeed)
        var tableIDs: [String: SysIDBits] = [:]
        for table in StandardSchema.tables where !StandardSchema.laterTables.contains(table.name) {
            tableIDs[table.name] = random.sysID()
        }
        for table in StandardSchema.tables where StandardSchema.laterTables.contains(table.name) {
            var own = SeedRandom(seed: schemaSeed, stream: table.name)
            tableIDs[table.name] = own.sysID()
        }

        var tables = try SchemaRowWriter(connection: connection, table: "sys_db_object")
        for table in StandardSchema.tables {
            guard let tableID = tableIDs[table.name] else { continue }
            tables.begin(sysID: tableID)
            tables.set("name", table.name)
            tables.set("label", table.label)
            if let parent = table.superClass, let parentID = tableIDs[parent] {
                tables.set("super_class", parentID.string)
            }
            tables.set("is_extendable", table.extendable ? "true" : "false")
            tables.set("sys_scope", "global")
            tables.set("access", "public")
            try tables.insert()
        }

        var rows = try DictionaryRowWriters(connection: connection)
        for table in StandardSchema.tables {
            if StandardSchema.laterTables.contains(table.name) {
                var own = SeedRandom(seed: schemaSeed, stream: table.name + "#dictionary")
                try rows.insert(table, &own)
            } else {
                try rows.insert(table, &random)
            }
        }
        var roles = try SchemaRowWriter(connection: connection, table: "sys_user_role")
        for role in standardRoles {
            roles.begin(sysID: random.sysID())
            roles.set("name", role.name)
            roles.set("description", role.description)
            roles.set("elevated_privilege", "false")
            try roles.insert()
        }
    }

    /// The `sys_dictionary` and `sys_choice` writers of `insertSchemaRows`.
    private struct DictionaryRowWriters {
        var dictionary: SchemaRowWriter
        var choices: SchemaRowWriter

        init(connection: SQLiteConnection) throws {
            dictionary = try SchemaRowWriter(connection: connection, table: "sys_dictionary")
            choices = try SchemaRowWriter(connection: connection, table: "sys_choice")
        }

        /// The collection row of `table`, a row per column and the choices, drawing sys_ids from
        /// `random` (a later column from its own stream).
        mutating func insert(_ table: TableSpec, _ random: inout SeedRandom) throws {
            dictionary.begin(sysID: random.sysID())
            dictionary.set("name", table.name)
            dictionary.set("column_label", table.label)
            dictionary.set("internal_type", "collection")
            dictionary.set("max_length", "40")
            dictionary.setFlags(mandatory: false, readOnly: false, display: false, primary: false, unique: false)
            try dictionary.insert()

            for column in table.columns {
                if StandardSchema.laterColumns.contains("\(table.name).\(column.element)") {
                    var own = SeedRandom(seed: schemaSeed, stream: "\(table.name).\(column.element)")
                    try insert(column, of: table.name, &own)
                } else {
                    try insert(column, of: table.name, &random)
                }
            }
            for override in table.choiceOverrides {
                try insertChoices(
                    override.choices, table: table.name, element: override.element, into: &choices, &random)
            }
        }

        private mutating func insert(_ column: ColumnSpec, of table: String, _ random: inout SeedRandom) throws {
            dictionary.begin(sysID: random.sysID())
            dictionary.set("name", table)
            dictionary.set("element", column.element)
            dictionary.set("column_label", column.label)
            dictionary.set("internal_type", column.internalType)
            dictionary.set("max_length", String(column.maxLength))
            dictionary.set("reference", column.reference)
            dictionary.set("default_value", column.defaultValue)
            dictionary.set("dependent", column.dependent)
            dictionary.set("dependent_on_field", column.dependentOnField)
            dictionary.set("choice", column.choices.isEmpty ? nil : String(column.choiceMode))
            dictionary.setFlags(
                mandatory: column.mandatory, readOnly: column.readOnly, display: column.display,
                primary: column.element == "sys_id", unique: column.element == "sys_id" || column.unique)
            try dictionary.insert()
            try insertChoices(column.choices, table: table, element: column.element, into: &choices, &random)
        }
    }

    private static func insertChoices(
        _ list: [ChoiceSpec], table: String, element: String, into writer: inout SchemaRowWriter,
        _ random: inout SeedRandom
    ) throws {
        for (offset, choice) in list.enumerated() {
            writer.begin(sysID: random.sysID())
            writer.set("name", table)
            writer.set("element", element)
            writer.set("value", choice.value)
            writer.set("label", choice.label)
            writer.set("sequence", String(offset + 1))
            writer.set("inactive", "false")
            writer.set("language", "en")
            writer.set("dependent_value", choice.dependentValue)
            try writer.insert()
        }
    }
}

/// Writes schema rows by column name, filling in the system fields.
private struct SchemaRowWriter {
    private var writer: RowWriter
    private let className: String

    init(connection: SQLiteConnection, table: String) throws {
        className = table
        writer = try RowWriter(
            connection: connection, table: StandardSchema.root(of: table),
            columns: StandardSchema.storageColumns(root: StandardSchema.root(of: table)))
    }

    mutating func begin(sysID: SysIDBits) {
        writer.set(writer.requiredSlot("sys_id"), sysID: sysID)
        set("sys_created_on", Database.schemaTimestamp)
        set("sys_created_by", "system")
        set("sys_updated_on", Database.schemaTimestamp)
        set("sys_updated_by", "system")
        set("sys_mod_count", "0")
        set("sys_class_name", className)
        set("sys_domain", "global")
        set("sys_domain_path", "/")
    }

    mutating func set(_ column: String, _ value: String?) {
        writer.set(writer.requiredSlot(column), value)
    }

    mutating func setFlags(mandatory: Bool, readOnly: Bool, display: Bool, primary: Bool, unique: Bool) {
        set("mandatory", mandatory ? "true" : "false")
        set("read_only", readOnly ? "true" : "false")
        set("display", display ? "true" : "false")
        set("primary", primary ? "true" : "false")
        set("unique", unique ? "true" : "false")
        set("active", "true")
    }

    mutating func insert() throws { try writer.insert() }
}
