import Foundation
import NowPostgres
import NowSimTesting
import Testing

@testable import NowETL

/// What an instance or a database can do to a PostgreSQL load, through the real `nowetl`, nowsim and the
/// throwaway server: text holding NUL (U+0000), which PostgreSQL cannot store, follows the reject policy
/// instead of failing the table's load on every run; a lock held past `lock_timeout_seconds` fails the
/// table as a temporary failure (exit 75) instead of hanging the job.
@Suite(.serialized, .timeLimit(.minutes(8))) struct SinkPostgresHostileInputTests {
    static let seeded = 40

    /// Seeds nowsim, adds one incident whose short_description holds NUL (through the Table API), writes
    /// a pipeline loading it into PostgreSQL, and runs `body` with the NUL record's sys_id.
    static func withNULRecord(
        _ name: String, tableKeys: [String], outputs: [String] = [],
        _ body: (URL, PostgresTestDatabase, String, [String: String]) async throws -> Void
    ) async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: seeded, seedValue: 7, name) { sim, database, directory in
            let json = try JSONSerialization.data(withJSONObject: ["short_description": "before\u{0}after"])
            let response = try await sim.request("POST", "/api/now/table/incident", body: json)
            try #require(response.status == 201, "POST: \(response.status)")
            let sysID = try #require(response.resultObject["sys_id"] as? String)
            let stored = try await sim.request(
                "/api/now/table/incident/\(sysID)", query: [("sysparm_fields", "short_description")])
            try #require(
                stored.resultObject["short_description"] as? String == "before\u{0}after",
                "nowsim keeps the NUL: \(stored.resultObject)")
            try DatabaseEndToEnd.writePipeline(
                sim, tableKeys: tableKeys,
                outputs: [
                    "postgres: { url: \"${PG_URL}\", password: \"${PG_PASSWORD}\", schema: servicenow }"
                ] + outputs, in: directory)
            try await body(
                directory, database, sysID, ["PG_URL": database.url, "PG_PASSWORD": database.password])
        }
    }

    @Test func aNULInATextValueIsDeadLetteredAndTheRestLoadsOnEveryRun() async throws {
        try await Self.withNULRecord(
            "postgresNUL", tableKeys: ["reject: { mode: dead_letter }"], outputs: [#"csv: { path: "{table}.csv" }"#]
        ) { directory, database, sysID, environment in
            for run in 1...2 {
                let result = try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240)
                try #require(result.status == 0, "run \(run): \(result.log)")
                #expect(try await database.psql("SELECT count(*) FROM servicenow.incident") == "\(Self.seeded)\n")
                #expect(
                    try await database.psql("SELECT count(*) FROM servicenow.incident WHERE sys_id = '\(sysID)'")
                        == "0\n")
                let letters = try String(
                    contentsOf: directory.appendingPathComponent("out/incident.rejects.jsonl"), encoding: .utf8)
                #expect(letters.split(separator: "\n").count == 1)
                #expect(letters.contains(sysID) && letters.contains(#"before\u0000after"#), "\(letters)")
                // Every output receives the same records: the CSV file leaves it out too.
                let csv = try String(contentsOf: directory.appendingPathComponent("out/incident.csv"), encoding: .utf8)
                #expect(!csv.contains(sysID) && !csv.contains("before\u{0}after"))
                #expect(!result.log.contains(database.password))
            }
        }
    }

    @Test func underRejectFailTheRunNamesTheRecordTheColumnAndTheProblem() async throws {
        try await Self.withNULRecord("postgresNULFail", tableKeys: []) { directory, database, sysID, environment in
            let result = try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240)
            #expect(result.status == 1, "\(result.log)")
            #expect(
                result.log.contains("record \(sysID): column 'short_description' holds NUL (U+0000)"), "\(result.log)")
            // Shown as \0 (escaped once more by the log's quoting), never as the character itself.
            #expect(result.log.contains(#"before\\u{0}after"#), "\(result.log)")
            #expect(result.log.contains("leave the column out"))
            #expect(!result.log.utf8.contains(0))
        }
    }

    @Test func aLockHeldPastTheLockTimeoutFailsTheTableAsTemporary() async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.seeded, seedValue: 8, "postgresLock") {
            sim, database, directory in
            try DatabaseEndToEnd.writePipeline(
                sim,
                outputs: [
                    "postgres: { url: \"${PG_URL}\", password: \"${PG_PASSWORD}\", schema: servicenow, "
                        + "lock_timeout_seconds: 1 }"
                ], in: directory)
            let environment = ["PG_URL": database.url, "PG_PASSWORD": database.password]
            var result = try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240)
            try #require(result.status == 0, "run 1: \(result.log)")
            // Another session holds the table (a report's transaction someone left open).
            let settings = try PostgresSettings(url: database.url, password: database.password)
            let holder = try await offCooperativePool { try PostgresConnection.connect(settings) }
            try await offCooperativePool {
                try holder.begin()
                try holder.execute("LOCK TABLE servicenow.incident IN ACCESS EXCLUSIVE MODE")
            }
            result = try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240)
            try await offCooperativePool { try holder.rollback() }
            #expect(result.status == 75, "\(result.log)")
            #expect(result.log.contains("incident"))
            #expect(result.log.contains("lock_timeout_seconds"), "\(result.log)")
            #expect(!result.log.contains(database.password))
            // Once the lock is gone, the next run loads.
            result = try await DatabaseEndToEnd.run(directory, environment: environment, timeout: 240)
            #expect(result.status == 0, "run 3: \(result.log)")
        }
    }
}
