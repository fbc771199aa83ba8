import Foundation
import Testing

@testable import NowETL

/// `preview`'s table aligns by terminal columns: wide CJK, zero-width combining marks, emoji.
@Suite(.timeLimit(.minutes(3))) struct PreviewDisplayWidthTests {
    /// Python's `unicodedata` as the independent reader: the width of each line's text up to each cell
    /// (W/F → 2, Mn/Me/Cf → 0, else 1), cells being the runs between two or more spaces.
    static let columnStarts = """
        import json, re, sys, unicodedata
        def width(text):
            total = 0
            for ch in text:
                if unicodedata.category(ch) in ("Mn", "Me", "Cf"):
                    continue
                total += 2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1
            return total
        lines = sys.stdin.read().split("\\n")[:-1]
        json.dump([[width(line[:m.start()]) for m in re.finditer(r"(?:^|(?<=  ))[^ ]", line)] for line in lines],
                  sys.stdout)
        """

    /// Python's widths of strings, one per line of standard input.
    static let widths = """
        import json, sys, unicodedata
        def width(text):
            return sum(0 if unicodedata.category(ch) in ("Mn", "Me", "Cf") else
                       2 if unicodedata.east_asian_width(ch) in ("W", "F") else 1 for ch in text)
        json.dump([width(line) for line in sys.stdin.read().split("\\n")[:-1]], sys.stdout)
        """

    /// Planes 0–3 as Python 3.11's `unicodedata` (Unicode 14.0.0) sees them: assigned code points and
    /// the wide (W/F) ones among them, both as merged `[first, last]` ranges.
    static let wideTable = """
        import json, sys, unicodedata
        def ranges(test):
            out, start = [], None
            for cp in range(0x40000):
                if test(cp):
                    if start is None: start = cp
                elif start is not None:
                    out.append([start, cp - 1]); start = None
            if start is not None: out.append([start, 0x3FFFF])
            return out
        assigned = lambda cp: unicodedata.category(chr(cp)) not in ("Cn", "Cs")
        wide = lambda cp: assigned(cp) and unicodedata.east_asian_width(chr(cp)) in ("W", "F")
        json.dump({"unicode": unicodedata.unidata_version, "assigned": ranges(assigned), "wide": ranges(wide)},
                  sys.stdout)
        """

    static let samples: [(String, Int)] = [
        ("abc", 3), ("日本語のテキスト", 16), ("한국어", 6), ("ＡＢＣ", 6), ("हिन्दी", 5), ("नमस्ते", 4),
        ("e\u{301}te\u{301}", 3), ("Ünïcödé", 7), ("a\u{200D}b\u{200B}c", 3), ("👍", 2), ("😀x", 3),
        ("…", 1), ("\u{1F44D}\u{1F3FD}", 2), ("👩‍👩‍👧‍👦", 2), ("🏳️‍🌈", 2), ("❤️", 2), ("1️⃣", 2), ("🇩🇪", 2),
        ("各国語 हिन्दी e\u{301}", 14),
    ]

    @Test func widthsOfScriptsAndEmoji() {
        for (text, expected) in Self.samples {
            #expect(DisplayWidth.of(text) == expected, "\(text.debugDescription)")
        }
    }

    @Test func pythonAgreesWhereItsScalarRuleApplies() async throws {
        // Python's per-code-point rule knows no emoji sequences: compare the texts without them.
        let texts = Self.samples.map(\.0).filter { text in
            !text.unicodeScalars.contains {
                $0.value == 0xFE0F || $0.value == 0x200D || (0x1F1E6...0x1F3FF).contains($0.value)
            }
        }
        let input = Data(texts.map { $0 + "\n" }.joined().utf8)
        let out = try await SinkTestSupport.output("python3", ["-c", Self.widths], stdin: input)
        #expect(try JSONDecoder().decode([Int].self, from: out) == texts.map { DisplayWidth.of($0) })
    }

    @Test func theWideTableMatchesPythonsUnicodeData() async throws {
        struct Table: Decodable {
            var unicode: String
            var assigned: [[UInt32]]
            var wide: [[UInt32]]
        }
        let table = try JSONDecoder().decode(
            Table.self, from: try await SinkTestSupport.output("python3", ["-c", Self.wideTable]))
        func contains(_ ranges: [[UInt32]], _ value: UInt32) -> Bool {
            var low = 0
            var high = ranges.count - 1
            while low <= high {
                let middle = (low + high) / 2
                if value < ranges[middle][0] {
                    high = middle - 1
                } else if value > ranges[middle][1] {
                    low = middle + 1
                } else {
                    return true
                }
            }
            return false
        }
        // The embedded table is Unicode 14.0.0's: a newer Python is compared on what 14.0 assigned.
        var compared = 0
        var differ: [String] = []
        for value in UInt32(0)..<0x40000 where contains(table.assigned, value) {
            guard let scalar = Unicode.Scalar(value), let age = scalar.properties.age,
                (age.major, age.minor) <= (14, 0)
            else { continue }
            compared += 1
            if DisplayWidth.isWide(scalar) != contains(table.wide, value) { differ.append(String(value, radix: 16)) }
        }
        #expect(compared > 140_000)
        #expect(differ.isEmpty, "\(differ.prefix(20))")
    }

    @Test func cutsEndOnWholeClustersAndNeverHalfAWideCharacter() {
        let maximum = PreviewTable.maximumWidth
        let cjk = PreviewTable.cell(String(repeating: "日", count: 30))
        #expect(cjk == String(repeating: "日", count: 19) + "…" && DisplayWidth.of(cjk) == maximum - 1)
        let straddling = PreviewTable.cell(String(repeating: "x", count: 38) + "日日")
        #expect(straddling == String(repeating: "x", count: 38) + "…")
        let family = "👩‍👩‍👧‍👦"
        let emoji = PreviewTable.cell(String(repeating: "x", count: 37) + family + "yy")
        #expect(emoji == String(repeating: "x", count: 37) + family + "…" && DisplayWidth.of(emoji) == maximum)
        let accents = PreviewTable.cell(String(repeating: "e\u{301}", count: 45))
        #expect(accents == String(repeating: "e\u{301}", count: maximum - 1) + "…")
        #expect(accents.unicodeScalars.filter { $0.value == 0x301 }.count == maximum - 1)
        let hindi = PreviewTable.cell(String(repeating: "हिन्दी ", count: 10))
        #expect(DisplayWidth.of(hindi) <= maximum && hindi.hasSuffix("…"))
        #expect(String(repeating: "हिन्दी ", count: 10).hasPrefix(String(hindi.dropLast())))
        #expect(PreviewTable.cell("日本語") == "日本語")  // fits: unchanged
    }

    @Test func columnsLineUpByDisplayWidthAsPythonMeasuresIt() async throws {
        let schema = RowSchema(names: ["number", "short_description", "n"])
        let texts = [
            "ascii-only", "日本語のテキスト", "हिन्दी", "café-cafe\u{301}", "👍😀", "한국어ＡＢＣ", "Ünïcödé",
            String(repeating: "漢", count: 30),
        ]
        let rows: [[ColumnValue?]] = texts.enumerated().map { index, text in
            [.string("INC\(index)"), .string(text), .int(index)]
        }
        let table = PreviewTable.render(schema: schema, rows: rows)
        let out = try await SinkTestSupport.output("python3", ["-c", Self.columnStarts], stdin: Data(table.utf8))
        let starts = try JSONDecoder().decode([[Int]].self, from: out)
        #expect(starts.count == texts.count + 2)
        // Every line has its cells at the same columns: 0, after the widest number, after the widest text.
        let expected = [0, 6 + 2, 6 + 2 + PreviewTable.maximumWidth - 1 + 2]
        for (index, line) in starts.enumerated() {
            #expect(line == expected, "line \(index): \(table.split(separator: "\n")[index])")
        }
    }
}
