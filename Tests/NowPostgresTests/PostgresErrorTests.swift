import Testing

@testable import NowPostgres

@Suite(.timeLimit(.minutes(2)))
struct PostgresErrorTests {
    /// libpq 15's messages for failed connection attempts, as they are printed.
    @Test(arguments: [
        (
            "connection to server at \"127.0.0.1\", port 1 failed: Connection refused\n\tIs the server running on "
                + "that host and accepting TCP/IP connections?", PostgresError.Kind.unreachable
        ),
        ("could not translate host name \"nowhere.invalid\" to address: Name or service not known", .unreachable),
        ("timeout expired", .unreachable),
        (
            "connection to server at \"db\" (10.0.0.1), port 5432 failed: FATAL:  password authentication failed for "
                + "user \"etl\"", .authentication
        ),
        ("FATAL:  role \"ghost\" does not exist", .authentication),
        ("FATAL:  no pg_hba.conf entry for host \"10.0.0.2\", user \"etl\", database \"r\"", .authentication),
        ("fe_sendauth: no password supplied", .authentication),
        ("FATAL:  database \"missing\" does not exist", .missingDatabase),
        (
            "FATAL:  permission denied for database \"r\"\nDETAIL:  User does not have CONNECT privilege.",
            .permissionDenied
        ),
        ("server does not support SSL, but SSL was required", .tls),
        ("FATAL:  the database system is starting up", .connectionLost),
        ("something nobody has seen", .connectionFailed),
    ])
    func connectionFailuresAreClassified(message: String, kind: PostgresError.Kind) {
        #expect(PostgresError.connectionFailureKind(message: message) == kind)
    }

    @Test(arguments: [
        ("28P01", PostgresError.Kind.authentication, Int32(77)), ("28000", .authentication, 77),
        ("3D000", .missingDatabase, 78), ("42501", .permissionDenied, 77), ("40001", .serialization, 75),
        ("40P01", .serialization, 75), ("08006", .connectionLost, 75), ("57P01", .connectionLost, 75),
        ("22P02", .statement, 1), ("23505", .statement, 1), ("57014", .timeout, 75), ("55P03", .timeout, 75),
    ])
    func sqlStatesDecideKindAndExitCode(sqlState: String, kind: PostgresError.Kind, exitCode: Int32) {
        let error = PostgresError(PostgresError.kind(sqlState: sqlState), sqlState: sqlState, message: "m")
        #expect(error.kind == kind)
        #expect(error.exitCode == exitCode)
        #expect(error.isTransient == (exitCode == 75))
    }

    @Test func theDescriptionNamesWhereAndWhat() {
        var error = PostgresError(
            .statement, sqlState: "22P02", message: "invalid input syntax for type integer: \"x\"", host: "db",
            port: 5432, database: "reporting", user: "etl", sql: "COPY t FROM STDIN")
        error.row = 3
        error.column = 2
        error.columnName = "n"
        #expect(
            error.description
                == "PostgreSQL statement failed for user \"etl\" on db:5432/reporting, row 3, column 2 (n) "
                + "[SQLSTATE 22P02]: invalid input syntax for type integer: \"x\" (in: COPY t FROM STDIN)")
    }
}
