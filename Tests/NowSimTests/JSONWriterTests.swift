import Foundation
import Testing

@testable import NowSim

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct JSONWriterTests {}

/// The JSON text nowsim writes for `text`, built independently of the writer: `"` and `\` escaped,
/// the short forms JSON has for five controls, `\u00xx` (lowercase hex) for the other C0 controls,
/// everything else (including `/`, DEL and non-ASCII) as UTF-8.
private func expectedLiteral(_ text: String) -> String {
    var out = "\""
    for scalar in text.unicodeScalars {
        switch scalar {
        case "\"": out += "\\\""
        case "\\": out += "\\\\"
        case "\n": out += "\\n"
        case "\r": out += "\\r"
        case "\t": out += "\\t"
        case "\u{08}": out += "\\b"
        case "\u{0C}": out += "\\f"
        case "\u{00}"..."\u{1F}": out += String(format: "\\u%04x", scalar.value)
        default: out.unicodeScalars.append(scalar)
        }
    }
    return out + "\""
}

/// Every ASCII character alone and between other text, plus runs that start or end with escapes.
private let samples: [String] =
    (0..<128).map { String(UnicodeScalar(UInt8($0))) } + (0..<128).map { "ab\(UnicodeScalar(UInt8($0)))cd" } + [
        "", "plain", "\"quoted\"", "\\\\", "\n\n", "tab\tand\u{1F}", "ünïcödé 🎉 / \u{7F}", "\u{00}",
        "end with quote\"", "\"start with quote",
    ]

extension JSONWriterTests {
    @Test func jsonWriterAndErrorEnvelopeWriteTheSameEscapedStrings() {
        for text in samples {
            let expected = expectedLiteral(text)
            var writer = JSONWriter()
            writer.raw("[")
            writer.string(text)
            writer.raw(",")
            var utf8 = Array(text.utf8)
            utf8.withUnsafeMutableBufferPointer { writer.string(utf8: UnsafeBufferPointer($0)) }
            writer.raw("]")
            #expect(
                String(decoding: writer.bytes, as: UTF8.self) == "[\(expected),\(expected)]", "\(text.debugDescription)"
            )
            var bytes = Array("x".utf8)
            ErrorEnvelope.appendQuoted(text, to: &bytes)
            #expect(String(decoding: bytes, as: UTF8.self) == "x" + expected, "\(text.debugDescription)")
        }
    }

    @Test func writtenStringsParseBackToTheirText() throws {
        var writer = JSONWriter()
        writer.raw("[")
        for (index, text) in samples.enumerated() {
            if index > 0 { writer.raw(",") }
            writer.string(text)
        }
        writer.raw("]")
        let parsed = try #require(try JSONSerialization.jsonObject(with: Data(writer.bytes)) as? [String])
        #expect(parsed == samples)
    }
}
