import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// An instance's refusal told the same way by every command (``NowETLError/refusal(in:accounts:)``):
/// a 401 names who signed in and where the credentials are set, a 403 the user, the table and the ACL
/// needed, with the instance's own words escaped and bounded — exit 77 throughout, no secret, no URL.
@Suite(.serialized, .timeLimit(.minutes(5))) struct RefusalMessageTests {
    /// A source whose `etl` user may not read `incident` (only `itil` may).
    static let deniedSource = [
        "--seed", "incident=5", "--user", "admin:admin:admin", "--user", "etl:etl-Pw0rd:snc_read_only",
        "--table-acl", "incident=itil",
    ]
    static let etlAuth = "{ basic: { user: etl, password: etl-Pw0rd } }"
    static let incident = "  - table: incident\n    fields: [sys_id, number]\n"

    /// The lines of `text` that mention `fragment`.
    static func lines(_ text: String, with fragment: String) -> [String] {
        text.split(separator: "\n").map(String.init).filter { $0.contains(fragment) }
    }

    @Test func aTableTheUserMayNotReadNamesTheUserTheTableAndTheACL() async throws {
        try await withNowSim(arguments: Self.deniedSource) { sim in
            let (directory, path, _) = try TemporaryPipeline.write(
                "acl", PipelineYAML(sim, auth: Self.etlAuth, tables: Self.incident))
            defer { try? FileManager.default.removeItem(at: directory) }
            for arguments in [["validate", path, "--online"], ["preview", path], ["run", path, "--progress", "off"]] {
                let (code, captured) = await InProcessNowETL.run(arguments, environment: [:])
                #expect(code == 77, "\(arguments[0]): \(captured.standardError)")
                let denied = Self.lines(captured.standardError, with: "denied user")
                #expect(!denied.isEmpty, "\(arguments[0]): \(captured.standardError)")
                for line in denied {
                    #expect(line.contains("the instance denied user etl read access to table incident"), "\(line)")
                    #expect(line.contains("Insufficient rights to query records"), "\(line)")
                    #expect(line.contains("give the user a role that the read ACLs of table incident allow"))
                    #expect(!line.contains(sim.baseURL.absoluteString), "no URL at info level: \(line)")
                    #expect(!line.contains("etl-Pw0rd"))
                }
            }
        }
    }

    @Test func aRefusedPasswordNamesTheUserAndTheSettingInEveryCommand() async throws {
        let server = try await ETLServers.get()
        let (directory, path, _) = try TemporaryPipeline.write(
            "refused", PipelineYAML(auth: "{ basic: { user: admin, password: wr0ng-Secret } }", tables: Self.incident))
        defer { try? FileManager.default.removeItem(at: directory) }
        let environment = TemporaryPipeline.environment(server)
        for arguments in [["validate", path, "--online"], ["preview", path], ["run", path, "--progress", "off"]] {
            let (code, captured) = await InProcessNowETL.run(arguments, environment: environment)
            #expect(code == 77, "\(arguments[0]): \(captured.standardError)")
            let line = try #require(Self.lines(captured.standardError, with: "refused the credentials").first)
            #expect(line.contains("the instance refused the credentials of user admin"), "\(line)")
            #expect(line.contains("HTTP 401 \"User Not Authenticated"), "\(line)")
            #expect(line.contains("check source.auth"))
            #expect(!line.contains("wr0ng-Secret") && !line.contains(server.baseURL.absoluteString), "\(line)")
            #expect(!line.contains("read access"), "a 401 is not an ACL: \(line)")
        }
        let instance = server.baseURL.absoluteString
        for arguments in [
            ["discover", "--instance", instance, "--table", "incident"],
            ["init", "--instance", instance, "--table", "incident"],
        ] {
            let (code, captured) = await InProcessNowETL.run(
                arguments, environment: ["SN_USER": "admin", "SN_PASSWORD": "wr0ng-Secret"])
            #expect(code == 77, "\(arguments[0]): \(captured.standardError)")
            #expect(
                captured.standardError.contains("the instance refused the credentials of user admin"),
                "\(captured.standardError)")
            #expect(captured.standardError.contains("check SN_USER and SN_PASSWORD"))
            #expect(!captured.standardError.contains("wr0ng-Secret"))
            #expect(captured.standardOutput.isEmpty)
        }
        let (code, captured) = await InProcessNowETL.run(
            ["discover", "--instance", instance, "--table", "incident"],
            environment: ["SN_CLIENT_ID": "nightly-etl", "SN_CLIENT_SECRET": "n0t-The-Secret"])
        #expect(code == 77, "\(captured.standardError)")
        #expect(captured.standardError.contains("OAuth client nightly-etl"), "\(captured.standardError)")
        #expect(captured.standardError.contains("check SN_CLIENT_ID and SN_CLIENT_SECRET"))
        #expect(!captured.standardError.contains("n0t-The-Secret"))
    }

    @Test func reconcileSaysItTooAndNamesTheSide() async throws {
        let server = try await ETLServers.get()
        let output = "  - instance: { instance: \"${SN_INSTANCE}\", auth: { basic: { user: admin, password: admin } } }"
        let (directory, path, _) = try TemporaryPipeline.write(
            "reconcile",
            PipelineYAML(
                auth: "{ basic: { user: etl, password: wr0ng-Secret } }", tables: Self.incident, outputs: output))
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(
            ["reconcile", path], environment: TemporaryPipeline.environment(server))
        #expect(code == 77, "\(captured.standardOutput)\(captured.standardError)")
        #expect(
            captured.standardOutput.contains("the instance refused the credentials of user etl: HTTP 401"),
            "\(captured.standardOutput)")
        #expect(captured.standardOutput.contains("check source.auth"))
        #expect(!captured.standardOutput.contains("wr0ng-Secret"))
    }

    /// The instance's own words are hostile input: no control character reaches the terminal, and a
    /// long text is cut.
    @Test func theInstancesWordsAreEscapedAndBounded() async throws {
        let server = try await ETLServers.get(fault: "ansi-error:code=403,table=incident")
        let (directory, path, _) = try TemporaryPipeline.write("hostile", PipelineYAML(tables: Self.incident))
        defer { try? FileManager.default.removeItem(at: directory) }
        let (code, captured) = await InProcessNowETL.run(["preview", path], environment: server.pipelineEnvironment)
        #expect(code == 77, "\(captured.standardError)")
        let line = try #require(
            Self.lines(captured.standardError, with: "denied user").first, "\(captured.standardError)")
        #expect(line.contains("read access to table incident: HTTP 403"), "\(line)")
        #expect(line.contains("Invalid table"))
        for control in ["\u{1B}", "\u{7}", "\u{9B}", "\u{202E}", "\r", "\u{8}", "\u{0}"] {
            #expect(!captured.standardError.contains(control), "\(control.unicodeScalars.map(\.value))")
        }
        #expect(line.count < 2 * NowETLError.quotedServerText + 300, "\(line.count): \(line)")
    }

    @Test func aMigrationTargetsRefusalsNameItsOutputAndUser() async throws {
        typealias EndToEnd = SinkInstanceEndToEndTests
        let targetArguments = EndToEnd.targetArguments + ["--user", "reader:reader-Pw0rd:snc_read_only"]
        try await withNowSim(arguments: EndToEnd.sourceArguments) { source in
            try await withNowSim(arguments: targetArguments) { target in
                try await EndToEnd.withScratch("targetRefusals") { directory in
                    let path = directory.appendingPathComponent("p.yaml").path
                    // A user the target does not know: validate --online proves the credentials first.
                    try EndToEnd.pipeline(source, target, tables: ["incident"], user: "nobody", in: directory)
                    for arguments in [["validate", path, "--online"], ["run", path, "--progress", "off"]] {
                        let (code, captured) = await InProcessNowETL.run(arguments, environment: [:])
                        #expect(code == 77, "\(arguments[0]): \(captured.standardError)")
                        #expect(
                            captured.standardError.contains(
                                "the target instance refused the credentials of user nobody"),
                            "\(captured.standardError)")
                        #expect(captured.standardError.contains("check outputs[0].instance.auth"))
                        #expect(!captured.standardError.contains("nobody-Pw0rd"))
                    }
                    // A user who may read but not write: the first write is refused by the table's ACLs.
                    try EndToEnd.pipeline(source, target, tables: ["incident"], user: "reader", in: directory)
                    let (code, captured) = await InProcessNowETL.run(
                        ["run", path, "--progress", "off"], environment: [:])
                    #expect(code == 77, "\(captured.standardError)")
                    #expect(
                        captured.standardError.contains(
                            "the target instance denied user reader write access to table incident"),
                        "\(captured.standardError)")
                    #expect(captured.standardError.contains("create and write ACLs of table incident"))
                }
            }
        }
    }
}
