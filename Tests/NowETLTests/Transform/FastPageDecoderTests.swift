import Foundation
import NowData
import NowSimTesting
import Testing

@testable import NowETL

/// ``FastPageDecoder`` gives exactly the records of the reference ``FoundationPageDecoder`` and throws
/// exactly where it throws: on real seeded pages, on awkward text and on malformed bodies.
@Suite(.timeLimit(.minutes(5))) struct FastPageDecoderTests {
    /// What a decoder made of a body: the records, or the error's message.
    enum Outcome: Equatable, CustomStringConvertible {
        case records([Record])
        case threw(String)

        var description: String {
            switch self {
            case .records(let records): "\(records.count) records: \(records)"
            case .threw(let message): "threw: \(message)"
            }
        }
    }

    /// A page's values are the bulk of its memory while it is transformed: a value stays 28 bytes
    /// (three ranges packed), and a range keeps what it was given.
    @Test func aRawValueIsPackedAndKeepsItsRanges() {
        #expect(MemoryLayout<RawValue>.stride == 28)
        let value = TextRange(start: 7, count: 3, kind: .escaped)
        let display = TextRange(start: UInt32.max, count: UInt32.max, kind: .extra)
        let link = TextRange(start: 1, count: 0, kind: .plain)
        var raw = RawValue(shape: .forms, value: value, displayValue: display, link: link)
        #expect(raw.value == value && raw.displayValue == display && raw.link == link && raw.shape == .forms)
        raw.link = .absent
        #expect(raw.link == .absent && raw.value == value && raw.displayValue == display)
        #expect(RawValue.text(value) == RawValue(shape: .text, value: value, displayValue: .absent, link: .absent))
        #expect(RawValue.text(value) != RawValue.text(link))
    }

    static func outcome(_ decoder: some PageDecoding, _ body: Data) -> Outcome {
        do {
            return .records(try decoder.records(in: body))
        } catch {
            return .threw(error.message)
        }
    }

    /// Expects the same outcome from both decoders; the fast decoder's message may add where the body
    /// broke to the reference's.
    static func expectSame(_ body: Data, _ comment: String, sourceLocation: SourceLocation = #_sourceLocation) {
        let reference = outcome(FoundationPageDecoder(), body)
        let fast = outcome(FastPageDecoder(), body)
        switch (reference, fast) {
        case (.records(let expected), .records(let actual)):
            #expect(actual == expected, "\(comment)", sourceLocation: sourceLocation)
        case (.threw(let expected), .threw(let actual)):
            #expect(actual.hasPrefix(expected), "\(comment): \(actual) / \(expected)", sourceLocation: sourceLocation)
        default:
            Issue.record("\(comment): reference \(reference), fast \(fast)", sourceLocation: sourceLocation)
        }
    }

    static func page(_ value: String, key: String = "x") -> Data {
        Data(#"{"result":[{"sys_id":"a","\#(key)":\#(value)},{"sys_id":"b"}]}"#.utf8)
    }

    static func bytes(_ parts: [UInt8]...) -> Data {
        Data(parts.joined())
    }

    // MARK: - Seeded pages

    /// A page of seeded incidents with every field, as the instance serves it.
    static func seededPage(
        _ sim: NowSimInstance, displayValue: String, limit: Int = 200, offset: Int = 0, extra: [(String, String)] = []
    ) async throws -> Data {
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", "ORDERBYsys_id"), ("sysparm_limit", String(limit)),
                ("sysparm_offset", String(offset)), ("sysparm_display_value", displayValue),
            ] + extra)
        try #require(response.status == 200)
        return response.body
    }

    @Test(arguments: ["false", "true", "all"])
    func seededPagesDecodeAsTheReferenceDoes(displayValue: String) async throws {
        let sim = try await ETLServers.get()
        for offset in [0, 600, 1100] {
            let body = try await Self.seededPage(sim, displayValue: displayValue, offset: offset)
            let expected = try FoundationPageDecoder().records(in: body)
            let actual = try FastPageDecoder().records(in: body)
            #expect(expected.count == (offset == 1100 ? 100 : 200))
            #expect(actual == expected, "display_value=\(displayValue) offset \(offset)")
            #expect((expected.first?.fields.count ?? 0) > 40, "every field")
            let forms = expected.flatMap(\.fields.values).filter {
                if case .forms(_, _, let link) = $0 { return displayValue == "true" || link != nil }
                return false
            }
            #expect(!forms.isEmpty || displayValue == "true", "reference links or value forms are on the page")

            let read = try #require(FastPageDecoder().keysetPageRead(of: body))
            #expect(read.content == expected)
            #expect(read.recordCount == expected.count)
            let sysIDs = expected.compactMap(\.sysID)
            #expect(sysIDs.count == expected.count)
            #expect(read.lastSysId == sysIDs.max { $0.utf8.lexicographicallyPrecedes($1.utf8) })
        }
    }

    @Test func aProjectionKeepsOnlyItsFields() async throws {
        let sim = try await ETLServers.get()
        let body = try await Self.seededPage(sim, displayValue: "all", limit: 50)
        let fields: Set = ["number", "caller_id", "short_description", "no_such_field"]
        let expected = try FoundationPageDecoder().records(in: body).map {
            Record(fields: $0.fields.filter { fields.contains($0.key) })
        }
        let decoder = FastPageDecoder(fields: fields)
        let actual = try decoder.records(in: body)
        #expect(actual == expected)
        #expect(actual.first?.fields.count == 3)
        // sys_id is read for the cursor even when it is not kept.
        let read = try #require(decoder.keysetPageRead(of: body))
        let all = try FoundationPageDecoder().records(in: body).compactMap(\.sysID)
        #expect(read.lastSysId == all.max())
        #expect(read.recordCount == 50)
    }

    @Test func theInstanceSourceDecodesInTheTransportsPass() async throws {
        let sim = try await ETLServers.get()
        let source = InstancePageSource(service: IncidentEdits.service(sim))
        let plan = ScriptedPlan.incident(pageSize: 100, partitions: 1)
        let window = PageWindow(range: try #require(SysIDRange.partitions(1).first), after: nil, limit: 100, offset: 0)
        let page = try await source.page(of: plan, window, decoder: FastPageDecoder())
        let records = try #require(page.records, "decoded in the transport's pass")
        #expect(records == (try FoundationPageDecoder().records(in: page.body)))
        #expect(page.recordCount == 100)
        #expect(page.lastSysID == records.compactMap(\.sysID).max())

        let reference = try await source.page(of: plan, window, decoder: FoundationPageDecoder())
        #expect(reference.records == nil, "a decoder without a one-pass read leaves the body to the caller")
        #expect(reference.recordCount == page.recordCount)
        #expect(reference.lastSysID == page.lastSysID)
    }

    @Test func aCutPageIsStillACancelledTransactionThroughTheReader() async throws {
        let sim = try await NowSimInstance.shared(arguments: ETLServers.seed + ["--fault", "truncate:table=incident"])
        let service = IncidentEdits.service(sim)
        let reader = FastReader()
        do {
            _ = try await service.keysetPage(
                from: "incident", configuration: FetchConfiguration(limit: 5), reader: reader)
            Issue.record("a cut page was accepted")
        } catch {
            guard case .fetchFailed(.transactionCancelled(let context)) = error else {
                Issue.record("expected fetchFailed(transactionCancelled), got \(error)")
                return
            }
            #expect(context.message?.contains("maximum execution time exceeded") == true)
        }
    }

    @Test func aBodyCutByAProxyIsRetriedAndThenTruncatedThroughTheReader() async throws {
        let sim = try await NowSimInstance.shared(
            arguments: ETLServers.seed + ["--fault", "truncate:table=incident,cut=true"])
        let service = IncidentEdits.service(sim)
        do {
            _ = try await service.keysetPage(
                from: "incident", configuration: FetchConfiguration(limit: 5), reader: FastReader())
            Issue.record("a cut page was accepted")
        } catch {
            guard case .fetchFailed(.truncatedResponse(let context)) = error else {
                Issue.record("expected fetchFailed(truncatedResponse), got \(error)")
                return
            }
            #expect(context.attempts > 1, "retried")
        }
    }

    /// The fast decoder as a NowData reader, for NowData-level checks.
    struct FastReader: KeysetPageReading {
        func read(_ body: Data) -> KeysetPageRead<[Record]>? {
            FastPageDecoder().keysetPageRead(of: body)
        }
    }

    // MARK: - Awkward text

    static let awkwardValues: [String] = [
        #""""#, #""plain""#, #""\"\\\/\b\f\n\r\t""#, #""\u0000""#, #""a\u0000b""#, #""\u00e9\u00E9""#,
        #""\u20ac\uFFFF\ufffe""#, #""\ud83d\ude00""#, #""\uD83D\uDE00 and \uDBFF\uDFFF""#,
        "\"caf\u{E9} \u{1F600} \u{4E2D}\"",
        "\"\u{7F}\"", "null", "0", "-1", "42", "1.0", "1.5", "-0", "-0.0", "1e3", "1E+2", "2.5e-5", "0.1",
        "0.30000000000000004", "123456789012345678", "1234567890123456789", "12345678901234567890",
        "123456789012345678901234", "-9223372036854775808", "1.5e300", "true", "false", "[]", #"["a",1]"#, "{}",
        #"{"value":"v","display_value":"d","link":"https://x/api/now/table/t/1"}"#,
        #"{"value":null,"display_value":5,"link":true,"other":{"deep":[1,2]}}"#,
        #"{"value":{"nested":1},"display_value":["x"]}"#, #"{"value":"a","value":"b"}"#,
        #"{"display_value":"\u00e9\n"}"#, #"{"value":"a",}"#, #"[1,]"#,
    ]

    @Test(arguments: awkwardValues)
    func awkwardValuesDecodeAsTheReferenceDoes(value: String) {
        Self.expectSame(Self.page(value), value)
    }

    @Test func awkwardValuesAreWhatTheyShouldBe() throws {
        func decoded(_ value: String) throws -> Record.Value? {
            try FastPageDecoder().records(in: Self.page(value)).first?.fields["x"]
        }
        #expect(try decoded(#""\ud83d\ude00""#) == .text("\u{1F600}"))
        #expect(try decoded(#""\u0000""#) == .text("\u{0}"))
        #expect(try decoded(#""\"\\\/\b\f\n\r\t""#) == .text("\"\\/\u{8}\u{C}\n\r\t"))
        #expect(try decoded("true") == .text("1"))
        #expect(try decoded("1e3") == .text("1000.0"))
        #expect(try decoded("42") == .text("42"))
        #expect(try decoded("null") == .null)
        #expect(try decoded("[1]") == .null)
        #expect(try decoded(#"{"value":"v","link":"l"}"#) == .forms(value: "v", displayValue: nil, link: "l"))
    }

    @Test func escapedKeysAndDuplicatesDecodeAsTheReferenceDoes() {
        Self.expectSame(Data(#"{"result":[{"sys\u005fid":"a","x":"1","x":"2"}]}"#.utf8), "escaped key, duplicate")
        Self.expectSame(Data(#"{"result":[{"a":"1"},{"b":"2","a":"3"},{"a":"4","b":"5"}]}"#.utf8), "key order")
        Self.expectSame(Data(#"{"result":[{"x":"1"}],"result":[{"y":"2"}]}"#.utf8), "two results")
        Self.expectSame(Data(#"{"result":[{"x":"1"}],"result":5}"#.utf8), "the last result is no array")
        Self.expectSame(Data(#"{"re\u0073ult":[{"x":"1"}],"error":null}"#.utf8), "escaped path key")
        Self.expectSame(Data(#" {"result" : [ { "x" : "1" } , { } ] } "#.utf8), "blanks everywhere")
        Self.expectSame(Data([0xEF, 0xBB, 0xBF] + Array(#"{"result":[{"x":"1"}]}"#.utf8)), "byte order mark")
        let utf16 = #"{"result":[{"x":"\u00e9"}]}"#.utf16.flatMap { [UInt8($0 & 0xFF), UInt8($0 >> 8)] }
        Self.expectSame(Data(utf16), "UTF-16")
    }

    @Test func longValuesDecodeAsTheReferenceDoes() {
        let ascii = String(repeating: "abcdefghij", count: 6_000)
        Self.expectSame(Self.page("\"\(ascii)\""), "60 KB ASCII")
        Self.expectSame(Self.page("\"\(String(repeating: "\u{E9}\u{1F600}", count: 10_000))\""), "60 KB non-ASCII")
        Self.expectSame(Self.page("\"\(ascii)\\n\(ascii)\\u00e9\""), "120 KB with escapes")
        let decoded = try? FastPageDecoder().records(in: Self.page("\"\(ascii)\""))
        #expect(decoded?.first?.fields["x"] == .text(ascii))
    }

    @Test func aSpecialByteAtEveryPositionOfTheWordScanIsSeen() {
        // The string scanner reads eight bytes at a time; put each kind of byte it must stop at in
        // every position of the first words.
        for special in ["\\n", "\\\"", "\\u00e9", "\u{E9}", "\u{1F600}"] {
            for position in 0..<20 {
                let text = String(repeating: "a", count: position) + special + String(repeating: "b", count: 20)
                Self.expectSame(Self.page("\"\(text)\""), "\(special) at \(position)")
            }
        }
        for position in 0..<20 {
            let head = Array(#"{"result":[{"x":""#.utf8) + Array(repeating: UInt8(ascii: "a"), count: position)
            Self.expectSame(Self.bytes(head, [0x01], Array(#""}]}"#.utf8)), "a control byte at \(position)")
            Self.expectSame(Self.bytes(head, [0xFF], Array(#""}]}"#.utf8)), "an invalid byte at \(position)")
            Self.expectSame(Self.bytes(head, Array(#""}]}"#.utf8)), "the closing quote at \(position)")
        }
    }

    // MARK: - Malformed bodies

    @Test func everyCutOfARealPageThrowsAsTheReferenceDoes() async throws {
        let sim = try await ETLServers.get()
        let body = try await Self.seededPage(sim, displayValue: "all", limit: 2)
        #expect(try FastPageDecoder().records(in: body).count == 2)
        var acceptedByReference: [Int] = []
        for length in 0..<body.count {
            let prefix = body.prefix(length)
            let reference = Self.outcome(FoundationPageDecoder(), prefix)
            let fast = Self.outcome(FastPageDecoder(), prefix)
            if case .records = reference { acceptedByReference.append(length) }
            if case .records = fast {
                Issue.record("the fast decoder accepted the first \(length) of \(body.count) bytes")
            }
            if case .records = reference { continue }
            #expect(FastPageDecoder().keysetPageRead(of: prefix) == nil, "cut at \(length)")
        }
        #expect(acceptedByReference.isEmpty, "the reference accepts the prefixes \(acceptedByReference)")
    }

    static let malformedBodies: [(String, [UInt8])] = [
        ("empty", []), ("blank", Array(" \n".utf8)), ("not JSON", Array("not json".utf8)),
        ("a fragment", Array(#""result""#.utf8)), ("a number", Array("1".utf8)),
        ("bad escape", Array(#"{"result":[{"x":"\x"}]}"#.utf8)),
        ("short \\u", Array(#"{"result":[{"x":"\u12"}]}"#.utf8)),
        ("bad hex", Array(#"{"result":[{"x":"\u12G4"}]}"#.utf8)),
        ("\\U", Array(#"{"result":[{"x":"\U0041"}]}"#.utf8)), ("\\'", Array(#"{"result":[{"x":"\'"}]}"#.utf8)),
        ("lone high surrogate", Array(#"{"result":[{"x":"\ud800"}]}"#.utf8)),
        ("lone high surrogate then text", Array(#"{"result":[{"x":"\ud800x"}]}"#.utf8)),
        ("lone low surrogate", Array(#"{"result":[{"x":"\udc00"}]}"#.utf8)),
        ("two high surrogates", Array(#"{"result":[{"x":"\ud800\ud800"}]}"#.utf8)),
        ("high surrogate then \\n", Array(#"{"result":[{"x":"\ud800\n"}]}"#.utf8)),
        ("lone surrogate in a skipped key", Array(#"{"result":[{"\udc00":"x"}]}"#.utf8)),
        ("raw tab", Array("{\"result\":[{\"x\":\"a\tb\"}]}".utf8)),
        ("raw NUL", Array("{\"result\":[{\"x\":\"a\u{0}b\"}]}".utf8)),
        ("trailing garbage", Array(#"{"result":[]} x"#.utf8)), ("trailing comma", Array(#"{"result":[]},"#.utf8)),
        ("two objects", Array(#"{"result":[]}{}"#.utf8)), ("trailing blanks", Array("{\"result\":[]} \n\t\r".utf8)),
        ("result object", Array(#"{"result":{}}"#.utf8)), ("result string", Array(#"{"result":"x"}"#.utf8)),
        ("result null", Array(#"{"result":null}"#.utf8)), ("record number", Array(#"{"result":[{},1]}"#.utf8)),
        ("record array", Array(#"{"result":[[]]}"#.utf8)), ("top array", Array("[]".utf8)),
        ("no result", Array(#"{"x":[]}"#.utf8)), ("empty object", Array("{}".utf8)),
        ("record not object, then broken", Array(#"{"result":[1,{"x":"\q"}]}"#.utf8)),
        ("result not array, then broken", Array(#"{"result":5,"x":tru}"#.utf8)),
        ("[,]", Array(#"{"result":[,]}"#.utf8)), ("{,}", Array(#"{"result":[{,}]}"#.utf8)),
        ("double comma", Array(#"{"result":[{"a":"1",,}]}"#.utf8)),
        ("trailing commas", Array(#"{"result":[{"a":"1",},]}"#.utf8)),
        ("missing colon", Array(#"{"result":[{"a" "1"}]}"#.utf8)), ("single quotes", Array("{'result':[]}".utf8)),
        ("comment", Array(#"{"result":[] /* */}"#.utf8)), ("vertical tab blank", Array("{\"result\":\u{0B}[]}".utf8)),
        ("01", Array(#"{"result":[{"x":01}]}"#.utf8)), ("1.", Array(#"{"result":[{"x":1.}]}"#.utf8)),
        (".5", Array(#"{"result":[{"x":.5}]}"#.utf8)), ("-", Array(#"{"result":[{"x":-}]}"#.utf8)),
        ("+1", Array(#"{"result":[{"x":+1}]}"#.utf8)), ("1e", Array(#"{"result":[{"x":1e}]}"#.utf8)),
        ("1e400", Array(#"{"result":[{"x":1e400}]}"#.utf8)), ("1e400 skipped", Array(#"{"x":1e400,"result":[]}"#.utf8)),
        ("NaN", Array(#"{"result":[{"x":NaN}]}"#.utf8)), ("tru", Array(#"{"result":[{"x":tru}]}"#.utf8)),
        ("nul", Array(#"{"result":[{"x":nul}]}"#.utf8)), ("True", Array(#"{"result":[{"x":True}]}"#.utf8)),
        ("FF", Array(#"{"result":[{"x":""#.utf8) + [0xFF] + Array(#""}]}"#.utf8)),
        ("C0 80 overlong", Array(#"{"result":[{"x":""#.utf8) + [0xC0, 0x80] + Array(#""}]}"#.utf8)),
        ("E0 80 80 overlong", Array(#"{"result":[{"x":""#.utf8) + [0xE0, 0x80, 0x80] + Array(#""}]}"#.utf8)),
        ("encoded surrogate", Array(#"{"result":[{"x":""#.utf8) + [0xED, 0xA0, 0x80] + Array(#""}]}"#.utf8)),
        ("above U+10FFFF", Array(#"{"result":[{"x":""#.utf8) + [0xF4, 0x90, 0x80, 0x80] + Array(#""}]}"#.utf8)),
        ("F5", Array(#"{"result":[{"x":""#.utf8) + [0xF5, 0x80, 0x80, 0x80] + Array(#""}]}"#.utf8)),
        ("cut sequence", Array(#"{"result":[{"x":""#.utf8) + [0xE2, 0x82] + Array(#""}]}"#.utf8)),
        ("lone continuation", Array(#"{"result":[{"x":""#.utf8) + [0x80] + Array(#""}]}"#.utf8)),
        ("invalid in a key", Array(#"{"result":[{""#.utf8) + [0xFF] + Array(#"":"1"}]}"#.utf8)),
        ("invalid in a skipped member", Array(#"{"x":""#.utf8) + [0xFF] + Array(#"","result":[]}"#.utf8)),
        ("invalid outside strings", Array(#"{"result":[]"#.utf8) + [0xFF] + Array("}".utf8)),
        ("valid U+FFFF", Array(#"{"result":[{"x":""#.utf8) + [0xEF, 0xBF, 0xBF] + Array(#""}]}"#.utf8)),
        ("only a byte order mark", [0xEF, 0xBB, 0xBF]), ("NUL first", [0] + Array("{}".utf8)),
    ]

    @Test func malformedBodiesThrowAsTheReferenceDoes() {
        for (name, body) in Self.malformedBodies {
            Self.expectSame(Data(body), name)
        }
    }

    @Test func nestingIsLimitedAsTheReferenceLimitsIt() {
        for depth in [1, 100, 508, 509, 510, 511, 600] {
            let value = String(repeating: "[", count: depth) + String(repeating: "]", count: depth)
            Self.expectSame(Self.page(value), "a value \(depth) arrays deep")
            let objects = String(repeating: #"{"a":"#, count: depth) + "1" + String(repeating: "}", count: depth)
            Self.expectSame(Self.page(objects), "a value \(depth) objects deep")
        }
        // The page is itself 3 deep: the deepest value the reference takes is 509 arrays.
        #expect(
            (try? FastPageDecoder().records(
                in: Self.page(String(repeating: "[", count: 509) + String(repeating: "]", count: 509)))) != nil)
        #expect(
            (try? FastPageDecoder().records(
                in: Self.page(String(repeating: "[", count: 510) + String(repeating: "]", count: 510)))) == nil)
    }

    @Test func aBodyWithAnErrorMemberIsLeftToNowData() {
        let body = Data(#"{"result":[{"sys_id":"a"}],"error":{"message":"Transaction cancelled"}}"#.utf8)
        #expect((try? FastPageDecoder().records(in: body))?.count == 1, "decodable")
        #expect(FastPageDecoder().keysetPageRead(of: body) == nil, "but not vouched for")
        #expect(FastPageDecoder().keysetPageRead(of: Data(#"{"result":[]}"#.utf8))?.recordCount == 0)
        #expect(FastPageDecoder(path: "x.result").keysetPageRead(of: Data(#"{"x":{"result":[]}}"#.utf8)) == nil)
        #expect((try? FastPageDecoder(path: "x.result").records(in: Data(#"{"x":{"result":[{}]}}"#.utf8)).count) == 1)
    }
}
