import Foundation
import Testing

@testable import NowData

private struct User: SysIdentifiableModel, Equatable, Sendable {
    var sysId: String = ""
    var name: String
}

@Suite(.timeLimit(.minutes(5))) struct TableServiceTests {
    @Test func recordsSendsEncodedQueryAndReadConfiguration() async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, #"{"result":[{"sys_id":"a","number":"INC1"}]}"#)])
        let service = TestService.make(server)
        let readConfig = FieldReadConfiguration(
            includeFields: ["sys_id", "number"], options: [.actualValues, .excludeReferenceLink])
        let config = FetchConfiguration(Filter(query: "active=true^short_descriptionLIKEdisk full"), 5, readConfig)
        let data = try await service.records(from: "incident", configuration: config)
        #expect(try data.decodeRecords().map(\.sysId) == ["a"])
        let request = try #require(server.requests.first)
        #expect(request.method == "GET")
        #expect(request.path == "/api/now/table/incident")
        #expect(request.target.contains("sysparm_query=active%3Dtrue%5Eshort_descriptionLIKEdisk%20full"))
        #expect(
            request.query == [
                "sysparm_query": "active=true^short_descriptionLIKEdisk full", "sysparm_limit": "5",
                "sysparm_fields": "sys_id,number", "sysparm_display_value": "false",
                "sysparm_exclude_reference_link": "true",
            ])
    }

    @Test func recordBySysIdWithVersionedPath() async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, #"{"result":{"sys_id":"abc","state":"Closed"}}"#)])
        let service = TestService.make(server, apiVersion: "v2")
        let data = try await service.record(
            with: "abc", from: "incident", configuration: FieldReadConfiguration(options: [.displayValues]))
        #expect(try data.decodeRecord(options: [.displayValues])["state"]?.displayValue == "Closed")
        #expect(server.requests.first?.path == "/api/now/v2/table/incident/abc")
        #expect(server.requests.first?.query["sysparm_display_value"] == "true")
    }

    @Test func modelListAndSingle() async throws {
        let server = try ScriptedHTTPServer { request in
            if request.path.hasSuffix("/5137153cc611227c000bbd1bd8cd2005") {
                return .json(200, #"{"result":{"sys_id":"5137153cc611227c000bbd1bd8cd2005","name":"Ash Williams"}}"#)
            }
            return .json(
                200, #"{"result":[{"sys_id":"1","name":"Ash Williams"},{"sys_id":"2","name":"Laurie Strode"}]}"#)
        }
        let service = TestService.make(server)
        let users = try await service.model([User].self, from: "sys_user", path: "result")
        #expect(users.map(\.name) == ["Ash Williams", "Laurie Strode"])
        #expect(users.map(\.sysId) == ["1", "2"])
        let user = try await service.model(
            User.self, with: "5137153cc611227c000bbd1bd8cd2005", from: "sys_user", path: "result")
        #expect(user.sysId == "5137153cc611227c000bbd1bd8cd2005")
        let inferred: User = try await service.model(with: "5137153cc611227c000bbd1bd8cd2005", from: "sys_user")
        #expect(inferred == user)
    }

    @Test func createPostsModelWithoutSysIdAndReturnsAssignedOne() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(
                201, #"{"result":{"sys_id":"new1","name":"Ash Williams","sys_created_on":"2024-01-01 00:00:00"}}"#,
                headers: [("Location", "http://x/api/now/table/sys_user/new1")])
        ])
        let service = TestService.make(server)
        let user = User(name: "Ash Williams")
        let result = try await service.create(user, in: "sys_user", writeOptions: [.suppressAutoSysField])
        #expect(result == User(sysId: "new1", name: "Ash Williams"))
        let request = try #require(server.requests.first)
        #expect(request.method == "POST")
        #expect(request.headers["content-type"] == "application/json")
        #expect(request.query["sysparm_suppress_auto_sys_field"] == "true")
        let body = try JSONSerialization.jsonObject(with: request.body) as? [String: String]
        #expect(body == ["name": "Ash Williams"])
    }

    @Test func updatePutsToSysIdAndDeleteDeletes() async throws {
        let server = try ScriptedHTTPServer { request in
            switch request.method {
            case "PUT": return .json(200, #"{"result":{"sys_id":"u1","name":"Renamed"}}"#)
            case "DELETE": return .init(status: 204)
            default: return .json(400, "{}")
            }
        }
        let service = TestService.make(server)
        let updated = try await service.update(User(sysId: "u1", name: "Renamed"), in: "sys_user")
        #expect(updated.name == "Renamed")
        try await service.delete(updated, from: "sys_user")
        try await service.deleteRecord(sysId: "u2", from: "sys_user")
        #expect(
            server.requests.map { "\($0.method) \($0.path)" } == [
                "PUT /api/now/table/sys_user/u1", "DELETE /api/now/table/sys_user/u1",
                "DELETE /api/now/table/sys_user/u2",
            ])
        await #expect {
            try await service.delete(User(name: "no id"), from: "sys_user")
        } throws: { error in
            if case NowDataError.missingSysID = error { return true }
            return false
        }
    }

    @Test func rawCreateAndUpdateRecord() async throws {
        let server = try ScriptedHTTPServer { request in
            .json(request.method == "POST" ? 201 : 200, #"{"result":{"sys_id":"r1","priority":"2"}}"#)
        }
        let service = TestService.make(server)
        let created = try await service.createRecord(
            with: ["short_description": "Disk full", "priority": 2], in: "incident",
            writeOptions: [.treatInputValuesAsDisplayValues],
            configuration: FieldReadConfiguration(includeFields: ["sys_id"]))
        #expect(try created.decodeRecord().sysId == "r1")
        let updated = try await service.updateRecord(sysId: "r1", in: "incident", with: ["priority": 1])
        #expect(try updated.decodeRecord()["priority"]?.value == "2")
        let post = server.requests[0]
        #expect(post.query["sysparm_input_display_value"] == "true")
        #expect(post.query["sysparm_fields"] == "sys_id")
        #expect(
            try JSONSerialization.jsonObject(with: post.body) as? [String: String] == [
                "short_description": "Disk full", "priority": "2",
            ])
        #expect(server.requests[1].method == "PUT" && server.requests[1].path == "/api/now/table/incident/r1")
    }

    @Test func completionHandlerForms() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(200, #"{"result":[{"sys_id":"a","name":"n"}]}"#),
            .json(404, TestService.envelope("No Record found", nil)),
        ])
        let service = TestService.make(server)
        let records: Result<Data, NowDataError> = await withCheckedContinuation { continuation in
            service.records(from: "sys_user") { continuation.resume(returning: $0) }
        }
        #expect(try records.get().decodeRecords().count == 1)
        let missing: Result<Void, NowDataError> = await withCheckedContinuation { continuation in
            service.deleteRecord(sysId: "x", from: "sys_user") { continuation.resume(returning: $0) }
        }
        guard case .failure(.badResponse(404, _)) = missing else {
            Issue.record("expected 404, got \(missing)")
            return
        }
    }

    @Test(arguments: ["", "sys user", "incident/../x", "inc?x"])
    func invalidTableNamesAreRejectedBeforeSending(table: String) async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, "{}")])
        await #expect {
            _ = try await TestService.make(server).records(from: table)
        } throws: { error in
            if case NowDataError.invalidURL = error { return true }
            return false
        }
        #expect(server.requests.isEmpty)
    }

    @Test func decodingFailureIsCannotDecodeModel() async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, #"{"result":[{"sys_id":"1"}]}"#)])
        await #expect {
            _ = try await TestService.make(server).model([User].self, from: "sys_user")
        } throws: { error in
            if case NowDataError.cannotDecodeModel(.keyNotFound(let key, _)) = error {
                return key.stringValue == "name"
            }
            return false
        }
    }
}
