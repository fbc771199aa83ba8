/// Writes JSON straight into a byte buffer, escaping strings as it goes.
///
/// The Table API renders thousands of rows per page; building `[String: Any]` trees and running
/// `JSONSerialization` over them would make nowsim the bottleneck of every benchmark. Callers are
/// responsible for well-formedness (commas, nesting); the writer only handles the bytes.
struct JSONWriter {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func byte(_ value: UInt8) {
        bytes.append(value)
    }

    /// Writes `value` as a quoted JSON string.
    mutating func string(_ value: String) {
        Self.appendQuoted(value, to: &bytes)
    }

    /// Writes UTF-8 bytes as a quoted JSON string, escaping quotes, backslashes and control characters.
    mutating func string(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        Self.appendQuoted(utf8: buffer, to: &bytes)
    }

    /// Appends `value` as a JSON string literal (quotes included) to `bytes`.
    ///
    /// For code that builds JSON in its own buffer (error envelopes, OAuth and Batch API bodies); see
    /// ``appendQuoted(utf8:to:)``.
    static func appendQuoted(_ value: String, to bytes: inout [UInt8]) {
        var value = value
        value.withUTF8 { appendQuoted(utf8: $0, to: &bytes) }
    }

    /// Appends UTF-8 bytes as a JSON string literal (quotes included) to `bytes`: nowsim's one JSON
    /// string escaper.
    ///
    /// Escapes `"`, `\` and the C0 controls (the short forms `\b \f \n \r \t` where JSON has them,
    /// `\u00xx` with lowercase hex otherwise); everything else, including `/`, DEL and non-ASCII, is
    /// copied unchanged, in runs rather than byte by byte.
    static func appendQuoted(utf8 buffer: UnsafeBufferPointer<UInt8>, to bytes: inout [UInt8]) {
        bytes.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        let count = buffer.count
        while index < count {
            let c = buffer[index]
            if c >= 0x20 && c != UInt8(ascii: "\"") && c != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<index]))
            }
            bytes.append(UInt8(ascii: "\\"))
            switch c {
            case UInt8(ascii: "\""), UInt8(ascii: "\\"): bytes.append(c)
            case 0x0A: bytes.append(UInt8(ascii: "n"))
            case 0x0D: bytes.append(UInt8(ascii: "r"))
            case 0x09: bytes.append(UInt8(ascii: "t"))
            case 0x08: bytes.append(UInt8(ascii: "b"))
            case 0x0C: bytes.append(UInt8(ascii: "f"))
            default:
                bytes.append(UInt8(ascii: "u"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(UInt8(ascii: "0"))
                bytes.append(hexDigits[Int(c >> 4)])
                bytes.append(hexDigits[Int(c & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            bytes.append(contentsOf: UnsafeBufferPointer(rebasing: buffer[runStart..<count]))
        }
        bytes.append(UInt8(ascii: "\""))
    }

    /// Writes `"key":`.
    mutating func key(_ name: String) {
        string(name)
        bytes.append(UInt8(ascii: ":"))
    }

    /// Writes `null`.
    mutating func null() { raw("null") }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)
}
