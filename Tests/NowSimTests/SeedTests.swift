import Foundation
import NowSQLite
import NowSim
import Testing

/// FNV-1a over every row of every physical table, in rowid order (NULL distinct from "").
private func fingerprint(_ connection: SQLiteConnection) throws -> UInt64 {
    var hash: UInt64 = 0xcbf2_9ce4_8422_2325
    func mix(_ byte: UInt8) {
        hash ^= UInt64(byte)
        hash = hash &* 0x100_0000_01b3
    }
    for table in Database.storageTables {
        for byte in table.utf8 { mix(byte) }
        try connection.withStatement("SELECT * FROM \"\(table)\" ORDER BY rowid", cached: false) { statement in
            while try statement.step() {
                for column in 0..<statement.columnCount {
                    if statement.isNull(column) {
                        mix(0xFF)
                    } else {
                        statement.withUTF8(column) { for byte in $0 { mix(byte) } }
                        mix(0xFE)
                    }
                }
                mix(0xFD)
            }
        }
    }
    return hash
}

@Suite(.timeLimit(.minutes(5))) struct SeedPlanTests {
    @Test func parsesEntries() throws {
        let plan = try SeedPlan(parsing: "incident=1000, sys_user = 50,problem=1_000,cmdb_ci=0")
        #expect(plan.count(for: "incident") == 1000)
        #expect(plan.count(for: "sys_user") == 50)
        #expect(plan.count(for: "problem") == 1000)
        #expect(plan.count(for: "cmdb_ci") == 0)
        #expect(plan.count(for: "change_request") == nil)
        #expect(plan.entries.map(\.table) == ["incident", "sys_user", "problem", "cmdb_ci"])
        #expect(plan.description == "incident=1000,sys_user=50,problem=1000,cmdb_ci=0")
    }

    @Test(arguments: [
        ("", "empty"),
        ("incident", "expected TABLE=N"),
        ("incident=", "not a whole number"),
        ("incident=abc", "not a whole number"),
        ("incident=-5", "not a whole number"),
        ("incident=1.5", "not a whole number"),
        ("incident=10,", "expected TABLE=N"),
        ("=10", "table name is missing"),
        ("incidents=10", "cannot be seeded"),
        ("task=10", "seeded as incident, problem or change_request"),
        ("incident=10,incident=20", "named twice"),
        ("incident=999999999999", "between 0 and"),
        ("incident=100000001", "between 0 and"),
    ])
    func rejectsBadPlans(text: String, expected: String) {
        #expect {
            try SeedPlan(parsing: text)
        } throws: { error in
            guard let error = error as? SeedPlanError else { return false }
            return error.description.contains(expected)
        }
    }

    @Test func namesTheUnknownTable() throws {
        let error = try #require(throws: SeedPlanError.self) { try SeedPlan(parsing: "incident=5,sys_usr=3") }
        #expect(error.entry == "sys_usr=3")
        #expect(error.description.contains("sys_user"))
    }
}

@Suite(.timeLimit(.minutes(5))) struct SeedTests {
    static let plan = try! SeedPlan(parsing: "incident=2600,problem=40,change_request=40,sys_user=120")

    @Test func sameSeedGivesIdenticalRows() throws {
        let first = try TemporaryDatabase()
        let second = try TemporaryDatabase()
        let third = try TemporaryDatabase()
        let small = try SeedPlan(parsing: "incident=300,problem=10,change_request=10")
        _ = try Seeder.seed(databaseAt: first.path, plan: small, seedValue: 42)
        _ = try Seeder.seed(databaseAt: second.path, plan: small, seedValue: 42)
        _ = try Seeder.seed(databaseAt: third.path, plan: small, seedValue: 43)
        let a = try fingerprint(first.connection())
        #expect(a == (try fingerprint(second.connection())))
        #expect(a != (try fingerprint(third.connection())))
    }

    @Test func reportCountsDefaultsAndPlan() throws {
        let database = try TemporaryDatabase()
        var progressCalls: [(String, Int)] = []
        let report = try Seeder.seed(
            databaseAt: database.path, plan: try SeedPlan(parsing: "incident=500"), seedValue: 7,
            progress: { progressCalls.append(($0, $1)) })
        #expect(report.rows(for: "incident") == 500)
        for (table, count) in Seeder.defaultCounts { #expect(report.rows(for: table) == count, "\(table)") }
        #expect(report.rows(for: "sys_user_grmember") > 20 * 3)
        #expect(report.rows(for: "problem") == 0)
        #expect(report.rowsPerSecond > 0)
        #expect(report.description.contains("incident"))
        #expect(progressCalls.contains { $0.0 == "incident" && $0.1 == 500 })

        let connection = try database.connection()
        #expect(try connection.count("SELECT count(*) FROM task WHERE sys_class_name = 'incident'") == 500)
        #expect(try connection.count("SELECT count(*) FROM sys_user") == 200)
        #expect(try connection.count("SELECT count(*) FROM cmdb_ci WHERE sys_class_name = 'cmdb_ci_server'") == 100)

        // A second run (same seed value) adds incidents with fresh sys_ids and reuses the existing users,
        // groups and CIs.
        let again = try Seeder.seed(
            databaseAt: database.path, plan: try SeedPlan(parsing: "incident=100"), seedValue: 7)
        #expect(again.rows(for: "sys_user") == 0)
        #expect(again.rows(for: "incident") == 100)
        #expect(try connection.count("SELECT count(*) FROM sys_user") == 200)
        let numbers = try connection.rows(
            "SELECT number FROM task WHERE sys_class_name = 'incident' ORDER BY rowid"
        ).map { $0[0]! }
        #expect(numbers.first == "INC0010001")
        #expect(numbers.last == "INC0010600")
        #expect(Set(numbers).count == 600)
        #expect(try connection.count("SELECT count(DISTINCT sys_id) FROM task") == 600)
        #expect(try Database.nextNumber(for: "incident", connection: connection) == "INC0010601")
        #expect(try Database.nextNumber(for: "problem", connection: connection) == "PRB0040001")
        #expect(try connection.count("SELECT count(DISTINCT name) - count(*) FROM cmdb_ci") == 0)
    }

    @Test func zeroCountKeepsATableEmpty() throws {
        let database = try TemporaryDatabase()
        let report = try Seeder.seed(
            databaseAt: database.path, plan: try SeedPlan(parsing: "incident=50,cmdb_ci=0,cmdb_ci_server=0"),
            seedValue: 1)
        #expect(report.rows(for: "cmdb_ci") == 0)
        let connection = try database.connection()
        #expect(try connection.count("SELECT count(*) FROM cmdb_ci") == 0)
        #expect(try connection.count("SELECT count(*) FROM task WHERE cmdb_ci IS NOT NULL") == 0)
    }

    @Test func referencesResolveToExistingRows() throws {
        let database = try TemporaryDatabase()
        _ = try Seeder.seed(databaseAt: database.path, plan: Self.plan, seedValue: 99)
        let connection = try database.connection()
        let catalog = try Catalog.load(from: connection)
        func dangling(_ table: TableDefinition, _ column: ColumnDefinition) throws -> Int {
            let target = try #require(catalog.table(column.reference!), "\(table.name).\(column.element)")
            let classes = target.classNames.map { "'\($0)'" }.joined(separator: ", ")
            let classFilter = table.classNames.map { "'\($0)'" }.joined(separator: ", ")
            return try connection.count(
                """
                SELECT count(*) FROM "\(table.storageTable)" r
                WHERE r.sys_class_name IN (\(classFilter)) AND r."\(column.element)" IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM "\(target.storageTable)" t
                                WHERE t.sys_id = r."\(column.element)" AND t.sys_class_name IN (\(classes)))
                """)
        }
        var checked = 0
        for name in catalog.tableNames {
            let table = try #require(catalog.table(name))
            for column in table.columns where column.isReference && column.definedOn == name {
                let count = try dangling(table, column)
                #expect(count == 0, "\(name).\(column.element) has \(count) dangling references")
                checked += 1
            }
        }
        #expect(checked > 30)
        // The check itself notices a dangling reference, and a reference to a row of the wrong class.
        let incident = try #require(catalog.table("incident"))
        try connection.execute(
            "UPDATE task SET caller_id = 'ffffffffffffffffffffffffffffffff' WHERE rowid = (SELECT min(rowid) FROM task WHERE sys_class_name = 'incident')"
        )
        #expect(try dangling(incident, incident.column("caller_id")!) == 1)
        try connection.execute(
            "UPDATE task SET problem_id = (SELECT sys_id FROM task WHERE sys_class_name = 'change_request' LIMIT 1) WHERE rowid = (SELECT min(rowid) FROM task WHERE sys_class_name = 'incident')"
        )
        #expect(try dangling(incident, incident.column("problem_id")!) == 1)
        // References are mostly set, sometimes empty.
        let incidents = "FROM task WHERE sys_class_name = 'incident'"
        for (column, low, high) in [("assigned_to", 4, 25), ("cmdb_ci", 4, 20), ("assignment_group", 1, 15)] {
            let empty = try connection.count("SELECT 100 * sum(\(column) IS NULL) / count(*) \(incidents)")
            #expect((low...high).contains(empty), "\(column) empty in \(empty)%")
        }
        #expect(try connection.count("SELECT count(*) \(incidents) AND caller_id IS NULL") == 0)
        #expect(try connection.count("SELECT count(*) \(incidents) AND problem_id IS NOT NULL") > 0)
        // Assignees are members of the assignment group.
        #expect(
            try connection.count(
                """
                SELECT count(*) \(incidents) AND assigned_to IS NOT NULL AND assignment_group IS NOT NULL
                AND NOT EXISTS (SELECT 1 FROM sys_user_grmember m
                                WHERE m."user" = task.assigned_to AND m."group" = task.assignment_group)
                """) == 0)
        // sys_db_object.super_class resolves too (checked above via the catalog's reference columns).
        #expect(try connection.count("SELECT count(*) FROM sys_db_object WHERE super_class IS NOT NULL") >= 4)
    }

    @Test func valuesAreValidChoicesAndConsistent() throws {
        let database = try TemporaryDatabase()
        _ = try Seeder.seed(databaseAt: database.path, plan: Self.plan, seedValue: 5)
        let connection = try database.connection()
        let catalog = try Catalog.load(from: connection)
        for className in ["incident", "problem", "change_request", "cmdb_ci_server", "sys_user"] {
            let table = try #require(catalog.table(className))
            for column in table.columns where column.hasChoices {
                let values = try connection.rows(
                    "SELECT DISTINCT \"\(column.element)\" FROM \"\(table.storageTable)\" WHERE sys_class_name = '\(className)' AND \"\(column.element)\" IS NOT NULL"
                ).compactMap { $0[0] }
                for value in values {
                    #expect(
                        catalog.choiceLabel(table: className, element: column.element, value: value) != nil,
                        "\(className).\(column.element) = \(value) is not a choice")
                }
            }
        }
        let incidents = "FROM task WHERE sys_class_name = 'incident'"
        // State, active, closed_at and resolved_at agree.
        #expect(try connection.count("SELECT count(*) \(incidents) AND state IN ('7','8') AND active != 'false'") == 0)
        #expect(
            try connection.count("SELECT count(*) \(incidents) AND state NOT IN ('7','8') AND active != 'true'") == 0)
        #expect(try connection.count("SELECT count(*) \(incidents) AND state IN ('7','8') AND closed_at IS NULL") == 0)
        #expect(
            try connection.count("SELECT count(*) \(incidents) AND state NOT IN ('7','8') AND closed_at IS NOT NULL")
                == 0)
        #expect(try connection.count("SELECT count(*) \(incidents) AND closed_at <= opened_at") == 0)
        #expect(
            try connection.count("SELECT count(*) \(incidents) AND state IN ('6','7') AND resolved_at IS NULL") == 0)
        #expect(try connection.count("SELECT count(*) \(incidents) AND resolved_at < opened_at") == 0)
        #expect(try connection.count("SELECT count(*) \(incidents) AND state != incident_state") == 0)
        #expect(try connection.count("SELECT count(DISTINCT state) \(incidents)") == 6)
        // Priority follows impact × urgency.
        #expect(
            try connection.count("SELECT count(*) \(incidents) AND CAST(priority AS INTEGER) != impact + urgency - 1")
                == 0)
        #expect(try connection.count("SELECT count(DISTINCT priority) \(incidents)") == 5)
        // System fields.
        #expect(try connection.count("SELECT count(*) \(incidents) AND sys_created_on != opened_at") == 0)
        #expect(try connection.count("SELECT count(*) FROM task WHERE sys_updated_on < sys_created_on") == 0)
        #expect(try connection.count("SELECT count(*) FROM task WHERE sys_updated_on >= '2026-01-01 00:00:00'") == 0)
        #expect(
            try connection.count(
                "SELECT count(*) FROM task WHERE sys_id NOT GLOB '" + String(repeating: "[0-9a-f]", count: 32) + "'")
                == 0)
        #expect(
            try connection.count("SELECT count(*) FROM task WHERE sys_domain != 'global' OR sys_domain_path != '/'")
                == 0)
        #expect(try connection.count("SELECT count(DISTINCT sys_mod_count) \(incidents)") > 10)
        #expect(
            try connection.count(
                "SELECT count(*) \(incidents) AND sys_created_by NOT IN (SELECT user_name FROM sys_user)") == 0)
        #expect(
            try connection.count(
                "SELECT count(*) \(incidents) AND opened_at NOT GLOB '20[0-9][0-9]-[01][0-9]-[0-3][0-9] [0-2][0-9]:[0-5][0-9]:[0-5][0-9]'"
            ) == 0)
        #expect(try connection.count("SELECT count(DISTINCT substr(opened_at, 1, 4)) \(incidents)") == 5)
        #expect(
            try connection.count("SELECT count(*) \(incidents) AND calendar_duration NOT GLOB '1970-0[1-4]-* *:*:*'")
                == 0)
        #expect(
            try connection.count(
                "SELECT count(*) \(incidents) AND number NOT GLOB 'INC[0-9][0-9][0-9][0-9][0-9][0-9][0-9]'") == 0)
        #expect(
            try connection.count(
                "SELECT count(*) FROM task WHERE sys_class_name = 'problem' AND number NOT GLOB 'PRB004*'") == 0)
        #expect(
            try connection.count(
                "SELECT count(*) FROM task WHERE sys_class_name = 'change_request' AND number NOT GLOB 'CHG003*'") == 0)
        // rowid order is insertion order (numbers rising), not sys_id order.
        let ids = try connection.rows("SELECT sys_id \(incidents) ORDER BY rowid LIMIT 200").compactMap { $0[0] }
        #expect(ids != ids.sorted())
        // Dates and decimals elsewhere.
        #expect(
            try connection.count(
                "SELECT count(*) FROM cmdb_ci WHERE purchase_date IS NOT NULL AND purchase_date NOT GLOB '[12][0-9][0-9][0-9]-[01][0-9]-[0-3][0-9]'"
            ) == 0)
        #expect(
            try connection.count(
                "SELECT count(*) FROM cmn_location WHERE latitude NOT GLOB '*.[0-9][0-9][0-9][0-9][0-9][0-9]'") == 0)
    }

    @Test func awkwardTextOccurs() throws {
        let database = try TemporaryDatabase()
        _ = try Seeder.seed(databaseAt: database.path, plan: Self.plan, seedValue: 11)
        let connection = try database.connection()
        let text = "coalesce(short_description, '') || ' ' || coalesce(description, '')"
        let cases: [(String, String)] = [
            ("comma", "instr(short_description, ',') > 0"),
            ("double quote", "instr(\(text), '\"') > 0"),
            ("CRLF", "instr(\(text), char(13, 10)) > 0"),
            ("lone CR", "\(text) GLOB '*' || char(13) || '[^' || char(10) || ']*'"),
            ("LF", "instr(short_description, char(10)) > 0"),
            ("tab", "instr(\(text), char(9)) > 0"),
            ("markup", "instr(\(text), '<') > 0 AND instr(\(text), '&') > 0"),
            ("CDATA end", "instr(\(text), ']]>') > 0"),
            ("Japanese", "instr(\(text), '日本語') > 0"),
            ("Cyrillic", "instr(\(text), 'русский') > 0"),
            ("Arabic", "instr(\(text), 'عربي') > 0"),
            ("Devanagari", "instr(\(text), 'प्रिंटर') > 0"),
            ("ZWJ emoji", "instr(\(text), '👩‍💻') > 0"),
            ("flag emoji", "instr(\(text), '🇩🇪') > 0"),
            ("formula =", "substr(short_description, 1, 1) = '='"),
            ("formula +", "substr(short_description, 1, 1) = '+'"),
            ("formula -", "substr(short_description, 1, 1) = '-'"),
            ("formula @", "substr(short_description, 1, 1) = '@'"),
            ("trailing space", "short_description GLOB '* '"),
            ("leading space", "short_description GLOB ' *'"),
            ("backslash", "instr(\(text), '\\') > 0"),
            ("caret", "instr(\(text), '^OR') > 0"),
            ("long description", "length(description) >= 20000"),
            (
                "XML-invalid control",
                "instr(\(text), char(11)) > 0 OR instr(\(text), char(31)) > 0 OR instr(\(text), char(27)) > 0 OR instr(\(text), char(12)) > 0 OR instr(\(text), char(7)) > 0"
            ),
        ]
        for (name, condition) in cases {
            let rows = try connection.count(
                "SELECT count(*) FROM task WHERE sys_class_name = 'incident' AND (\(condition))")
            #expect(rows > 0, "no incident has \(name)")
        }
        let longest = try connection.count("SELECT max(length(description)) FROM task")
        #expect(longest <= 61_000)
        // Awkward text is a minority: most subjects are plain.
        let plain = try connection.count(
            "SELECT count(*) FROM task WHERE sys_class_name = 'incident' AND short_description GLOB '[A-Z]*' AND instr(short_description, '\"') = 0"
        )
        #expect(plain > 2000)
        // Names in other scripts and with apostrophes.
        #expect(try connection.count("SELECT count(*) FROM sys_user WHERE name GLOB '*[^ -~]*'") > 0)
        #expect(try connection.count("SELECT count(*) FROM core_company WHERE instr(name, ',') > 0") == 1)
    }

    @Test func ensureUserCreatesAdminOnce() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        let id = try Seeder.ensureUser(
            connection: connection, userName: "admin", firstName: "System", lastName: "Administrator",
            roles: ["admin", "itil"])
        #expect(id == "6816f79cc0a8016401c5a33be04be441")
        let again = try Seeder.ensureUser(
            connection: connection, userName: "admin", firstName: "Other", lastName: "Name",
            roles: ["admin", "custom_role"])
        #expect(again == id)
        #expect(try connection.count("SELECT count(*) FROM sys_user WHERE user_name = 'admin'") == 1)
        #expect(
            try connection.rows("SELECT name, active FROM sys_user WHERE user_name = 'admin'") == [
                ["System Administrator", "true"]
            ])
        #expect(try Seeder.roles(connection: connection, userName: "admin") == ["admin", "custom_role", "itil"])
        #expect(try connection.count("SELECT count(*) FROM sys_user_role WHERE name = 'custom_role'") == 1)
        let other = try Seeder.ensureUser(
            connection: connection, userName: "etl.user", firstName: "ETL", lastName: "User")
        #expect(other.count == 32 && other != id)
        #expect(try Seeder.roles(connection: connection, userName: "etl.user") == [])
        // Seeding afterwards keeps the users and tops the table up to the default count.
        let report = try Seeder.seed(
            databaseAt: database.path, plan: try SeedPlan(parsing: "incident=200"), seedValue: 3)
        #expect(report.rows(for: "sys_user") == 198)
        #expect(try connection.count("SELECT count(*) FROM sys_user") == 200)
        #expect(try connection.count("SELECT count(*) FROM sys_user WHERE user_name = 'admin'") == 1)
        #expect(try connection.count("SELECT count(DISTINCT caller_id) FROM task") > 50)
        _ = try Seeder.seed(databaseAt: database.path, plan: try SeedPlan(parsing: "sys_user=5"), seedValue: 3)
        #expect(try connection.count("SELECT count(*) FROM sys_user") == 205)
    }
}

@Suite(.timeLimit(.minutes(5))) struct SeedConcurrencyTests {
    @Test func seedingWorksWhileAnotherConnectionIsOpen() throws {
        let database = try TemporaryDatabase()
        let reader = try database.connection()
        #expect(try reader.count("SELECT count(*) FROM task") == 0)
        let report = try Seeder.seed(
            databaseAt: database.path, plan: try SeedPlan(parsing: "incident=20"), seedValue: 2)
        #expect(report.rows(for: "incident") == 20)
        #expect(try reader.count("SELECT count(*) FROM task") == 20)
        #expect(try reader.rows("PRAGMA journal_mode") == [["wal"]])
    }

    @Test func seedingLeavesTheFileInWALMode() throws {
        let database = try TemporaryDatabase()
        _ = try Seeder.seed(databaseAt: database.path, plan: try SeedPlan(parsing: "sys_user=3"), seedValue: 2)
        #expect(try database.connection().rows("PRAGMA journal_mode") == [["wal"]])
    }
}

@Suite(.timeLimit(.minutes(5))) struct NumberTests {
    @Test func formatsAndNextNumbers() throws {
        let database = try TemporaryDatabase()
        let connection = try database.connection()
        #expect(Database.numberFormat(for: "incident")?.format(10_001) == "INC0010001")
        #expect(Database.numberFormat(for: "change_request")?.format(12_345_678) == "CHG12345678")
        #expect(Database.numberFormat(for: "sys_user") == nil)
        #expect(try Database.nextNumber(for: "sys_user", connection: connection) == nil)
        #expect(try Database.nextNumber(for: "task", connection: connection) == "TASK0010001")
        #expect(try Database.nextNumber(for: "change_request", connection: connection) == "CHG0030001")
        let insert = try connection.prepareWriter(
            "INSERT INTO task (sys_id, sys_class_name, number) VALUES (?, 'incident', ?)")
        for (id, number) in [("a", "INC0010041"), ("b", "INC0010007"), ("c", "INCIDENT-X"), ("d", "PRB0099999")] {
            insert.reset()
            try insert.bind([.text(id), .text(number)])
            try insert.step()
        }
        #expect(try Database.nextNumber(for: "incident", connection: connection) == "INC0010042")
        // Past 7 digits the text order is not numeric; the probe still returns a free number.
        for (id, number) in [("e", "INC9999999"), ("f", "INC10000000"), ("g", "INC10000001")] {
            insert.reset()
            try insert.bind([.text(id), .text(number)])
            try insert.step()
        }
        #expect(try Database.nextNumber(for: "incident", connection: connection) == "INC10000002")
    }
}
