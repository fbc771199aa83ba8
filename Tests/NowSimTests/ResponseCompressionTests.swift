import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// Compressed answers (`Accept-Encoding: gzip`, as instances give them): the header's reading, and
/// the bytes the real `nowsim` binary sends with and without it.
@Suite(.timeLimit(.minutes(5))) struct ResponseCompressionTests {
    // MARK: - Accept-Encoding

    @Test(
        arguments: [
            (nil, false),
            ("", false),
            ("gzip", true),
            ("GZip", true),
            ("x-gzip", true),
            ("gzip, deflate, br", true),
            ("deflate,  Gzip ;q=0.5", true),
            ("gzip;q=0", false),
            ("gzip; Q=0.000", false),
            ("gzip;q=0.001", true),
            ("gzip;q=nonsense", true),
            ("*", true),
            ("*;q=0", false),
            ("gzip;q=0, *", false),
            ("*;q=0, gzip", true),
            ("identity", false),
            ("identity, deflate, br", false),
            (",,;", false),
        ] as [(String?, Bool)])
    func acceptEncodingAllowsGzip(header: String?, allows: Bool) {
        #expect(AcceptEncoding(header: header).allowsGzip == allows)
    }

    @Test(
        arguments: [
            ("application/json;charset=UTF-8", true),
            ("application/xml;charset=UTF-8", true),
            ("text/html", true),
            ("application/vnd.collection+json", true),
            ("image/png", false),
            ("application/octet-stream", false),
            (nil, false),
        ] as [(String?, Bool)])
    func onlyTextIsCompressed(contentType: String?, compressible: Bool) {
        #expect(ResponseCompression.isCompressible(contentType) == compressible)
    }

    // MARK: - Answers

    private static let page: [(String, String)] = [("sysparm_limit", "20"), ("sysparm_query", "ORDERBYnumber")]

    @Test func aTableAPIPageIsGzippedWhenAskedAndInflatesToTheSameBytes() async throws {
        let sim = try await SharedNowSim.get()
        let plain = try await sim.request("/api/now/table/incident", query: Self.page)
        let packed = try await sim.request(
            "/api/now/table/incident", query: Self.page, headers: ["Accept-Encoding": "gzip"])
        #expect(plain.status == 200 && packed.status == 200)
        #expect(plain.header("Content-Encoding") == nil)
        #expect(plain.header("Vary") == nil)
        #expect(packed.header("Content-Encoding") == "gzip")
        #expect(packed.header("Vary") == "Accept-Encoding")
        #expect(packed.header("Content-Type") == plain.header("Content-Type"))
        #expect(packed.header("X-Total-Count") == plain.header("X-Total-Count"))
        #expect(packed.header("Link") == plain.header("Link"))
        #expect(packed.header("Content-Length") == String(packed.body.count))
        #expect(packed.body.count * 3 < plain.body.count, "\(packed.body.count) of \(plain.body.count) bytes")
        #expect(try await Self.gunzip(packed.body) == plain.body)
    }

    @Test func refusingGzipGetsTheIdentityAnswer() async throws {
        let sim = try await SharedNowSim.get()
        let plain = try await sim.request("/api/now/table/incident", query: Self.page)
        for refusal in ["gzip;q=0", "identity", "gzip;q=0, *", "br"] {
            let answer = try await sim.request(
                "/api/now/table/incident", query: Self.page, headers: ["Accept-Encoding": refusal])
            #expect(answer.header("Content-Encoding") == nil, "\(refusal)")
            #expect(answer.body == plain.body, "\(refusal)")
        }
    }

    @Test(arguments: [
        ("/api/now/table/incident", [("sysparm_limit", "3")], "application/xml"),
        ("/api/now/table/sys_user", [("sysparm_limit", "1"), ("sysparm_fields", "user_name")], "application/json"),
        ("/api/now/stats/incident", [("sysparm_count", "true")], "application/json"),
        ("/api/now/table/no_such_table", [], "application/json"),
    ])
    func otherAnswersAreGzippedToo(path: String, query: [(String, String)], accept: String) async throws {
        let sim = try await SharedNowSim.get()
        let plain = try await sim.request(path, query: query, headers: ["Accept": accept])
        let packed = try await sim.request(
            path, query: query, headers: ["Accept": accept, "Accept-Encoding": "gzip"])
        #expect(packed.status == plain.status)
        #expect(packed.header("Content-Encoding") == "gzip")
        #expect(try await Self.gunzip(packed.body) == plain.body)
    }

    @Test func faultBodiesAreNotEncodedTwice() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            try await sim.withFaults(["gzip-bomb:1MB,table=incident"]) {
                let bomb = try await sim.request("/api/now/table/incident", headers: ["Accept-Encoding": "gzip"])
                #expect(bomb.header("Content-Encoding") == "gzip")
                #expect(bomb.header("Vary") == nil)
                let inflated = try await Self.gunzip(bomb.body)
                #expect(inflated.count == 1 << 20)
                #expect(inflated.starts(with: Data(#"{"result":["#.utf8)))
            }
            try await sim.withFaults(["content-encoding:table=incident,value=br"]) {
                let mislabelled = try await sim.request(
                    "/api/now/table/incident", headers: ["Accept-Encoding": "gzip"])
                #expect(mislabelled.header("Content-Encoding") == "br")
                #expect(mislabelled.body.starts(with: Data(#"{"result":["#.utf8)))
            }
            try await sim.withFaults(["oversize:1MB,table=incident"]) {
                let padded = try await sim.request("/api/now/table/incident", headers: ["Accept-Encoding": "gzip"])
                #expect(padded.header("Content-Encoding") == nil)
                #expect(padded.body.count == 1 << 20)
            }
        }
    }

    /// `bytes` inflated by Python's gzip module (an independent decoder), failing the test on error.
    static func gunzip(_ bytes: Data) async throws -> Data {
        let result = try await Subprocess.run(
            "/usr/bin/env",
            ["python3", "-c", "import gzip, sys; sys.stdout.buffer.write(gzip.decompress(sys.stdin.buffer.read()))"],
            input: bytes)
        #expect(result.status == 0, "\(result.stderrText)")
        return result.stdout
    }
}
