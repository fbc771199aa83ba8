import Testing

@testable import NowETL

/// The libyaml reader: node tree, marks, scalar styles, aliases, and what it refuses.
@Suite(.timeLimit(.minutes(5))) struct ConfigYAMLReaderTests {
    typealias Mark = YAMLNode.Mark

    static func parse(_ text: String) throws(ConfigError) -> YAMLDocument {
        try YAMLReader.parse(Array(text.utf8), file: "r.yaml")
    }

    @Test func blockAndFlowStyleGiveTheSameTreeWithMarks() throws {
        let block = try Self.parse(
            """
            # a comment
            name: x   # trailing comment
            list:
              - a
              - "b"
            map:
              k: 1
            """)
        let flow = try Self.parse("{ name: x, list: [a, \"b\"], map: { k: 1 } }")
        func shape(_ node: YAMLNode) -> String {
            switch node.content {
            case .scalar(let scalar): return scalar.isPlain ? scalar.text : "'\(scalar.text)'"
            case .sequence(let items): return "[" + items.map(shape).joined(separator: ",") + "]"
            case .mapping(let entries):
                return "{" + entries.map { "\($0.key):\(shape($0.value))" }.joined(separator: ",") + "}"
            }
        }
        #expect(shape(block.root) == "{name:x,list:[a,'b'],map:{k:1}}")
        #expect(shape(flow.root) == shape(block.root))

        let entries = try #require(block.root.entries)
        #expect(
            entries.map(\.keyMark) == [Mark(line: 2, column: 1), Mark(line: 3, column: 1), Mark(line: 6, column: 1)])
        #expect(block.root["name"]?.mark == Mark(line: 2, column: 7))
        #expect(block.root["list"]?.items?[1].mark == Mark(line: 5, column: 5))
        #expect(block.root["list"]?.items?[1].scalar?.style == .doubleQuoted)
        #expect(block.root["map"]?.mark == Mark(line: 7, column: 3))
        #expect(flow.root["map"]?.mark == Mark(line: 1, column: 33))
    }

    @Test(arguments: [
        ("plain: 1", YAMLNode.Scalar.Style.plain, true, "1"),
        ("single: '1'", .singleQuoted, false, "1"),
        ("double: \"a\\tb\"", .doubleQuoted, false, "a\tb"),
        ("literal: |\n  a\n  b\n", .literal, false, "a\nb\n"),
        ("folded: >-\n  a\n  b\n", .folded, false, "a b"),
        ("tagged: !!str 1", .plain, false, "1"),
    ])
    func scalarStylesAndPlainness(yaml: String, style: YAMLNode.Scalar.Style, isPlain: Bool, text: String) throws {
        let scalar = try #require(try Self.parse(yaml).root.entries?.first?.value.scalar)
        #expect(scalar.style == style)
        #expect(scalar.isPlain == isPlain)
        #expect(scalar.text == text)
    }

    @Test func nullsAreOnlyPlain() throws {
        let root = try Self.parse("a:\nb: ~\nc: null\nd: ''\ne: \"null\"\nf: NULL\n").root
        #expect(root.entries?.map { $0.value.scalar?.isNull == true } == [true, true, true, false, false, true])
    }

    @Test func aliasesAreCopiesMarkedAtTheAlias() throws {
        let root = try Self.parse(
            """
            defaults: &d { user: etl, page: 10 }
            first: *d
            word: &w hello
            second: *w
            """
        ).root
        #expect(root["first"]?.entries?.map(\.key) == ["user", "page"])
        #expect(root["first"]?.mark == Mark(line: 2, column: 8))
        #expect(root["first"]?["user"]?.mark == Mark(line: 1, column: 22))
        #expect(root["second"]?.scalar?.text == "hello")
        #expect(root["second"]?.mark == Mark(line: 4, column: 9))
    }

    @Test(arguments: [
        ("a: *nothing\n", "r.yaml:1:4: error: alias '*nothing' refers to no anchor defined before it"),
        (
            "base: &b { x: 1 }\nderived:\n  <<: *b\n",
            "r.yaml:3:3: error: YAML merge keys (<<) are not supported in pipeline files; repeat the keys"
        ),
        (
            "a: !!int 1\n",
            "r.yaml:1:4: error: YAML tags such as '!!int' are not supported in pipeline files (only !!str)"
        ),
        (
            "a: !custom x\n",
            "r.yaml:1:4: error: YAML tags such as '!custom' are not supported in pipeline files (only !!str)"
        ),
        ("? [a, b]\n: c\n", "r.yaml:1:3: error: mapping keys must be plain text, not lists or mappings"),
        ("a: 1\n\"a\": 2\n", "r.yaml:2:1: error: duplicate key 'a' at the top level (first at line 1, column 1)"),
        (
            "a: [1, 2\n",
            "r.yaml:2:1: error: did not find expected ',' or ']' (while parsing a flow sequence at line 1, column 4)"
        ),
        (
            "a: \"open\n",
            "r.yaml:2:1: error: found unexpected end of stream (while scanning a quoted scalar at line 1, column 4)"
        ),
        (
            "a: 1\n---\nb: 2\n",
            "r.yaml:2:1: error: a pipeline file holds one YAML document, but a second one starts here; remove the '---'"
        ),
    ])
    func refusals(yaml: String, expected: String) {
        do {
            _ = try Self.parse(yaml)
            Issue.record("accepted: \(yaml)")
        } catch {
            #expect(error.description == expected)
            #expect(error.kind == .syntax)
        }
    }

    @Test func aliasBombsStopEarly() {
        var text = "a0: &a0 [x, x, x, x, x, x, x, x, x, x]\n"
        for level in 1...6 {
            let refs = Array(repeating: "*a\(level - 1)", count: 10).joined(separator: ", ")
            text += "a\(level): &a\(level) [\(refs)]\n"
        }
        #expect(throws: ConfigError.self) { try Self.parse(text) }
    }

    @Test func invalidUTF8IsPositioned() {
        let bytes = Array("a: ok\nb: ".utf8) + [0xFF] + Array("\n".utf8)
        do {
            _ = try YAMLReader.parse(bytes, file: "r.yaml")
            Issue.record("accepted invalid UTF-8")
        } catch {
            #expect(
                error.description
                    == "r.yaml:2:4: error: the file is not valid UTF-8: invalid leading UTF-8 octet (byte 0xFF)")
        }
    }

    @Test func emptyStreamsAreEmptyDocuments() throws {
        #expect(try Self.parse("").isEmpty)
        #expect(try Self.parse("# only a comment\n").isEmpty)
        #expect(try !Self.parse("---\n").isEmpty)
        #expect(try Self.parse("---\n").root.scalar?.isNull == true)
    }

    @Test func missingFilesAreUnreadable() {
        do {
            _ = try YAMLReader.read(contentsOf: "/nonexistent/pipeline.yaml")
            Issue.record("read a missing file")
        } catch {
            #expect(error.kind == .unreadableFile)
            #expect(
                error.description
                    == "/nonexistent/pipeline.yaml: error: cannot read the file: No such file or directory")
        }
    }

    @Test(arguments: [
        // (line, offset into the value, expected column)
        ("k: abcdef", 3, 7),
        ("k: 'it''s here'", 3, 9),
        ("k: 'it''s here'", 2, 7),
        ("k: \"a\\u00e9b\"", 3, 12),
        ("k: \"a\\tb\"", 2, 8),
        ("k: äöü x", 6, 7),
        ("k: abc", 99, 7),
        ("{ k: [one, two] }", 1, 13),
    ])
    func positionsInsideScalars(yaml: String, offset: Int, column: Int) throws {
        let document = try Self.parse(yaml)
        var node = try #require(document.root["k"])
        if let items = node.items { node = items[1] }
        #expect(document.position(ofUTF8Offset: offset, in: node) == Mark(line: 1, column: column))
    }

    @Test func positionsInsideMultiLineScalarsAreTheirStart() throws {
        let document = try Self.parse("k: |\n  abc\n  def\nm: \"two\n  lines\"\n")
        let literal = try #require(document.root["k"])
        #expect(document.position(ofUTF8Offset: 5, in: literal) == Mark(line: 1, column: 4))
        let quoted = try #require(document.root["m"])
        #expect(document.position(ofUTF8Offset: 5, in: quoted) == Mark(line: 4, column: 4))
    }

    @Test func crlfLineEndingsCountOnce() throws {
        let document = try Self.parse("a: 1\r\nb: 2\r\nc: xyz\r\n")
        #expect(document.root["c"]?.mark == Mark(line: 3, column: 4))
        let node = try #require(document.root["c"])
        #expect(document.position(ofUTF8Offset: 2, in: node) == Mark(line: 3, column: 6))
    }
}
