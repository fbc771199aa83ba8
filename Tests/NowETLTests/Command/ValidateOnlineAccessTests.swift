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
}
