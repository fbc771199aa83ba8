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
