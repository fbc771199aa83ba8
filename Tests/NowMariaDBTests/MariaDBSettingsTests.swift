import Testing

@testable import NowMariaDB

/// The URL parser of ``MariaDBSettings``: parts, TLS defaults, refused parameters, no password shown.
@Suite(.timeLimit(.minutes(1)))
struct MariaDBSettingsTests {
    @Test func urlPartsAndDefaults() throws {
        let settings = try MariaDBSettings(url: "mysql://etl@db.example.com/reports")
        #expect(settings.host == "db.example.com")
        #expect(settings.port == 3306)
        #expect(settings.user == "etl")
        #expect(settings.database == "reports")
        #expect(settings.sslMode == .verifyFull)
        #expect(settings.connectTimeout == 30)
    }

    @Test(arguments: ["127.0.0.1", "localhost", "[::1]", "127.8.9.10"])
    func loopbackPrefersTLS(host: String) throws {
        #expect(try MariaDBSettings(url: "mysql://etl@\(host):3307/r").sslMode == .prefer)
    }

    @Test func parametersAreRead() throws {
        let settings = try MariaDBSettings(
            url: "mariadb://etl@10.0.0.5:3307/r?sslmode=require&connect_timeout=5&sslrootcert=/ca.pem")
        #expect(settings.port == 3307)
        #expect(settings.sslMode == .require)
        #expect(settings.connectTimeout == 5)
        #expect(settings.sslRootCertificate == "/ca.pem")
    }

    @Test(arguments: [
        "postgres://etl@h/r", "mysql://h/r", "mysql://etl@h/", "mysql://etl@h/r?sslmode=verify-ca",
        "mysql://etl@h/r?typo=1", "mysql://etl@h/r?connect_timeout=0", "mysql://etl@h:0/r",
    ])
    func badURLsAreConfigurationErrors(url: String) {
        #expect(throws: MariaDBError.self) { try MariaDBSettings(url: url) }
        do {
            _ = try MariaDBSettings(url: url)
        } catch {
            #expect(error.exitCode == 78)
        }
    }

    @Test func descriptionHasNoPassword() throws {
        let settings = try MariaDBSettings(url: "mysql://etl:s3cr3t-pw@h/r", password: nil)
        #expect(settings.password == "s3cr3t-pw")
        #expect(!settings.description.contains("s3cr3t-pw"))
        let other = try MariaDBSettings(url: "mysql://etl:inurl@h/r", password: "given")
        #expect(other.password == "given")
    }

    @Test func errorNumbersHaveTheirExitCodes() {
        #expect(MariaDBError(MariaDBError.kind(number: 1045, connecting: true), message: "").exitCode == 77)
        #expect(MariaDBError(MariaDBError.kind(number: 2003, connecting: true), message: "").exitCode == 69)
        #expect(MariaDBError(MariaDBError.kind(number: 2005, connecting: true), message: "").exitCode == 69)
        #expect(MariaDBError(MariaDBError.kind(number: 1049, connecting: true), message: "").exitCode == 78)
        #expect(MariaDBError(MariaDBError.kind(number: 1205, connecting: false), message: "").exitCode == 75)
        #expect(MariaDBError(MariaDBError.kind(number: 1213, connecting: false), message: "").exitCode == 75)
        #expect(MariaDBError(MariaDBError.kind(number: 2013, connecting: false), message: "").exitCode == 75)
    }
}
