import Foundation
import Testing

@testable import NowETL

/// Redaction replaces whole secret values only: a password that is also a word of the log
/// (`incident`) does not garble other words that contain it.
@Suite(.timeLimit(.minutes(5))) struct RunLoggerRedactionTests {
    static let time = Date(timeIntervalSince1970: 1_709_258_404)

    static func logger(_ secrets: [String], _ captured: CapturedStreams) -> RunLogger {
        RunLogger(secrets: secrets, console: captured.console, now: { Self.time })
    }

    @Test func aPasswordThatIsAlsoATableNameLeavesTheTableAlone() {
        let captured = CapturedStreams()
        let logger = Self.logger(["incident"], captured)
        logger.info("table finished", [("table", "incident"), ("rows", "2000")])
        logger.info("table started", [("table", "incident_task")])
        logger.warning("rows differ", [("error", "incidents of u_incident_archive, incident2, Incident")])
        #expect(
            captured.errorLines == [
                "time=2024-03-01T02:00:04Z level=info msg=\"table finished\" table=incident rows=2000",
                "time=2024-03-01T02:00:04Z level=info msg=\"table started\" table=incident_task",
                "time=2024-03-01T02:00:04Z level=warning msg=\"rows differ\" "
                    + "error=\"incidents of u_incident_archive, incident2, Incident\"",
            ])
    }

    @Test(arguments: [
        ("login failed: password incident rejected", "login failed: password <redacted> rejected"),
        ("incident", "<redacted>"),
        ("GET https://etl:incident@acme.service-now.com/api", "GET https://etl:<redacted>@acme.service-now.com/api"),
        ("Authorization: incident", "Authorization: <redacted>"),
        ("pw=incident&x=1 (incident)", "pw=<redacted>&x=1 (<redacted>)"),
        ("incident_task incidents xincident", "incident_task incidents xincident"),
    ])
    func wholeOccurrencesAreRedacted(text: String, expected: String) {
        #expect(Self.logger(["incident"], CapturedStreams()).redact(text) == expected)
    }

    @Test func aSecretThatReallyAppearsInAMessageIsRedactedEverywhere() {
        let captured = CapturedStreams()
        let password = "p@ss:w0rd!"
        let logger = Self.logger([password], captured)
        logger.error(
            "table failed: server said \(password)",
            [
                ("table", "incident"),
                ("error", "GET https://etl:p%40ss%3Aw0rd!@host/ failed; header X-Echo: \(password)"),
                ("url", "https://host/?q=p%40ss%3Aw0rd!"),
            ])
        let text = captured.standardError
        #expect(!text.contains(password) && !text.contains("p%40ss"), "\(text)")
        #expect(text.components(separatedBy: "<redacted>").count == 5, "\(text)")
        // A secret that starts and ends with non-word characters is found even inside a word.
        #expect(Self.logger(["-s3cr3t-"], CapturedStreams()).redact("a-s3cr3t-b") == "a<redacted>b")
    }

    @Test func theBasicCredentialIsRedactedInAnEchoedHeader() {
        let auth = SourceAuthentication.basic(user: "etl", password: Secret("incident"))
        let captured = CapturedStreams()
        let logger = Self.logger(auth.secretValues, captured)
        let header = "Authorization: Basic " + Data("etl:incident".utf8).base64EncodedString()
        logger.error("proxy echoed", [("error", header)])
        #expect(
            captured.standardError.contains("error=\"Authorization: Basic <redacted>\""), "\(captured.standardError)")
    }

    @Test func overlappingSecretsRedactTheLongerAndNeverTwice() {
        let logger = Self.logger(["redacted", "alpha-beta", "beta"], CapturedStreams())
        // One pass over the text: the markers put in are not searched again (`redacted` is a secret).
        #expect(logger.redact("alpha-beta beta redacted") == "<redacted> <redacted> <redacted>")
    }
}
