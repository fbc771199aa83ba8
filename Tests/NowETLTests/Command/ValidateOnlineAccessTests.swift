import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// `validate --online` checks what `run` would otherwise find out only when it gets there: read access
/// to `sys_audit_delete` for a table with `deletes: true`, and each server database output's connection
/// (credentials, database, the right to create its schema) — exit codes as `run`'s, nothing written.
@Suite(.serialized, .timeLimit(.minutes(5))) struct ValidateOnlineAccessTests {
    static let incremental =
        "  - table: incident\n    mode: incremental\n    deletes: true\n    fields: [sys_id, number]\n"

    @Test func aUserWhoMayNotReadSysAuditDeleteIsExit77WithTheRemedy() async throws {
        let server = try await ETLServers.get(fault: "status:code=403,table=sys_audit_delete")
        let (directory, path) = try TemporaryPipeline.online(
            tableYAML: Self.incremental, outputYAML: #"  - csv: { path: "{table}-{run_id}.csv" }"#)
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
        #expect(code == 77, "\(captured.standardError)")
        #expect(captured.standardError.contains("table incident"), "\(captured.standardError)")
        #expect(captured.standardError.contains("deletes: true reads sys_audit_delete"), "\(captured.standardError)")
        #expect(captured.standardOutput.isEmpty)
    }

    /// A migration's target: validate signs in to it and runs run's pre-flight (each table read there),
    /// and says so; a target user who may not read a table is exit 77 naming the user, the table and the
    /// ACL, before anything is written.
    @Test func aMigrationTargetIsSignedInToAndPreflighted() async throws {
        typealias EndToEnd = SinkInstanceEndToEndTests
        let targetArguments =
            EndToEnd.targetArguments + ["--user", "clerk:clerk-Pw0rd:itil", "--table-acl", "incident=admin"]
        try await withNowSim(arguments: EndToEnd.sourceArguments) { source in
            try await withNowSim(arguments: targetArguments, logRequests: true) { target in
                try await EndToEnd.withScratch("validateTarget") { directory in
                    let path = directory.appendingPathComponent("p.yaml").path
                    try EndToEnd.pipeline(source, target, tables: ["incident"], in: directory)
                    let (code, captured) = await InProcessNowETL.run(["validate", path, "--online"], environment: [:])
                    #expect(code == 0, "\(captured.standardError)")
                    #expect(
                        captured.standardOutput.contains(
                            "; signed in to the target \(target.baseURL.absoluteString), pre-flight run"),
                        "\(captured.standardOutput)")
                    try EndToEnd.pipeline(source, target, tables: ["incident"], user: "clerk", in: directory)
                    let (refused, streams) = await InProcessNowETL.run(
                        ["validate", path, "--online"], environment: [:])
                    #expect(refused == 77, "\(streams.standardError)")
                    #expect(
                        streams.standardError.contains(
                            "the target instance denied user clerk read access to table incident: HTTP 403"),
                        "\(streams.standardError)")
                    #expect(streams.standardError.contains("read ACLs of table incident allow"))
                    #expect(streams.standardOutput.isEmpty)
                    #expect(EndToEnd.writes(target).isEmpty, "validate writes nothing")
                }
            }
        }
    }

    @Test func theDatabaseOutputsAreConnectedToAndARefusedPasswordIsExit77() async throws {
        let server = try await ETLServers.get()
        try await withPostgresDatabase { database in
            for (password, expected) in [(database.password, Int32(0)), ("wr0ng-Secret", 77)] {
                let output = "  - postgres: { url: \"\(database.url)\", password: \"\(password)\", schema: reports }"
                let (directory, path) = try TemporaryPipeline.online(tableYAML: Self.incremental, outputYAML: output)
                defer { try? FileManager.default.removeItem(at: directory) }
                let (code, captured) = await InProcessNowETL.run(
                    ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
                #expect(code == expected, "\(captured.standardError)")
                #expect(!captured.standardError.contains("wr0ng-Secret"))
                if expected == 0 {
                    #expect(captured.standardOutput.contains("; connected to "), "\(captured.standardOutput)")
                }
            }
            // The schema was created in a transaction rolled back: nothing is left.
            #expect(
                try await database.psql("SELECT count(*) FROM pg_namespace WHERE nspname = 'reports'") == "0\n")
        }
    }

    /// A user that may connect and use the schema but not create tables in it passes a connection check
    /// and fails a run's first load: validate --online creates, writes and rolls back a probe table, so
    /// it fails now (77, naming the right), and leaves nothing when the rights are there.
    @Test func theDatabaseRightsARunNeedsAreCheckedAndNothingIsLeft() async throws {
        let server = try await ETLServers.get()
        try await withPostgresDatabase { database in
            let role = "looker_" + database.name.suffix(8)
            _ = try await database.psql(
                "CREATE SCHEMA reports; CREATE ROLE \(role) LOGIN PASSWORD 'Look3r-pass'; "
                    + "GRANT USAGE ON SCHEMA reports TO \(role)")
            let url = database.url.replacingOccurrences(
                of: "://[^@/]+@", with: "://\(role)@", options: .regularExpression)
            #expect(url != database.url)
            for (user, target, password, expected) in [
                (role, url, "Look3r-pass", Int32(77)), ("the owner", database.url, database.password, 0),
            ] {
                let output = "  - postgres: { url: \"\(target)\", password: \"\(password)\", schema: reports }"
                let (directory, path) = try TemporaryPipeline.online(tableYAML: Self.incremental, outputYAML: output)
                defer { try? FileManager.default.removeItem(at: directory) }
                let (code, captured) = await InProcessNowETL.run(
                    ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
                #expect(code == expected, "\(user): \(captured.standardError)")
                if expected == 77 {
                    #expect(captured.standardError.contains("permission denied"), "\(captured.standardError)")
                }
            }
            #expect(
                try await database.psql(
                    "SELECT count(*) FROM pg_tables WHERE tablename LIKE '\\_nowetl\\_probe%'") == "0\n")
        }
        try await withMariaDBDatabase { database in
            let output = "  - mysql: { url: \"\(database.url)\", password: \"\(database.password)\" }"
            let (directory, path) = try TemporaryPipeline.online(tableYAML: Self.incremental, outputYAML: output)
            defer { try? FileManager.default.removeItem(at: directory) }
            let (code, captured) = await InProcessNowETL.run(
                ["validate", path, "--online"], environment: TemporaryPipeline.environment(server))
            #expect(code == 0, "\(captured.standardError)")
            #expect(captured.standardOutput.contains("; connected to "), "\(captured.standardOutput)")
            #expect(try await database.sql("SHOW TABLES") == "", "the probe table was dropped")
        }
    }
}
