import Foundation
import NowSim
import Synchronization
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct BatchAPITests {}

/// Answers every request with a JSON description of it, so tests can see what the Batch API sent.
///
/// Headers `x-echo-status` and `x-echo-padding` (a byte count) shape the response.
struct EchoDispatcher: HTTPHandler {
    final class Counter: Sendable {
        let value = Mutex(0)
    }
    let counter = Counter()

    /// How many requests were handled.
    var calls: Int { counter.value.withLock { $0 } }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        counter.value.withLock { $0 += 1 }
        let description = echoDescription(request).merging([
            "body": Data(request.body).base64EncodedString(),
            "padding": String(repeating: "x", count: Int(request.header("x-echo-padding") ?? "0") ?? 0),
        ]) { $1 }
        let body = try! JSONSerialization.data(withJSONObject: description, options: [.sortedKeys])
        return HTTPResponse(
            status: Int(request.header("x-echo-status") ?? "200") ?? 200,
            headers: [(name: "Content-Type", value: "application/json;charset=UTF-8"), (name: "X-Echo", value: "yes")],
            body: Array(body))
    }
}

private let outerAuthorization = basicHeader("admin", "admin")

private func batchRequest(
    _ json: String, method: String = "POST", headers: [String: String] = ["content-type": "application/json"]
) -> HTTPRequest {
    var all = headers
    all["authorization"] = outerAuthorization
    return HTTPRequest(
        method: method, path: BatchAPI.path, headers: all, body: Array(json.utf8), remoteAddress: "127.0.0.1")
}

private func base64(_ text: String) -> String { Data(text.utf8).base64EncodedString() }

private func parse(_ response: HTTPResponse) throws -> [String: Any] {
    try #require(try JSONSerialization.jsonObject(with: Data(response.body)) as? [String: Any])
}

/// The echo of a serviced entry: its decoded body as the dispatcher's JSON description.
private func echo(of entry: [String: Any]) throws -> [String: Any] {
    let text = try #require(entry["body"] as? String)
    let body = try #require(Data(base64Encoded: text))
    return try #require(try JSONSerialization.jsonObject(with: body) as? [String: Any])
}

extension BatchAPITests {
    @Test func batchRunsItemsInOrderAndRoundTripsBodies() throws {
        let dispatcher = EchoDispatcher()
        let api = BatchAPI(dispatcher: dispatcher)
        let binary = Data([0x00, 0xFF, 0x7B, 0x22, 0x0A, 0xC3, 0xA9])
        let json = """
            {"batch_request_id":"batch-1","rest_requests":[
              {"id":"a","method":"get","url":"/api/now/table/inc%20ident?sysparm_query=active%3Dtrue%5Epriority%3D1&sysparm_limit=1&a+b=c+d#frag",
               "headers":[{"name":"Accept","value":"application/json"},{"name":"Authorization","value":"Basic Zm9vOmJhcg=="}]},
              {"id":"b","method":"POST","url":"/api/now/table/incident","headers":[{"name":"Content-Type","value":"application/octet-stream"},{"name":"X-Echo-Status","value":"201"}],
               "body":"\(binary.base64EncodedString())","exclude_response_headers":false}
            ]}
            """
        let response = api.handle(batchRequest(json), authenticatedAs: .defaultAdmin)
        #expect(response.status == 200)
        #expect(response.header("content-type") == "application/json;charset=UTF-8")
        let object = try parse(response)
        #expect(object["batch_request_id"] as? String == "batch-1")
        #expect((object["unserviced_requests"] as? [Any])?.isEmpty == true)
        let serviced = try #require(object["serviced_requests"] as? [[String: Any]])
        #expect(serviced.map { $0["id"] as? String } == ["a", "b"])
        #expect(dispatcher.calls == 2)

        let first = serviced[0]
        #expect(first["status_code"] as? Int == 200)
        #expect(first["status_text"] as? String == "OK")
        #expect((first["execution_time"] as? Int).map { $0 >= 0 } == true)
        let headers = try #require(first["headers"] as? [[String: String]])
        #expect(
            headers == [
                ["name": "Content-Type", "value": "application/json;charset=UTF-8"],
                ["name": "X-Echo", "value": "yes"],
            ])
        let seenA = try echo(of: first)
        #expect(seenA["method"] as? String == "GET")
        #expect(seenA["path"] as? String == "/api/now/table/inc ident")
        #expect(seenA["rawQuery"] as? String == "sysparm_query=active%3Dtrue%5Epriority%3D1&sysparm_limit=1&a+b=c+d")
        #expect(
            seenA["query"] as? [[String]] == [
                ["sysparm_query", "active=true^priority=1"], ["sysparm_limit", "1"], ["a b", "c d"],
            ])
        let headersA = try #require(seenA["headers"] as? [String: String])
        #expect(headersA["accept"] == "application/json")
        #expect(headersA["authorization"] == outerAuthorization)  // the item's own is replaced
        #expect(seenA["remote"] as? String == "127.0.0.1")
        #expect(seenA["body"] as? String == "")

        let second = serviced[1]
        #expect(second["status_code"] as? Int == 201)
        #expect(second["status_text"] as? String == "Created")
        let seenB = try echo(of: second)
        #expect(seenB["method"] as? String == "POST")
        #expect(seenB["path"] as? String == "/api/now/table/incident")
        #expect(seenB["rawQuery"] as? String == "")
        let bodyB = try #require(seenB["body"] as? String)
        #expect(Data(base64Encoded: bodyB) == binary)
        #expect((seenB["headers"] as? [String: String])?["content-type"] == "application/octet-stream")
    }

    @Test func batchCanLeaveOutResponseHeadersAndTheBatchID() throws {
        let api = BatchAPI(dispatcher: EchoDispatcher())
        let response = api.handle(
            batchRequest(
                #"{"rest_requests":[{"id":"1","method":"GET","url":"/x","exclude_response_headers":true}]}"#),
            authenticatedAs: .defaultAdmin)
        let object = try parse(response)
        #expect(object["batch_request_id"] == nil)
        let entry = try #require((object["serviced_requests"] as? [[String: Any]])?.first)
        #expect((entry["headers"] as? [Any])?.isEmpty == true)
        #expect(try echo(of: entry)["path"] as? String == "/x")
    }

    @Test func batchLeavesOversizeItemsUnserviced() throws {
        let dispatcher = EchoDispatcher()
        let api = BatchAPI(dispatcher: dispatcher, maxInputSize: 8, maxOutputSize: 1000)
        let json = """
            {"batch_request_id":"b","rest_requests":[
              {"id":"small","method":"POST","url":"/x","body":"\(base64("12345678"))"},
              {"id":"big-in","method":"POST","url":"/x","body":"\(base64("123456789"))"},
              {"id":"big-out","method":"GET","url":"/x","headers":[{"name":"X-Echo-Padding","value":"2000"}]},
              {"id":"last","method":"GET","url":"/y"}
            ]}
            """
        let object = try parse(api.handle(batchRequest(json), authenticatedAs: .defaultAdmin))
        #expect((object["serviced_requests"] as? [[String: Any]])?.map { $0["id"] as? String } == ["small", "last"])
        #expect(object["unserviced_requests"] as? [String] == ["big-in", "big-out"])
        // The oversize input never ran; the oversize output did.
        #expect(dispatcher.calls == 3)
    }

    @Test func batchHonoursTheRequestedOutputLimit() throws {
        let api = BatchAPI(dispatcher: EchoDispatcher())
        let json = #"{"rest_requests":[{"id":"1","method":"GET","url":"/x"}]}"#
        let plain = try parse(api.handle(batchRequest(json), authenticatedAs: .defaultAdmin))
        #expect((plain["serviced_requests"] as? [Any])?.count == 1)
        let limited = try parse(
            api.handle(
                batchRequest(
                    json, headers: ["content-type": "application/json", "x-batchrequest-max-output-size": "10"]),
                authenticatedAs: .defaultAdmin))
        #expect(limited["unserviced_requests"] as? [String] == ["1"])
    }

    @Test func batchStopsStartingItemsAfterTheTimeLimit() throws {
        let dispatcher = EchoDispatcher()
        let api = BatchAPI(dispatcher: dispatcher, timeLimit: .zero)
        let json = #"{"rest_requests":[{"id":"1","method":"GET","url":"/x"},{"id":"2","method":"GET","url":"/x"}]}"#
        let object = try parse(api.handle(batchRequest(json), authenticatedAs: .defaultAdmin))
        #expect(object["unserviced_requests"] as? [String] == ["1", "2"])
        #expect(dispatcher.calls == 0)
    }

    @Test(arguments: [
        ("not json", "Exception while reading request"),
        ("[]", "Exception while reading request"),
        ("{}", "Bad Request"),
        (#"{"rest_requests":{}}"#, "Bad Request"),
        (#"{"batch_request_id":7,"rest_requests":[]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET","url":"/x"},{"method":"GET","url":"/x"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","url":"/x"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":1,"method":"GET","url":"/x"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET","url":"https://x.service-now.com/api"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET","url":"/x","body":"***"}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET","url":"/x","headers":[{"name":"A"}]}]}"#, "Bad Request"),
        (#"{"rest_requests":[{"id":"1","method":"GET","url":"/x","exclude_response_headers":"yes"}]}"#, "Bad Request"),
    ])
    func batchRejectsMalformedRequestsWithoutRunningAnything(_ json: String, _ message: String) throws {
        let dispatcher = EchoDispatcher()
        let response = BatchAPI(dispatcher: dispatcher).handle(batchRequest(json), authenticatedAs: .defaultAdmin)
        #expect(response.status == 400)
        let error = try #require(try parse(response)["error"] as? [String: Any])
        #expect(error["message"] as? String == message)
        #expect(dispatcher.calls == 0)
    }

    @Test func batchValidationDetailNamesTheField() throws {
        let json = #"{"rest_requests":[{"id":"1","method":"GET","url":"/x"},{"method":"GET","url":"/x"}]}"#
        let response = BatchAPI(dispatcher: EchoDispatcher()).handle(batchRequest(json), authenticatedAs: .defaultAdmin)
        #expect(
            String(decoding: response.body, as: UTF8.self)
                == #"{"error":{"message":"Bad Request","detail":"rest_requests[1].id is required"},"status":"failure"}"#
        )
    }

    @Test func batchInvalidJSONIsTheStandardEnvelope() {
        let response = BatchAPI(dispatcher: EchoDispatcher()).handle(
            batchRequest("{oops"), authenticatedAs: .defaultAdmin)
        #expect(response.status == 400)
        #expect(response.body == ErrorEnvelope.invalidJSONBody.body)
    }

    @Test func batchChecksMethodAndMediaTypes() {
        let api = BatchAPI(dispatcher: EchoDispatcher())
        let ok = #"{"rest_requests":[]}"#
        let get = api.handle(batchRequest(ok, method: "GET"), authenticatedAs: .defaultAdmin)
        #expect(get.status == 405)
        #expect(get.header("Allow") == "POST")
        #expect(
            api.handle(batchRequest(ok, headers: ["content-type": "text/xml"]), authenticatedAs: .defaultAdmin).status
                == 415)
        #expect(
            api.handle(
                batchRequest(ok, headers: ["content-type": "application/json", "accept": "multipart/mixed"]),
                authenticatedAs: .defaultAdmin
            ).status == 406)
        for accept in ["application/json", "*/*", "text/html, application/json;q=0.9", "application/*"] {
            let response = api.handle(
                batchRequest(ok, headers: ["content-type": "application/json; charset=utf-8", "accept": accept]),
                authenticatedAs: .defaultAdmin)
            #expect(response.status == 200, "Accept: \(accept)")
        }
        // No Content-Type at all is read as JSON.
        #expect(api.handle(batchRequest(ok, headers: [:]), authenticatedAs: .defaultAdmin).status == 200)
        #expect(
            String(decoding: api.handle(batchRequest(ok), authenticatedAs: .defaultAdmin).body, as: UTF8.self)
                == #"{"serviced_requests":[],"unserviced_requests":[]}"#)
    }

    @Test func batchItemsAuthenticateAsTheCaller() throws {
        // A dispatcher that authenticates each item the way the router will.
        struct AuthenticatingDispatcher: HTTPHandler {
            let authenticator: Authenticator
            func handle(_ request: HTTPRequest) -> HTTPResponse {
                switch authenticator.authenticate(request) {
                case .failure(let response): return response
                case .user(let user): return HTTPResponse(status: 200, body: Array(user.userName.utf8))
                }
            }
        }
        let authenticator = Authenticator(users: [.defaultAdmin, APIUser(userName: "etl", password: "pw")])
        let api = BatchAPI(dispatcher: AuthenticatingDispatcher(authenticator: authenticator))
        let json = """
            {"rest_requests":[{"id":"1","method":"GET","url":"/x","headers":[{"name":"Authorization","value":"\(basicHeader("etl", "pw"))"}]}]}
            """
        let object = try parse(api.handle(batchRequest(json), authenticatedAs: .defaultAdmin))
        let entry = try #require((object["serviced_requests"] as? [[String: Any]])?.first)
        #expect(entry["status_code"] as? Int == 200)
        #expect(Data(base64Encoded: entry["body"] as? String ?? "") == Data("admin".utf8))

        // Without an outer Authorization header the items are not authenticated.
        let anonymous = HTTPRequest(method: "POST", path: BatchAPI.path, body: Array(json.utf8))
        let denied = try parse(api.handle(anonymous, authenticatedAs: .defaultAdmin))
        let deniedEntry = try #require((denied["serviced_requests"] as? [[String: Any]])?.first)
        #expect(deniedEntry["status_code"] as? Int == 401)
        #expect(deniedEntry["status_text"] as? String == "Unauthorized")
    }
}
