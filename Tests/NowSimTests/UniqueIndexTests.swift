import Foundation
import NowSimTesting
import Testing

/// The unique index on `sys_user.user_name` (docs/table-api.md §1.4, §5.2): a write that would give
/// two users one user name is refused as an instance refuses it — 403 `Operation Failed` / `Error
/// during insert of sys_user (<name>)` — through the Table API, the Batch API and the unload import,
/// with case and trailing spaces not counting (MySQL's default collation).
@Suite(.timeLimit(.minutes(5))) struct UniqueIndexTests {
    /// This test's own server, so that the users it adds do not meet another test's.
    let sim: NowSimInstance
    init() async throws {
        sim = try await NowSimInstance.start(arguments: ["--seed", "sys_user=5", "--seed-value", "3"])
    }

    private func json(_ text: String) -> Data { Data(text.utf8) }

    /// The envelope of `response`: status, `error.message`, `error.detail` and `status`.
    private func failure(_ response: NowSimInstance.Response) -> (Int, String?, String?, String?) {
        let object = response.json as? [String: Any]
        let error = object?["error"] as? [String: Any]
        return (
            response.status, error?["message"] as? String, error?["detail"] as? String, object?["status"] as? String
        )
    }

    private func users(named userName: String) async throws -> [[String: Any]] {
        try await sim.request(
            "/api/now/table/sys_user",
            query: [("sysparm_query", "user_name=\(userName)"), ("sysparm_fields", "sys_id")]
        ).resultList
    }

    @Test func theDictionaryMarksUserNameUnique() async throws {
        let rows = try await sim.request(
            "/api/now/table/sys_dictionary",
            query: [("sysparm_query", "name=sys_user^element=user_name"), ("sysparm_fields", "unique")]
        ).resultList
        #expect(rows.map { $0["unique"] as? String } == ["true"])
    }

    @Test(arguments: ["jane.doe", "Jane.Doe", "JANE.DOE ", "jane.doe   "])
    func aSecondUserWithTheSameUserNameIsRefused(_ duplicate: String) async throws {
        let first = try await sim.request(
            "POST", "/api/now/table/sys_user", body: json(#"{"user_name":"jane.doe","name":"Jane Doe"}"#))
        #expect(first.status == 201)
        let second = try await sim.request(
            "POST", "/api/now/table/sys_user",
            body: json(#"{"user_name":"\#(duplicate)","first_name":"Jane","name":"Jane Doe (2)"}"#))
        #expect(
            failure(second) == (403, "Operation Failed", "Error during insert of sys_user (Jane Doe (2))", "failure"))
        #expect(try await users(named: "jane.doe").count == 1)
    }

    @Test func anotherUserNameAndNoUserNameAreFine() async throws {
        for body in [
            #"{"user_name":"jane.doe"}"#, #"{"user_name":"jane.doe2"}"#, #"{"name":"No Login"}"#, #"{"name":"x"}"#,
        ] {
            let response = try await sim.request("POST", "/api/now/table/sys_user", body: json(body))
            #expect(response.status == 201, "\(body)")
        }
    }

    @Test func anUpdateToATakenUserNameIsRefusedAndKeepingOnesOwnIsFine() async throws {
        let taken = try await sim.request(
            "POST", "/api/now/table/sys_user", body: json(#"{"user_name":"taken","name":"Taken"}"#))
        let other = try await sim.request(
            "POST", "/api/now/table/sys_user", body: json(#"{"user_name":"other","name":"Other Person"}"#))
        #expect(taken.status == 201)
        let sysId = try #require(other.resultObject["sys_id"] as? String)
        for method in ["PUT", "PATCH"] {
            let refused = try await sim.request(
                method, "/api/now/table/sys_user/\(sysId)", body: json(#"{"user_name":"TAKEN"}"#))
            #expect(
                failure(refused) == (
                    403, "Operation Failed", "Error during update of sys_user (Other Person)", "failure"
                ))
        }
        let read = try await sim.request("/api/now/table/sys_user/\(sysId)")
        #expect(read.resultObject["user_name"] as? String == "other")
        #expect(read.resultObject["sys_mod_count"] as? String == "0")
        let same = try await sim.request(
            "PATCH", "/api/now/table/sys_user/\(sysId)", body: json(#"{"user_name":"Other","title":"Boss"}"#))
        #expect(same.status == 200)
    }

    @Test func aBatchItemGetsTheSameAnswer() async throws {
        let body = Data(#"{"user_name":"batch.user","name":"Batch User"}"#.utf8).base64EncodedString()
        let items = ["one", "two"].map { id in
            #"{"id":"\#(id)","method":"POST","url":"/api/now/table/sys_user","body":"\#(body)","#
                + #""headers":[{"name":"Content-Type","value":"application/json"},{"name":"Accept","value":"application/json"}]}"#
        }
        let request = #"{"batch_request_id":"u","rest_requests":[\#(items.joined(separator: ","))]}"#
        let response = try await sim.request("POST", "/api/now/v1/batch", body: Data(request.utf8))
        #expect(response.status == 200)
        let served = try #require((response.json as? [String: Any])?["serviced_requests"] as? [[String: Any]])
        let byID = Dictionary(
            uniqueKeysWithValues: served.compactMap { entry in
                (entry["id"] as? String).map { ($0, entry) }
            })
        #expect(byID["one"]?["status_code"] as? Int == 201)
        #expect(byID["two"]?["status_code"] as? Int == 403)
        let echoed = (byID["two"]?["body"] as? String).flatMap { Data(base64Encoded: $0) }
        let error = echoed.flatMap { try? JSONSerialization.jsonObject(with: $0) as? [String: Any] }?["error"]
        #expect((error as? [String: Any])?["detail"] as? String == "Error during insert of sys_user (Batch User)")
        #expect(try await users(named: "batch.user").count == 1)
    }

    @Test func anImportedDuplicateStopsTheDocumentNamingTheRecord() async throws {
        let existing = try #require(
            try await sim.request(
                "/api/now/table/sys_user", query: [("sysparm_limit", "1"), ("sysparm_fields", "user_name,sys_id")]
            ).resultList.first)
        let userName = try #require(existing["user_name"] as? String)
        let holder = try #require(existing["sys_id"] as? String)
        let document = """
            <?xml version="1.0" encoding="UTF-8"?>
            <unload unload_date="2026-01-01 00:00:00">
            <sys_user action="INSERT_OR_UPDATE"><sys_id>0123456789abcdef0123456789abcdef</sys_id><user_name>fresh.one</user_name></sys_user>
            <sys_user action="INSERT_OR_UPDATE"><sys_id>fedcba9876543210fedcba9876543210</sys_id><user_name>\(userName.uppercased())</user_name></sys_user>
            </unload>
            """
        let response = try await sim.request(
            "POST", "/api/nowsim/import", headers: ["Content-Type": "application/xml"], body: Data(document.utf8))
        #expect(response.status == 400)
        let detail = failure(response).2 ?? ""
        #expect(detail.contains("Unique Key violation"), "\(detail)")
        #expect(detail.contains("fedcba9876543210fedcba9876543210"), "\(detail)")
        #expect(detail.contains(holder), "\(detail)")
        // All or nothing: the first record is not there either.
        #expect(try await users(named: "fresh.one").isEmpty)
    }
}
