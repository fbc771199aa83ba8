import Testing

@testable import NowPostgres

@Suite(.timeLimit(.minutes(2)))
struct PostgresSettingsTests {
    @Test func parsesEveryPart() throws {
        let settings = try PostgresSettings(
            url: "postgres://etl:s3cret@db.example.com:6543/reporting?sslmode=verify-full&sslrootcert=/etc/ca.pem"
                + "&connect_timeout=7&application_name=nightly")
        #expect(settings.host == "db.example.com")
        #expect(settings.port == 6543)
        #expect(settings.database == "reporting")
        #expect(settings.user == "etl")
        #expect(settings.password == "s3cret")
        #expect(settings.sslMode == .verifyFull)
        #expect(settings.sslRootCertificate == "/etc/ca.pem")
        #expect(settings.connectTimeout == 7)
        #expect(settings.applicationName == "nightly")
    }

    @Test func defaultsAndTheOtherScheme() throws {
        let settings = try PostgresSettings(url: "postgresql://etl@localhost/reporting")
        #expect(settings.port == 5432)
        #expect(settings.password == nil)
        #expect(settings.sslMode == .prefer)
        #expect(settings.connectTimeout == 30)
        #expect(settings.sslRootCertificate == nil)
        #expect(settings.statementTimeout == 3600)
        #expect(settings.lockTimeout == 300)
        #expect(settings.keepalives)
    }

    /// Without `sslmode`, a remote server must prove who it is; loopback and sockets stay on the machine.
    @Test(arguments: [
        ("postgres://u@db.example.com/d", PostgresSettings.SSLMode.verifyFull),
        ("postgres://u@10.0.0.5:6432/d", .verifyFull),
        ("postgres://u@[2001:db8::1]/d", .verifyFull),
        ("postgres://u@127.0.0.1/d", .prefer),
        ("postgres://u@127.42.0.9/d", .prefer),
        ("postgres://u@128.0.0.1/d", .verifyFull),
        ("postgres://u@[::1]/d", .prefer),
        ("postgres://u@[::ffff:127.0.0.1]/d", .prefer),
        ("postgres://u@LocalHost/d", .prefer),
        ("postgres://u@localhost.example.com/d", .verifyFull),
        // An explicit sslmode always wins, either way.
        ("postgres://u@db.example.com/d?sslmode=require", .require),
        ("postgres://u@db.example.com/d?sslmode=disable", .disable),
        ("postgres://u@127.0.0.1/d?sslmode=verify-full", .verifyFull),
        ("postgres://u@localhost/d?sslmode=verify-ca", .verifyCA),
    ])
    func sslModeDefaultsToVerifyFullExceptOnTheMachine(url: String, mode: PostgresSettings.SSLMode) throws {
        let settings = try PostgresSettings(url: url)
        #expect(settings.sslMode == mode)
        let parameters = Dictionary(uniqueKeysWithValues: settings.connectionParameters)
        #expect(parameters["sslmode"] == mode.rawValue)
    }

    @Test func unixSocketsAndLoopbackPartsDefaultToPrefer() {
        #expect(PostgresSettings(host: "/var/run/postgresql", database: "d", user: "u").sslMode == .prefer)
        #expect(PostgresSettings(host: "@pgsocket", database: "d", user: "u").sslMode == .prefer)
        #expect(PostgresSettings(host: "db.example.com", database: "d", user: "u").sslMode == .verifyFull)
        #expect(
            PostgresSettings(host: "db.example.com", database: "d", user: "u", sslMode: .allow).sslMode == .allow)
    }

    /// verify-full without sslrootcert checks against the system's CA bundle (libpq 15 would look for
    /// ~/.postgresql/root.crt); a given sslrootcert is passed as it is; no CA file for unverified modes.
    @Test func verifyingModesGetACAFile() throws {
        let system = try #require(PostgresSettings.systemCABundle, "this system has a CA bundle")
        let remote = Dictionary(
            uniqueKeysWithValues: try PostgresSettings(url: "postgres://u@db/d").connectionParameters)
        #expect(remote["sslmode"] == "verify-full")
        #expect(remote["sslrootcert"] == system)
        let given = Dictionary(
            uniqueKeysWithValues: try PostgresSettings(url: "postgres://u@db/d?sslrootcert=/etc/ca.pem")
                .connectionParameters)
        #expect(given["sslrootcert"] == "/etc/ca.pem")
        let required = Dictionary(
            uniqueKeysWithValues: try PostgresSettings(url: "postgres://u@db/d?sslmode=require").connectionParameters)
        #expect(required["sslrootcert"] == nil)
    }

    @Test func theConninfoCarriesTheTimeoutsAndKeepalives() throws {
        var settings = try PostgresSettings(url: "postgres://u@db/d")
        var parameters = Dictionary(uniqueKeysWithValues: settings.connectionParameters)
        #expect(parameters["options"] == "-c statement_timeout=3600s -c lock_timeout=300s")
        #expect(parameters["connect_timeout"] == "30")
        #expect(parameters["keepalives"] == "1")
        #expect(parameters["keepalives_idle"] == "60")
        #expect(parameters["keepalives_interval"] == "10")
        #expect(parameters["keepalives_count"] == "6")
        settings = try PostgresSettings(
            url: "postgres://u@db/d?keepalives_idle=30&keepalives_interval=5&keepalives_count=3&connect_timeout=9")
        settings.statementTimeout = 0
        settings.lockTimeout = 20
        parameters = Dictionary(uniqueKeysWithValues: settings.connectionParameters)
        #expect(parameters["options"] == "-c statement_timeout=0s -c lock_timeout=20s")
        #expect(parameters["keepalives_idle"] == "30")
        #expect(parameters["keepalives_interval"] == "5")
        #expect(parameters["keepalives_count"] == "3")
        #expect(parameters["connect_timeout"] == "9")
        let off = try PostgresSettings(url: "postgres://u@db/d?keepalives=0")
        #expect(Dictionary(uniqueKeysWithValues: off.connectionParameters)["keepalives"] == "0")
    }

    @Test func percentEncodedPartsAreDecoded() throws {
        let settings = try PostgresSettings(url: "postgres://etl%40corp:p%40ss%2Fw%3Ard@[::1]:5433/my%20db")
        #expect(settings.user == "etl@corp")
        #expect(settings.password == "p@ss/w:rd")
        #expect(settings.host == "::1")
        #expect(settings.database == "my db")
        #expect(settings.description == "postgres://etl%40corp@[::1]:5433/my%20db?sslmode=prefer")
    }

    @Test func aSeparatePasswordWinsOverTheURLs() throws {
        let settings = try PostgresSettings(url: "postgres://etl:fromurl@h/d", password: "fromenv")
        #expect(settings.password == "fromenv")
        let parameters = Dictionary(uniqueKeysWithValues: settings.connectionParameters)
        #expect(parameters["password"] == "fromenv")
        #expect(parameters["dbname"] == "d")
        #expect(parameters["client_encoding"] == "UTF8")
    }

    @Test func theDescriptionNeverShowsThePassword() throws {
        let settings = try PostgresSettings(url: "postgres://etl:hunter2@h:1/d?sslmode=require", password: "other")
        #expect(settings.description == "postgres://etl@h:1/d?sslmode=require")
        #expect(!"\(settings)".contains("hunter2"))
        #expect(!"\(settings)".contains("other"))
    }

    @Test(arguments: [
        ("mysql://u@h/d", "scheme"),
        ("postgres://h/d", "no user"),
        ("postgres://u@h", "no database"),
        ("postgres://u@h/", "no database"),
        ("postgres://u@/d", "no host"),
        ("postgres://u@h:0/d", "port 0"),
        ("postgres://u@h/d?sslmode=always", "sslmode=always"),
        ("postgres://u@h/d?sslmod=require", "unknown parameter \"sslmod\""),
        ("postgres://u@h/d?connect_timeout=soon", "connect_timeout=soon"),
        ("postgres://u@h/d?keepalives=yes", "keepalives=yes"),
        ("postgres://u@h/d?keepalives_idle=0", "keepalives_idle=0"),
        ("postgres://u@h/d?keepalives_count=many", "keepalives_count=many"),
        ("postgres://u:topsecret@h/d?bad=1", "unknown parameter"),
    ])
    func invalidURLsAreConfigurationErrors(url: String, problem: String) {
        #expect {
            _ = try PostgresSettings(url: url)
        } throws: { error in
            guard let error = error as? PostgresError else { return false }
            return error.kind == .configuration && error.exitCode == 78 && error.description.contains(problem)
                && !error.description.contains("topsecret")
        }
    }
}
