import Foundation
import NowData
import Testing

/// The "Using NowData" example of docs/nowdata.md, run against the scripted server (only the URL differs).
@Suite(.timeLimit(.minutes(5))) struct ReadmeExampleTests {
    struct User: SysIdentifiableModel, Sendable {
        var sysId: String = ""
        var name: String
        var email: String
    }

    @Test func readmeExampleRuns() async throws {
        let server = try ScriptedHTTPServer { request in
            let one = #"{"sys_id":"0001","name":"Ash Williams","email":"ash@s-mart.example"}"#
            switch request.method {
            case "POST": return .json(201, #"{"result":\#(one)}"#)
            case "PUT": return .json(200, #"{"result":\#(one)}"#)
            case "DELETE": return .init(status: 204)
            default:
                let isLater = request.query["sysparm_query"]?.contains("sys_id>") ?? false
                return .json(200, isLater ? #"{"result":[]}"# : #"{"result":[\#(one)]}"#)
            }
        }
        let configuration = NowServiceConfiguration(
            instanceURL: server.baseURL,
            authentication: .basic(
                username: "integration", password: ProcessInfo.processInfo.environment["SN_PASSWORD"] ?? ""))
        let service = NowTableService(configuration: configuration)

        let active = ReadmeExample.activeUsers
        let users = try await service.model([User].self, from: "sys_user", path: "result", configuration: active)
        #expect(users.count == 1)

        var created = try await service.create(User(name: "Ash Williams", email: "ash@example.com"), in: "sys_user")
        created.email = "ash@s-mart.example"
        created = try await service.update(created, in: "sys_user")
        try await service.deleteRecord(sysId: created.sysId, from: "sys_user")

        let paginator: Paginator<[User]> = service.paginator(
            from: "sys_user", path: "result", configuration: active, strategy: .keyset())
        let names = try await ReadmeExample.all(paginator).map(\.name)
        #expect(names == ["Ash Williams"])
        #expect(server.requests.map(\.method) == ["GET", "POST", "PUT", "DELETE", "GET", "GET"])
    }
}
