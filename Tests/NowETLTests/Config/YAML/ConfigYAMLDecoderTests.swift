import Testing

@testable import NowETL

/// The strict decoder on its own, with small `Decodable` types.
@Suite(.timeLimit(.minutes(5))) struct ConfigYAMLDecoderTests {
    struct Settings: Decodable, Equatable {
        enum Mode: String, Decodable, CaseIterable {
            case fast, slow
        }
        var name: String
        var count: Int
        var ratio: Double
        var enabled: Bool
        var tags: [String]
        var small: UInt8?
        var mode: Mode?
    }

    /// A type whose `init(from:)` rejects a value with a plain `DecodingError`.
    struct Even: Decodable {
        var value: Int
        init(from decoder: any Decoder) throws {
            let container = try decoder.singleValueContainer()
            value = try container.decode(Int.self)
            if value % 2 != 0 {
                throw DecodingError.dataCorruptedError(in: container, debugDescription: "must be even, got \(value)")
            }
        }
    }

    static func decode<T: Decodable>(
        _ type: T.Type, _ yaml: String, environment: [String: String] = [:]
    ) throws(ConfigError) -> T {
        try YAMLDecoder(environment: environment).decode(type, from: YAMLReader.parse(Array(yaml.utf8), file: "d.yaml"))
    }

    static func failure<T: Decodable>(_ type: T.Type, _ yaml: String, environment: [String: String] = [:]) -> String {
        do {
            let value = try decode(type, yaml, environment: environment)
            return "decoded \(value)"
        } catch {
            return error.description
        }
    }

    static let valid = "name: x\ncount: -3\nratio: 1.5e2\nenabled: false\ntags: [a, 'b']\n"

    @Test func primitivesDecode() throws {
        let settings = try Self.decode(Settings.self, Self.valid + "small: 255\nmode: fast\n")
        #expect(
            settings
                == Settings(
                    name: "x", count: -3, ratio: 150, enabled: false, tags: ["a", "b"], small: 255, mode: .fast))
        #expect(try Self.decode(Settings.self, Self.valid + "small: ~\nmode:\n").small == nil)
        #expect(try Self.decode([String: Int].self, "{ a: 1, b: 2 }") == ["a": 1, "b": 2])
        #expect(try Self.decode([[Int]].self, "- [1, 2]\n- []\n") == [[1, 2], []])
        #expect(try Self.decode([Double].self, "[2, -0.5, .5, 1e3]") == [2, -0.5, 0.5, 1000])
        #expect(try Self.decode([String].self, "[1, true, ~x, 'null']") == ["1", "true", "~x", "null"])
    }

    @Test(arguments: [
        (
            "small: 300\n",
            "d.yaml:6:8: error: expected a non-negative integer for small, got \"300\"; it is out of range"
        ),
        ("small: -1\n", "d.yaml:6:8: error: expected a non-negative integer for small, got \"-1\"; it is out of range"),
        ("small: 1_0\n", "d.yaml:6:8: error: expected a non-negative integer for small, got \"1_0\""),
        ("small: 0x10\n", "d.yaml:6:8: error: expected a non-negative integer for small, got \"0x10\""),
        ("small: [1]\n", "d.yaml:6:8: error: expected a non-negative integer for small, got a list"),
        ("mode: Fast\n", "d.yaml:6:7: error: expected one of fast, slow for mode, got \"Fast\"; did you mean 'fast'?"),
        ("mode: { x: 1 }\n", "d.yaml:6:7: error: expected one of fast, slow for mode, got a mapping"),
    ])
    func typeErrors(extra: String, expected: String) {
        #expect(Self.failure(Settings.self, Self.valid + extra) == expected)
    }

    @Test(arguments: [
        ("enabled: True", "expected true or false for enabled, got \"True\"; write true or false"),
        ("enabled: off", "expected true or false for enabled, got \"off\"; write true or false"),
        ("enabled: 'false'", "expected true or false for enabled, got the quoted string \"false\"; remove the quotes"),
        ("enabled: 1", "expected true or false for enabled, got \"1\""),
        ("ratio: .inf", "expected a number for ratio, got \".inf\""),
        ("ratio: '2.5'", "expected a number for ratio, got the quoted string \"2.5\"; remove the quotes"),
        ("count: 1.0", "expected an integer for count, got \"1.0\""),
        ("count:", "expected an integer for count, got an empty value"),
        ("name: ~", "expected a string for name, got null; write \"~\" in quotes for the text"),
        ("tags: a", "expected a list for tags, got \"a\""),
    ])
    func scalarStrictness(line: String, message: String) {
        let key = line.prefix { $0 != ":" }
        let yaml = Self.valid.split(separator: "\n").map { $0.hasPrefix(key + ":") ? Substring(line) : $0 }
            .joined(separator: "\n")
        #expect(Self.failure(Settings.self, yaml).contains("error: " + message))
    }

    @Test func unknownKeysOfSynthesizedTypesGetSuggestionsFromTheKeysAskedFor() {
        #expect(
            Self.failure(Settings.self, Self.valid + "mdoe: fast\n")
                == "d.yaml:6:1: error: unknown key 'mdoe' at the top level; did you mean 'mode'?")
        // A misspelt required key is reported as the misspelling, not as the missing key.
        #expect(
            Self.failure(Settings.self, Self.valid.replacingOccurrences(of: "count:", with: "cuont:"))
                == "d.yaml:2:1: error: unknown key 'cuont' at the top level; did you mean 'count'?")
        #expect(
            Self.failure([Settings].self, "- " + Self.valid.replacingOccurrences(of: "\n", with: "\n  ") + "zzz: 1\n")
                == "d.yaml:6:3: error: unknown key 'zzz' in [0]; expected one of name, count, ratio, enabled, tags, "
                + "small, mode")
    }

    @Test func missingKeysPointAtTheMapping() {
        #expect(
            Self.failure([Settings].self, "- { name: x }\n")
                == "d.yaml:1:3: error: missing key 'count' in [0]")
        #expect(
            Self.failure(Settings.self, "[1]") == "d.yaml:1:1: error: expected a mapping at the top level, got a list")
    }

    @Test func decodingErrorsFromCustomTypesArePositioned() {
        #expect(
            Self.failure([String: Even].self, "a: 2\nb: 3\n") == "d.yaml:2:4: error: b: must be even, got 3")
    }

    @Test func editDistanceAndSuggestions() {
        #expect(KeySuggestion.editDistance("filtr", "filter") == 1)
        #expect(KeySuggestion.editDistance("tabels", "tables") == 1)
        #expect(KeySuggestion.editDistance("", "abc") == 3)
        #expect(KeySuggestion.closest(to: "pagesize", among: ["page_size", "concurrency"]) == "page_size")
        #expect(KeySuggestion.closest(to: "Filter", among: ["fields", "filter"]) == "filter")
        #expect(KeySuggestion.closest(to: "xyz", among: ["table", "filter"]) == nil)
        #expect(KeySuggestion.closest(to: "csvv", among: ["csv", "xml", "json"]) == "csv")
    }
}
