import Foundation
import NowSim
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct AuthErrorEnvelopeTests {}

/// Parses a JSON body into a dictionary, failing the test when it is not a JSON object.
private func jsonObject(_ bytes: [UInt8]) throws -> NSDictionary {
    try #require(try JSONSerialization.jsonObject(with: Data(bytes)) as? NSDictionary)
}

struct ErrorEnvelopeLiteral: Sendable, CustomTestStringConvertible {
    let name: String
    let response: HTTPResponse
    let status: Int
    let expectedJSON: String
    var testDescription: String { name }
}

private let literals: [ErrorEnvelopeLiteral] = [
    .init(
        name: "notAuthenticated", response: ErrorEnvelope.notAuthenticated, status: 401,
        expectedJSON:
            #"{"error":{"message":"User Not Authenticated","detail":"Required to provide Auth information"},"status":"failure"}"#
    ),
    .init(
        name: "noRecord", response: ErrorEnvelope.noRecord, status: 404,
        expectedJSON:
            #"{"error":{"message":"No Record found","detail":"Record doesn't exist or ACL restricts the record retrieval"},"status":"failure"}"#
    ),
    .init(
        name: "invalidTable", response: ErrorEnvelope.invalidTable("incidnet"), status: 400,
        expectedJSON:
            #"{"error":{"message":"Invalid table incidnet","detail":"Table incidnet does not exist"},"status":"failure"}"#
    ),
    .init(
        name: "aclUpdateFailed", response: ErrorEnvelope.aclUpdateFailed, status: 403,
        expectedJSON:
            #"{"error":{"message":"Operation Failed","detail":"ACL Exception Update Failed due to security constraints"},"status":"failure"}"#
    ),
    .init(
        name: "insufficientRights", response: ErrorEnvelope.insufficientRights, status: 403,
        expectedJSON: #"{"error":{"message":"Insufficient rights to query records","detail":null},"status":"failure"}"#
    ),
    .init(
        name: "noResource", response: ErrorEnvelope.noResource, status: 400,
        expectedJSON:
            #"{"error":{"message":"Requested URI does not represent any resource","detail":null},"status":"failure"}"#
    ),
    .init(
        name: "rateLimited", response: ErrorEnvelope.rateLimited(limit: 100, apiName: "Table API", retryAfter: 42),
        status: 429,
        expectedJSON:
            #"{"error":{"message":"Rate limit exceeded","detail":"Rate limit of 100 requests per hour for Table API exceeded"},"status":"failure"}"#
    ),
    .init(
        name: "invalidJSONBody", response: ErrorEnvelope.invalidJSONBody, status: 400,
        expectedJSON:
            #"{"error":{"message":"Exception while reading request","detail":"The payload is not valid JSON."},"status":"failure"}"#
    ),
    .init(
        name: "transactionCancelled", response: ErrorEnvelope.transactionCancelled(), status: 500,
        expectedJSON:
            #"{"error":{"message":"Transaction cancelled: maximum execution time exceeded","detail":"Transaction cancelled: maximum execution time exceeded Check logs for error trace or enable glide.rest.debug property to verify REST request processing"},"status":"failure"}"#
    ),
    .init(
        name: "payloadTooLarge",
        response: ErrorEnvelope.payloadTooLarge(contentLength: 15_105_102, maxAllowed: 10_485_760),
        status: 400,
        expectedJSON:
            #"{"error":{"message":"Exception while reading request","detail":"Rejected large REST payload with content-length = 15105102 bytes. Max allowed: 10485760 bytes."},"status":"failure"}"#
    ),
]

extension AuthErrorEnvelopeTests {
    @Test(arguments: literals)
    func errorEnvelopeLiteralIsByteExact(_ literal: ErrorEnvelopeLiteral) throws {
        #expect(literal.response.status == literal.status)
        #expect(literal.response.header("content-type") == "application/json;charset=UTF-8")
        #expect(String(decoding: literal.response.body, as: UTF8.self) == literal.expectedJSON)
        // The same document, independent of key order and spacing.
        #expect(try jsonObject(literal.response.body) == jsonObject(Array(literal.expectedJSON.utf8)))
    }

    @Test func errorEnvelopeNullDetailIsJSONNullNotAString() throws {
        let object = try jsonObject(ErrorEnvelope.body(message: "m", detail: nil))
        let error = try #require(object["error"] as? NSDictionary)
        #expect(error["detail"] is NSNull)
        #expect(error["message"] as? String == "m")
        #expect(object["status"] as? String == "failure")
    }

    @Test func errorEnvelopeNotAuthenticatedCarriesTheInstanceChallenge() {
        #expect(ErrorEnvelope.notAuthenticated.header("WWW-Authenticate") == #"BASIC realm="Service-now""#)
    }

    @Test func errorEnvelopeRateLimitedSetsRetryAfterAndExtraHeaders() {
        let response = ErrorEnvelope.rateLimited(
            limit: 10, apiName: "Table API", retryAfter: 17, headers: [(name: "X-RateLimit-Limit", value: "10")])
        #expect(response.header("Retry-After") == "17")
        #expect(response.header("X-RateLimit-Limit") == "10")
        #expect(response.headers.first?.name == "Content-Type")
    }

    @Test func errorEnvelopeOtherStatuses() throws {
        let method = ErrorEnvelope.methodNotAllowed("DELETE", allowed: ["GET", "POST"])
        #expect(method.status == 405)
        #expect(method.header("Allow") == "GET, POST")
        #expect(ErrorEnvelope.methodNotAllowed("PUT").header("Allow") == nil)
        let media = ErrorEnvelope.unsupportedMediaType()
        #expect(media.status == 415)
        #expect(
            String(decoding: media.body, as: UTF8.self)
                == #"{"error":{"message":"Invalid content-type. Supported request media types for this service are: [application/json, application/xml, text/xml]","detail":null},"status":"failure"}"#
        )
        #expect(ErrorEnvelope.notAcceptable().status == 406)
        #expect(ErrorEnvelope.operationFailed(detail: "Data Policy Exception: x").status == 403)
        let bad = ErrorEnvelope.badRequest(message: "a", detail: "b")
        #expect(bad.status == 400)
        #expect(
            try jsonObject(bad.body)
                == jsonObject(Array(#"{"status":"failure","error":{"detail":"b","message":"a"}}"#.utf8)))
    }

    @Test(arguments: [
        ("plain", #""plain""#),
        ("quote \" and backslash \\", #""quote \" and backslash \\""#),
        ("line\nfeed\ttab\r\u{08}\u{0C}", #""line\nfeed\ttab\r\b\f""#),
        ("ctl\u{01}\u{1F}", #""ctl\u0001\u001f""#),
        ("slash / and ünïcödé 🎉", "\"slash / and ünïcödé 🎉\""),
        ("", #""""#),
    ])
    func errorEnvelopeEscapesJSONStrings(_ input: String, _ expected: String) throws {
        var bytes: [UInt8] = []
        ErrorEnvelope.appendQuoted(input, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == expected)
        // And the envelope with it parses back to the original text.
        let object = try jsonObject(ErrorEnvelope.body(message: input, detail: input))
        let error = try #require(object["error"] as? [String: Any])
        #expect(error["message"] as? String == input)
        #expect(error["detail"] as? String == input)
    }

    @Test func errorEnvelopeMembersCompleteATruncatedResultBody() throws {
        var body = Array(#"{"result":[{"number":"INC1"}"#.utf8)
        body.append(contentsOf: "],".utf8)
        ErrorEnvelope.appendMembers(
            message: ErrorEnvelope.transactionCancelledMessage, detail: ErrorEnvelope.transactionCancelledDetail,
            to: &body)
        body.append(UInt8(ascii: "}"))
        let object = try jsonObject(body)
        #expect((object["result"] as? [Any])?.count == 1)
        #expect(object["status"] as? String == "failure")
        #expect(
            (object["error"] as? [String: Any])?["message"] as? String
                == "Transaction cancelled: maximum execution time exceeded")
    }
}
