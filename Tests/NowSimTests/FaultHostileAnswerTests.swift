import Foundation
import NowSimTesting
import Testing

@testable import NowSim

/// The hostile answers of issue 24 as faults (`retry-after`, `count`, `oversize`, `gzip-bomb`,
/// `content-encoding`, `ansi-error`, `stuck-cursor`): the exact bytes a client gets, through the real
/// `nowsim` binary.
@Suite(.timeLimit(.minutes(5))) struct FaultHostileAnswerTests {
    // MARK: - Specs

    @Test(arguments: [
        ("retry-after:1e30", Fault(kind: .retryAfter("1e30"))),
        ("retry-after:-5", Fault(kind: .retryAfter("-5"))),
        ("retry-after:", Fault(kind: .retryAfter(""))),
        (
            "retry-after:Sun, 06 Nov 1994 08:49:37 GMT",
            Fault(kind: .retryAfter("Sun, 06 Nov 1994 08:49:37 GMT"))
        ),
        (
            "retry-after:table=incident,every=2,value=Sun, 06 Nov 1994 08:49:37 GMT",
            Fault(kind: .retryAfter("Sun, 06 Nov 1994 08:49:37 GMT"), table: "incident", every: 2)
        ),
        ("retry-after:value=a=b,c", Fault(kind: .retryAfter("a=b,c"))),
        ("count:-9223372036854775808", Fault(kind: .count("-9223372036854775808"))),
        ("count:after=1,value=1e400", Fault(kind: .count("1e400"), after: 1)),
        ("total-count:abc", Fault(kind: .totalCount("abc"))),
        ("total-count:table=incident,after=2,value=-1", Fault(kind: .totalCount("-1"), table: "incident", after: 2)),
        ("content-encoding:br", Fault(kind: .contentEncoding("br"))),
        ("oversize", Fault(kind: .oversize(bytes: 64 << 20))),
        ("oversize:3MB,table=problem", Fault(kind: .oversize(bytes: 3 << 20), table: "problem")),
        ("oversize:size=512kb", Fault(kind: .oversize(bytes: 512 << 10))),
        ("gzip-bomb", Fault(kind: .gzipBomb(bytes: 1 << 30))),
        ("gzip-bomb:1048576,every=3", Fault(kind: .gzipBomb(bytes: 1 << 20), every: 3)),
        ("ansi-error", Fault(kind: .ansiError(status: 400))),
        ("ansi-error:code=500,table=incident", Fault(kind: .ansiError(status: 500), table: "incident")),
        ("stuck-cursor:table=incident", Fault(kind: .stuckCursor, table: "incident")),
        ("status:table=incident,api=table", Fault(kind: .status(503), table: "incident", api: .table)),
        ("count:api=stats,value=7", Fault(kind: .count("7"), api: .stats)),
    ])
    func specsParseAndPrintBack(spec: String, fault: Fault) throws {
        let parsed = try Fault(parsing: spec)
        #expect(parsed == fault)
        #expect(try Fault(parsing: parsed.description) == fault, "\(parsed.description)")
    }

    @Test(arguments: [
        ("retry-after", "needs a value"),
        ("retry-after:a\r\nX-Injected: 1", "CR, LF or NUL"),
        ("count", "needs a value"),
        ("oversize:lots", "size must be a byte count"),
        ("oversize:65GB", "size must be a byte count"),
        ("gzip-bomb:size=-1", "size must be a byte count"),
        ("ansi-error:code=200", "code must be 400…599"),
        ("stuck-cursor:bogus=1", "unknown setting 'bogus'"),
        ("status:api=attachment", "api must be table or stats"),
    ])
    func badSpecsAreRefused(spec: String, message: String) {
        let error = #expect(throws: Fault.ParseError.self) { try Fault(parsing: spec) }
        #expect(error?.description.contains(message) == true, "\(String(describing: error))")
    }

    // MARK: - Answers

    @Test func retryAfterIsSentVerbatim() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            for value in ["1e30", "999999", "-5", "abc", "Sun, 06 Nov 1994 08:49:37 GMT"] {
                try await sim.withFaults(["retry-after:table=incident,value=\(value)"]) {
                    let limited = try await sim.request("/api/now/table/incident")
                    #expect(limited.status == 429)
                    #expect(limited.header("Retry-After") == value)
                    #expect(limited.header("X-RateLimit-Reset") == nil)
                    #expect(
                        String(decoding: limited.body, as: UTF8.self)
                            == #"{"error":{"message":"Rate limit exceeded","detail":"Rate limit of 100 requests per hour for Table API exceeded"},"status":"failure"}"#
                    )
                    #expect(try await sim.request("/api/now/table/problem").status == 200)
                }
            }
        }
    }

    @Test func countIsSentVerbatimByTheAggregateAPIAndXTotalCount() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            for value in ["-9223372036854775808", "1e400", "99999999999999999999"] {
                try await sim.withFaults(["count:\(value)"]) {
                    let stats = try await sim.request("/api/now/stats/incident", query: [("sysparm_count", "true")])
                    #expect(stats.status == 200)
                    #expect(
                        String(decoding: stats.body, as: UTF8.self) == #"{"result":{"stats":{"count":"\#(value)"}}}"#)
                    let grouped = try await sim.request(
                        "/api/now/stats/incident", query: [("sysparm_count", "true"), ("sysparm_group_by", "active")])
                    let groups = try #require((grouped.json as? [String: Any])?["result"] as? [[String: Any]])
                    #expect(!groups.isEmpty)
                    for group in groups {
                        #expect((group["stats"] as? [String: Any])?["count"] as? String == value)
                    }
                    let page = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
                    #expect(page.header("X-Total-Count") == value)
                    #expect(page.resultList.count == 1)
                }
            }
        }
    }

    /// `total-count` mangles the Table API's `X-Total-Count` alone: the Aggregate API still counts truly,
    /// and a request that asked for no count gets none.
    @Test func totalCountManglesOnlyXTotalCount() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            try await sim.withFaults(["total-count:-7"]) {
                let stats = try await sim.request("/api/now/stats/incident", query: [("sysparm_count", "true")])
                #expect(String(decoding: stats.body, as: UTF8.self) == #"{"result":{"stats":{"count":"3"}}}"#)
                let page = try await sim.request("/api/now/table/incident", query: [("sysparm_limit", "1")])
                #expect(page.header("X-Total-Count") == "-7")
                #expect(page.resultList.count == 1)
                let uncounted = try await sim.request(
                    "/api/now/table/incident", query: [("sysparm_limit", "1"), ("sysparm_no_count", "true")])
                #expect(uncounted.header("X-Total-Count") == nil)
            }
        }
    }

    @Test func oversizePadsAValidPageToTheSize() async throws {
        try await withNowSim(arguments: ["--seed", "incident=20"]) { sim in
            let query = [("sysparm_query", "ORDERBYsys_id"), ("sysparm_fields", "sys_id,number")]
            let plain = try await sim.request("/api/now/table/incident", query: query)
            try await sim.withFaults(["oversize:2MB,table=incident"]) {
                let padded = try await sim.request("/api/now/table/incident", query: query)
                #expect(padded.status == 200)
                #expect(padded.body.count == 2 << 20)
                #expect(padded.header("Content-Length") == String(2 << 20))
                // The page itself, then spaces, then the object's closing brace.
                #expect(padded.body.prefix(plain.body.count - 1) == plain.body.dropLast())
                #expect(padded.body.last == UInt8(ascii: "}"))
                #expect(padded.body.dropFirst(plain.body.count - 1).dropLast().allSatisfy { $0 == 0x20 })
                #expect(padded.resultList.compactMap { $0["sys_id"] as? String }.count == 20)
                #expect(
                    padded.resultList.map { $0["sys_id"] as? String }
                        == plain.resultList.map { $0["sys_id"] as? String })
                // XML: white space after the root element.
                let xml = try await sim.request(
                    "/api/now/table/incident", query: query, headers: ["Accept": "application/xml"])
                #expect(xml.body.count == 2 << 20)
                #expect(
                    String(decoding: xml.body, as: UTF8.self).trimmingCharacters(in: .whitespaces).hasSuffix(
                        "</response>"))
            }
        }
    }

    @Test func gzipBombInflatesToItsSize() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            try await sim.withFaults(["gzip-bomb:8MB,table=incident"]) {
                let bomb = try await sim.request("/api/now/table/incident", headers: ["Accept-Encoding": "identity"])
                #expect(bomb.status == 200)
                #expect(bomb.header("Content-Encoding") == "gzip")
                #expect(bomb.body.count < 64 << 10, "\(bomb.body.count) bytes")
                let file = sim.directory.appendingPathComponent("bomb.gz")
                try bomb.body.write(to: file)
                let inflated = try await Subprocess.run(
                    "/bin/sh",
                    [
                        "-c", #"gzip -dc < "$0" | wc -c; gzip -dc < "$0" | head -c 11; gzip -dc < "$0" | tail -c 2"#,
                        file.path,
                    ],
                    timeout: 120)
                #expect(inflated.status == 0, "\(inflated.output)")
                #expect(inflated.stdoutText == "\(8 << 20)\n{\"result\":[]}", "\(inflated.output)")
                #expect(try await sim.request("/api/now/table/problem").header("Content-Encoding") == nil)
            }
            try await sim.withFaults(["gzip-bomb:table=incident"]) {
                let bomb = try await sim.request("/api/now/table/incident")
                // ~1 MB that says (ISIZE, the last 4 bytes, little-endian) it inflates to 1 GiB.
                #expect(bomb.body.count > 512 << 10 && bomb.body.count < 2 << 20, "\(bomb.body.count) bytes")
                #expect(Array(bomb.body.prefix(3)) == [0x1F, 0x8B, 0x08])
                #expect(Array(bomb.body.suffix(4)) == [0x00, 0x00, 0x00, 0x40])
            }
        }
    }

    @Test func contentEncodingLabelsAPlainBody() async throws {
        try await withNowSim(arguments: ["--seed", "incident=3"]) { sim in
            let plain = try await sim.request("/api/now/table/incident")
            for encoding in ["br", "zstd"] {
                try await sim.withFaults(["content-encoding:\(encoding)"]) {
                    let labelled = try await sim.request("/api/now/table/incident")
                    #expect(labelled.status == 200)
                    #expect(labelled.header("Content-Encoding") == encoding)
                    #expect(labelled.body == plain.body)
                }
            }
        }
    }

    @Test func ansiErrorCarriesEscapeSequencesInTheEnvelope() async throws {
        try await withNowSim { sim in
            for code in [400, 500] {
                try await sim.withFaults(["ansi-error:code=\(code),table=incident"]) {
                    let failed = try await sim.request("/api/now/table/incident")
                    #expect(failed.status == code)
                    #expect(failed.header("Content-Type") == "application/json;charset=UTF-8")
                    let expected =
                        #"{"error":{"message":"\u001b]0;pwned\u0007\u001b[2J\u001b[HInvalid table\r\b\b"#
                        + "\u{9B}"
                        + #"31mrm -rf /\u001b[0m","detail":"\u001b]2;pwned\u001b\\\u001b[1A\u001b[K\u0000"#
                        + "\u{7F}"
                        + #"\u0007\u000b\nnowetl: run ok"# + "\u{202E}" + #"gpj.exe"},"status":"failure"}"#
                    #expect(String(decoding: failed.body, as: UTF8.self) == expected)
                    let error = (failed.json as? [String: Any])?["error"] as? [String: Any]
                    #expect(error?["message"] as? String == FaultInjector.ansiMessage)
                    #expect(error?["detail"] as? String == FaultInjector.ansiDetail)
                    #expect((error?["message"] as? String)?.hasPrefix("\u{1B}]0;pwned\u{07}\u{1B}[2J") == true)
                }
            }
        }
    }

    @Test func stuckCursorReturnsTheFirstPageWhateverTheCursor() async throws {
        try await withNowSim(arguments: ["--seed", "incident=30"]) { sim in
            func page(_ query: String) async throws -> [String] {
                try await sim.request(
                    "/api/now/table/incident",
                    query: [("sysparm_query", query), ("sysparm_limit", "5"), ("sysparm_fields", "sys_id")]
                ).resultList.compactMap { $0["sys_id"] as? String }
            }
            let first = try await page("ORDERBYsys_id")
            #expect(first.count == 5)
            let cursor = try #require(first.last)
            let next = try await page("sys_id>\(cursor)^ORDERBYsys_id")
            #expect(next.count == 5 && next.first ?? "" > cursor)
            try await sim.withFaults(["stuck-cursor:table=incident"]) {
                let stuck = try await page("sys_id>\(cursor)^ORDERBYsys_id")
                let filtered = try await page("active=true^sys_id>\(cursor)^ORDERBYsys_id")
                let injected = try await page("sys_id>zz^NQsys_idISNOTEMPTY^ORDERBYsys_id")
                let bounded = try await page("sys_id>=\(next[0])^sys_id>\(next[2])^ORDERBYsys_id")
                #expect(stuck == first)
                #expect(filtered == (try await page("active=true^ORDERBYsys_id")))
                #expect(injected == first)
                // A range's lower bound (>=) still holds.
                #expect(bounded == next)
            }
        }
    }
}
