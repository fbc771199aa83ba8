import NowSQLite

/// The tables, columns and choice lists of a nowsim database, read from its `sys_db_object`,
/// `sys_dictionary` and `sys_choice` rows — schema discovery as on an instance (ref §7.4).
///
/// Immutable once loaded, so one catalog is shared by every request thread. A column is inherited
/// from the tables up the `super_class` chain; a child's own dictionary row for the same element
/// wins (the simple form of a dictionary override). A choice list is taken from the nearest table in
/// the chain that has choices for the element, so `incident.state` has Incident's states and
/// `problem.priority` has Task's priorities.
public final class Catalog: Sendable {
    private let tables: [String: TableDefinition]
    private let choiceLists: [String: [String: ChoiceList]]
    private let storageColumnsByTable: [String: [String]]

    /// The names of all tables, sorted.
    public let tableNames: [String]

    private init(
        tables: [String: TableDefinition], choiceLists: [String: [String: ChoiceList]],
        storageColumns: [String: [String]]
    ) {
        self.tables = tables
        self.choiceLists = choiceLists
        self.storageColumnsByTable = storageColumns
        self.tableNames = tables.keys.sorted()
    }

    /// The definition of the table `name`, or `nil` when there is no such table.
    public func table(_ name: String) -> TableDefinition? { tables[name] }

    /// The label of choice `value` of `table.element`, looked up along the `super_class` chain; `nil`
    /// when the column has no choice list or the list has no such value.
    public func choiceLabel(table: String, element: String, value: String) -> String? {
        choiceList(table: table, element: element)?.labelsByValue[value]
    }

    /// The stored value of the choice labelled `label` (for `sysparm_input_display_value`): an exact
    /// label match first, then a case-insensitive one; `nil` when none matches.
    public func choiceValue(table: String, element: String, label: String) -> String? {
        guard let list = choiceList(table: table, element: element) else { return nil }
        return list.valuesByLabel[label] ?? list.valuesByLowercasedLabel[label.lowercased()]
    }

    /// The choices of `table.element` in `sys_choice.sequence` order (empty when it has none).
    public func choices(table: String, element: String) -> [(value: String, label: String)] {
        choiceList(table: table, element: element)?.ordered ?? []
    }

    /// The physical columns of a storage table: the union of the columns of its whole hierarchy.
    public func storageColumns(_ storageTable: String) -> [String] { storageColumnsByTable[storageTable] ?? [] }

    private func choiceList(table: String, element: String) -> ChoiceList? {
        var current: String? = table
        var steps = 0
        while let name = current, steps < 64 {
            if let list = choiceLists[name]?[element] { return list }
            current = tables[name]?.superClass
            steps += 1
        }
        return nil
    }

    /// Reads the catalog from the schema rows of the database behind `connection`.
    ///
    /// - Throws: `CatalogError` when the schema rows are inconsistent (a `super_class` pointing
    ///   nowhere, a cycle) or the file is not a nowsim database; `SQLiteError` when SQLite fails.
    public static func load(from connection: SQLiteConnection) throws -> Catalog {
        let hasSchema = try connection.scalarInteger(
            "SELECT count(*) FROM sqlite_master WHERE type = 'table' AND name IN ('sys_db_object', 'sys_dictionary', 'sys_choice')"
        )
        guard hasSchema == 3 else {
            throw CatalogError(
                table: nil, message: "the database has no sys_db_object/sys_dictionary/sys_choice tables")
        }
        let objects = try readTableRows(connection)
        let dictionary = try readDictionaryRows(connection)
        let choices = try readChoiceRows(connection)
        return try build(objects: objects, dictionary: dictionary, choices: choices)
    }

    // MARK: - Reading rows

    private struct ObjectRow {
        var sysID: String
        var name: String
        var label: String?
        var superClass: String?
    }

    private struct DictionaryRow {
        var table: String
        var element: String?
        var label: String?
        var internalType: String
        var maxLength: Int
        var reference: String?
        var display: Bool
        var choice: Bool
        var defaultValue: String?
        var mandatory: Bool
        var readOnly: Bool
        var unique: Bool
    }

    private struct ChoiceRow {
        var table: String
        var element: String
        var value: String
        var label: String
    }

    private static func readTableRows(_ connection: SQLiteConnection) throws -> [ObjectRow] {
        return try connection.withStatement(
            "SELECT sys_id, name, label, super_class FROM sys_db_object WHERE sys_class_name = 'sys_db_object' ORDER BY rowid",
            cached: false
        ) { statement in
            var rows: [ObjectRow] = []
            while try statement.step() {
                guard let sysID = statement.text(0), let name = statement.text(1), !name.isEmpty else { continue }
                rows.append(
                    ObjectRow(sysID: sysID, name: name, label: statement.text(2), superClass: statement.text(3)))
            }
            return rows
        }
    }

    private static func readDictionaryRows(_ connection: SQLiteConnection) throws -> [DictionaryRow] {
        return try connection.withStatement(
            """
            SELECT name, element, column_label, internal_type, max_length, reference, display, choice,
                   default_value, mandatory, read_only, "unique"
            FROM sys_dictionary WHERE sys_class_name = 'sys_dictionary' ORDER BY rowid
            """, cached: false
        ) { statement in
            var rows: [DictionaryRow] = []
            while try statement.step() {
                guard let table = statement.text(0), !table.isEmpty else { continue }
                let choice = statement.text(7)
                rows.append(
                    DictionaryRow(
                        table: table, element: statement.text(1), label: statement.text(2),
                        internalType: statement.text(3) ?? "string", maxLength: Int(statement.text(4) ?? "") ?? 0,
                        reference: statement.text(5).flatMap { $0.isEmpty ? nil : $0 },
                        display: statement.text(6) == "true", choice: choice != nil && choice != "" && choice != "0",
                        defaultValue: statement.text(8), mandatory: statement.text(9) == "true",
                        readOnly: statement.text(10) == "true", unique: statement.text(11) == "true"))
            }
            return rows
        }
    }

    private static func readChoiceRows(_ connection: SQLiteConnection) throws -> [ChoiceRow] {
        return try connection.withStatement(
            """
            SELECT name, element, value, label FROM sys_choice
            WHERE sys_class_name = 'sys_choice' AND (language IS NULL OR language = 'en')
            ORDER BY name, element, CAST(sequence AS INTEGER), rowid
            """, cached: false
        ) { statement in
            var rows: [ChoiceRow] = []
            while try statement.step() {
                guard let table = statement.text(0), let element = statement.text(1), let value = statement.text(2)
                else { continue }
                rows.append(ChoiceRow(table: table, element: element, value: value, label: statement.text(3) ?? value))
            }
            return rows
        }
    }

    // MARK: - Building definitions

    private static func build(objects: [ObjectRow], dictionary: [DictionaryRow], choices: [ChoiceRow]) throws
        -> Catalog
    {
        var nameBySysID: [String: String] = [:]
        for object in objects { nameBySysID[object.sysID] = object.name }
        var parentOf: [String: String] = [:]
        var labelOf: [String: String] = [:]
        for object in objects {
            if let label = object.label, !label.isEmpty { labelOf[object.name] = label }
            guard let superClass = object.superClass, !superClass.isEmpty else { continue }
            // super_class is a reference (a sys_id); accept a table name too, as hand-made rows have it.
            guard
                let parent = nameBySysID[superClass] ?? (objects.contains { $0.name == superClass } ? superClass : nil)
            else {
                throw CatalogError(
                    table: object.name, message: "super_class \(superClass) is not the sys_id of a sys_db_object row")
            }
            parentOf[object.name] = parent
        }

        var ownColumns: [String: [ColumnDefinition]] = [:]
        var displayOf: [String: String] = [:]
        for row in dictionary {
            guard let element = row.element, !element.isEmpty, row.internalType != "collection" else {
                if labelOf[row.table] == nil, let label = row.label, !label.isEmpty { labelOf[row.table] = label }
                continue
            }
            ownColumns[row.table, default: []].append(
                ColumnDefinition(
                    element: element, label: row.label ?? element, internalType: row.internalType,
                    maxLength: row.maxLength,
                    reference: (row.internalType == "reference" || row.internalType == "domain_id"
                        || row.internalType == "glide_list") ? row.reference : nil,
                    definedOn: row.table, hasChoices: row.choice, defaultValue: row.defaultValue,
                    mandatory: row.mandatory, readOnly: row.readOnly, unique: row.unique && element != "sys_id"))
            if row.display, displayOf[row.table] == nil { displayOf[row.table] = element }
        }

        func chain(_ name: String) throws -> [String] {
            var result = [name]
            var current = name
            while let parent = parentOf[current] {
                if result.contains(parent) {
                    throw CatalogError(table: name, message: "the super_class chain has a cycle at \(parent)")
                }
                result.append(parent)
                current = parent
            }
            return result
        }

        var children: [String: [String]] = [:]
        for object in objects {
            if let parent = parentOf[object.name] { children[parent, default: []].append(object.name) }
        }
        func descendants(_ name: String) -> [String] {
            var result: [String] = []
            var stack = (children[name] ?? []).sorted().reversed().map { $0 }
            while let next = stack.popLast() {
                if result.contains(next) { continue }
                result.append(next)
                stack.append(contentsOf: (children[next] ?? []).sorted().reversed())
            }
            return result
        }

        var definitions: [String: TableDefinition] = [:]
        var storageColumns: [String: [String]] = [:]
        for object in objects where definitions[object.name] == nil {
            let lineage = try chain(object.name)
            var columnsByElement: [String: ColumnDefinition] = [:]
            for table in lineage.reversed() {
                for column in ownColumns[table] ?? [] { columnsByElement[column.element] = column }
            }
            let columns = columnsByElement.values.sorted { $0.element < $1.element }
            let display =
                lineage.lazy.compactMap { displayOf[$0] }.first
                ?? (columnsByElement["name"] != nil ? "name" : columnsByElement["number"] != nil ? "number" : "sys_id")
            let root = lineage.last!
            definitions[object.name] = TableDefinition(
                name: object.name, label: labelOf[object.name] ?? object.name, superClass: parentOf[object.name],
                storageTable: root, columns: columns, displayField: display,
                classNames: [object.name] + descendants(object.name))
            storageColumns[root, default: []].append(contentsOf: columns.map(\.element))
        }
        for (root, columns) in storageColumns {
            var seen: Set<String> = []
            storageColumns[root] = columns.filter { seen.insert($0).inserted }.sorted()
        }

        var lists: [String: [String: ChoiceList]] = [:]
        for row in choices {
            lists[row.table, default: [:]][row.element, default: ChoiceList()].add(row.value, row.label)
        }

        return Catalog(tables: definitions, choiceLists: lists, storageColumns: storageColumns)
    }
}

/// The choices of one column on one table.
private struct ChoiceList: Sendable {
    var ordered: [(value: String, label: String)] = []
    var labelsByValue: [String: String] = [:]
    var valuesByLabel: [String: String] = [:]
    var valuesByLowercasedLabel: [String: String] = [:]

    mutating func add(_ value: String, _ label: String) {
        ordered.append((value, label))
        if labelsByValue[value] == nil { labelsByValue[value] = label }
        if valuesByLabel[label] == nil { valuesByLabel[label] = value }
        let lowered = label.lowercased()
        if valuesByLowercasedLabel[lowered] == nil { valuesByLowercasedLabel[lowered] = value }
    }
}
