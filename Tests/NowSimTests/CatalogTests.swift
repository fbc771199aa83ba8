import Foundation
import NowSQLite
import NowSim
import Testing

/// A fresh nowsim database in the temporary directory, removed when the test ends.
final class TemporaryDatabase {
    let path = Database.temporaryPath()

    init(create: Bool = true) throws {
        if create { try Database.create(at: path) }
    }

    deinit { Database.remove(at: path) }

    func connection() throws -> SQLiteConnection { try SQLiteConnection(path: path) }
}

extension SQLiteConnection {
    /// All rows of `sql` as text (NULL as nil).
    func rows(_ sql: String) throws -> [[String?]] {
        try withStatement(sql, cached: false) { statement in
            var result: [[String?]] = []
            while try statement.step() {
                result.append((0..<statement.columnCount).map { statement.text($0) })
            }
            return result
        }
    }

    /// The first column of the first row of `sql` as an integer.
    func count(_ sql: String) throws -> Int {
        try withStatement(sql, cached: false) { statement in try statement.step() ? statement.integer(0) : -1 }
    }
}

@Suite(.timeLimit(.minutes(5))) struct CatalogTests {
    let database: TemporaryDatabase
    let connection: SQLiteConnection
    let catalog: Catalog

    init() throws {
        database = try TemporaryDatabase()
        connection = try database.connection()
        catalog = try Catalog.load(from: connection)
    }

    @Test func listsTheStandardTables() {
        for name in [
            "task", "incident", "problem", "change_request", "sys_user", "sys_user_group", "core_company",
            "cmn_location", "cmdb_ci", "cmdb_ci_server", "sys_db_object", "sys_dictionary", "sys_choice",
            "sys_user_role", "sys_user_has_role", "sys_user_grmember",
        ] {
            #expect(catalog.table(name) != nil, "missing \(name)")
        }
        #expect(catalog.tableNames == catalog.tableNames.sorted())
        #expect(catalog.table("no_such_table") == nil)
    }

    @Test func incidentInheritsFromTask() throws {
        let incident = try #require(catalog.table("incident"))
        #expect(incident.superClass == "task")
        #expect(incident.storageTable == "task")
        #expect(!incident.isRoot)
        let number = try #require(incident.column("number"))
        #expect(number.definedOn == "task")
        #expect(number.internalType == "string")
        #expect(number.maxLength == 40)
        let caller = try #require(incident.column("caller_id"))
        #expect(caller.definedOn == "incident")
        #expect(caller.reference == "sys_user")
        #expect(caller.isReference)
        #expect(incident.column("sys_id")?.definedOn == "task")
        #expect(incident.column("sys_id")?.internalType == "GUID")
        #expect(incident.columns.map(\.element) == incident.columns.map(\.element).sorted())
        // problem columns are not incident columns, although they share the physical table.
        #expect(incident.column("known_error") == nil)
        #expect(catalog.table("task")?.column("caller_id") == nil)
        #expect(catalog.storageColumns("task").contains("known_error"))
        #expect(catalog.storageColumns("task").contains("caller_id"))
    }

    @Test func rootTablesCarryTheSystemFields() throws {
        for name in ["task", "sys_user", "cmdb_ci", "sys_dictionary", "sys_choice", "sys_db_object"] {
            let table = try #require(catalog.table(name))
            #expect(table.isRoot)
            #expect(table.storageTable == name)
            for field in [
                "sys_id", "sys_created_on", "sys_created_by", "sys_updated_on", "sys_updated_by", "sys_mod_count",
                "sys_class_name", "sys_tags", "sys_domain", "sys_domain_path",
            ] {
                #expect(table.column(field)?.definedOn == name, "\(name).\(field)")
            }
        }
        let task = try #require(catalog.table("task"))
        #expect(task.column("sys_created_on")?.comparison == .dateTime)
        #expect(task.column("sys_mod_count")?.comparison == .number)
        #expect(task.column("active")?.comparison == .boolean)
        #expect(task.column("short_description")?.comparison == .text)
        #expect(task.column("business_duration")?.comparison == .dateTime)
        #expect(task.column("sys_domain")?.reference == "sys_user_group")
        #expect(task.column("sys_domain")?.isReference == false)
        #expect(catalog.table("cmn_location")?.column("latitude")?.comparison == .number)
    }

    @Test(arguments: [
        ("incident", "number"), ("task", "number"), ("sys_user", "name"), ("sys_user_group", "name"),
        ("core_company", "name"), ("cmdb_ci_server", "name"), ("sys_db_object", "label"), ("sys_choice", "label"),
        ("sys_dictionary", "name"), ("sys_user_has_role", "sys_id"),
    ])
    func displayFields(table: String, field: String) {
        #expect(catalog.table(table)?.displayField == field)
    }

    @Test func classNamesIncludeDescendants() throws {
        let task = try #require(catalog.table("task"))
        #expect(task.classNames.first == "task")
        #expect(Set(task.classNames) == ["task", "incident", "problem", "change_request"])
        #expect(catalog.table("incident")?.classNames == ["incident"])
        #expect(catalog.table("cmdb_ci")?.classNames == ["cmdb_ci", "cmdb_ci_server"])
        #expect(catalog.table("cmdb_ci_server")?.storageTable == "cmdb_ci")
    }

    @Test func choiceLabelsFollowTheSuperClassChain() {
        // incident defines its own state choices...
        #expect(catalog.choiceLabel(table: "incident", element: "state", value: "6") == "Resolved")
        #expect(catalog.choiceLabel(table: "incident", element: "state", value: "8") == "Canceled")
        // ... which replace task's list rather than merging with it.
        #expect(catalog.choiceLabel(table: "incident", element: "state", value: "4") == nil)
        #expect(catalog.choiceLabel(table: "task", element: "state", value: "4") == "Closed Incomplete")
        #expect(catalog.choiceLabel(table: "change_request", element: "state", value: "-5") == "New")
        #expect(catalog.choiceLabel(table: "problem", element: "state", value: "107") == "Closed")
        // priority is only on task: inherited by every child.
        #expect(catalog.choiceLabel(table: "incident", element: "priority", value: "1") == "1 - Critical")
        #expect(catalog.choiceLabel(table: "problem", element: "priority", value: "5") == "5 - Planning")
        #expect(catalog.choiceLabel(table: "incident", element: "impact", value: "2") == "2 - Medium")
        #expect(catalog.choiceLabel(table: "incident", element: "category", value: "inquiry") == "Inquiry / Help")
        #expect(
            catalog.choiceLabel(table: "cmdb_ci_server", element: "operational_status", value: "1") == "Operational")
        #expect(catalog.choiceLabel(table: "incident", element: "short_description", value: "1") == nil)
        #expect(catalog.choiceValue(table: "incident", element: "state", label: "In Progress") == "2")
        #expect(catalog.choiceValue(table: "incident", element: "state", label: "in progress") == "2")
        #expect(catalog.choiceValue(table: "incident", element: "priority", label: "3 - Moderate") == "3")
        #expect(catalog.choiceValue(table: "incident", element: "state", label: "Nope") == nil)
        #expect(catalog.choices(table: "incident", element: "urgency").map(\.value) == ["1", "2", "3"])
        #expect(catalog.table("incident")?.column("state")?.hasChoices == true)
        #expect(catalog.table("incident")?.column("short_description")?.hasChoices == false)
    }

    @Test func schemaTablesDescribeThemselves() throws {
        // The collection row of every table, with an empty element.
        #expect(
            try connection.count(
                "SELECT count(*) FROM sys_dictionary WHERE name = 'sys_dictionary' AND element IS NULL AND internal_type = 'collection'"
            ) == 1)
        #expect(
            try connection.count("SELECT count(*) FROM sys_dictionary WHERE internal_type = 'collection'")
                == catalog.tableNames.count)
        // Inherited columns live only on the ancestor.
        #expect(
            try connection.count("SELECT count(*) FROM sys_dictionary WHERE name = 'incident' AND element = 'number'")
                == 0)
        #expect(
            try connection.count("SELECT count(*) FROM sys_dictionary WHERE name = 'task' AND element = 'number'") == 1)
        // super_class is the parent's sys_id.
        let rows = try connection.rows(
            """
            SELECT parent.name FROM sys_db_object child JOIN sys_db_object parent ON parent.sys_id = child.super_class
            WHERE child.name = 'incident'
            """)
        #expect(rows == [["task"]])
        #expect(
            try connection.count("SELECT count(*) FROM sys_db_object WHERE name = 'task' AND super_class IS NULL") == 1)
        // Every physical table has the contracted shape.
        for root in Database.storageTables {
            let columns = try connection.rows("SELECT name, type, \"notnull\" FROM pragma_table_info('\(root)')")
            #expect(columns.allSatisfy { $0[1] == "TEXT" }, "\(root)")
            #expect(columns.contains { $0[0] == "sys_id" && $0[2] == "1" })
            #expect(columns.contains { $0[0] == "sys_class_name" })
            let indexed = try connection.rows(
                "SELECT ii.name FROM pragma_index_list('\(root)') il, pragma_index_info(il.name) ii"
            ).compactMap { $0[0] }
            for column in ["sys_id", "sys_updated_on", "sys_created_on", "sys_class_name"] {
                #expect(indexed.contains(column), "\(root) lacks an index on \(column)")
            }
            #expect(Set(columns.compactMap { $0[0] }) == Set(catalog.storageColumns(root)), "\(root)")
        }
        #expect(try connection.count("SELECT count(*) FROM pragma_index_list('task') WHERE \"unique\" = 1") == 1)
    }

    @Test func createIsIdempotentAndRefusesForeignFiles() throws {
        let before = try connection.count("SELECT count(*) FROM sys_dictionary")
        try Database.create(at: database.path)
        #expect(try connection.count("SELECT count(*) FROM sys_dictionary") == before)

        let foreign = try TemporaryDatabase(create: false)
        try foreign.connection().execute("CREATE TABLE something_else (x TEXT)")
        #expect(throws: DatabaseError.self) { try Database.create(at: foreign.path) }
    }

    @Test func freshDatabasesAreIdentical() throws {
        let other = try TemporaryDatabase()
        let sql = "SELECT * FROM sys_dictionary ORDER BY rowid"
        #expect(try other.connection().rows(sql) == connection.rows(sql))
    }

    @Test func loadFailsWithoutSchemaTables() throws {
        let empty = try TemporaryDatabase(create: false)
        #expect(throws: CatalogError.self) { try Catalog.load(from: empty.connection()) }
    }
}
