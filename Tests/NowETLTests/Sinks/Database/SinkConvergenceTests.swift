import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// A reporting copy stays equal to the source (``ConvergenceScenarios``) in SQLite, PostgreSQL
/// and MariaDB: prune of full and incremental tables, soft deletes, backfill of an added column,
/// `--full-refresh`.
@Suite(.serialized, .timeLimit(.minutes(10))) struct SinkConvergenceTests {
    /// About a tenth of nowsim's seeded incidents are active.
    static let incidents = 300

    /// One scenario of ``ConvergenceScenarios``.
    enum Scenario: String, CaseIterable, CustomTestStringConvertible {
        case fullTable, incrementalTable, fullRefresh

        var testDescription: String { rawValue }

        func run(
            _ sim: NowSimInstance, output: String, environment: [String: String] = [:], in directory: URL,
            query: ConvergenceScenarios.Query
        ) async throws {
            switch self {
            case .fullTable:
                try await ConvergenceScenarios.fullTable(
                    sim, output: output, environment: environment, in: directory, query: query)
            case .incrementalTable:
                try await ConvergenceScenarios.incrementalTable(
                    sim, output: output, environment: environment, in: directory, query: query)
            case .fullRefresh:
                try await ConvergenceScenarios.fullRefresh(
                    sim, output: output, environment: environment, in: directory, query: query)
            }
        }
    }

    @Test(arguments: Scenario.allCases) func sqlite(_ scenario: Scenario) async throws {
        try await DatabaseEndToEnd.withSimRun(incidents: Self.incidents, seedValue: 11, "converge") { sim, directory in
            try await scenario.run(sim, output: #"sqlite: { path: "report.db""#, in: directory) { sql in
                // A reader waits out the writer's COMMIT (and its checkpoint) as an application would.
                let result = try await SinkTestSupport.run(
                    "sqlite3", ["-batch", "-cmd", ".timeout 10000", directory.path + "/out/report.db", sql])
                guard result.status == 0 else { throw QueryFailure(message: result.stderr) }
                return String(decoding: result.stdout, as: UTF8.self)
            }
        }
    }

    @Test(arguments: Scenario.allCases) func postgres(_ scenario: Scenario) async throws {
        try await DatabaseEndToEnd.withPostgresRun(incidents: Self.incidents, seedValue: 11, "pgConverge") {
            sim, database, directory in
            try await scenario.run(
                sim, output: "postgres: { url: \"\(database.url)\", password: \"${PG_PASSWORD}\"",
                environment: ["PG_PASSWORD": database.password], in: directory, query: database.psql)
        }
    }

    @Test(arguments: Scenario.allCases) func mariadb(_ scenario: Scenario) async throws {
        try await withMariaDBDatabase { database in
            try await DatabaseEndToEnd.withSimRun(incidents: Self.incidents, seedValue: 11, "myConverge") {
                sim, directory in
                try await scenario.run(
                    sim, output: "mysql: { url: \"\(database.url)\", password: \"${MYSQL_PASSWORD}\"",
                    environment: ["MYSQL_PASSWORD": database.password], in: directory
                ) { sql in
                    try await database.sql(sql).replacingOccurrences(of: "\t", with: "|")
                }
            }
        }
    }

    /// A query the database's client refused.
    struct QueryFailure: Error {
        let message: String
    }
}
