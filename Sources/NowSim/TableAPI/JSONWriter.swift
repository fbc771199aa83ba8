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
        var value = value
        value.withUTF8 { string(utf8: $0) }
    }

    /// Writes UTF-8 bytes as a quoted JSON string, escaping quotes, backslashes and control characters.
    mutating func string(utf8 buffer: UnsafeBufferPointer<UInt8>) {
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
            switch c {
            case UInt8(ascii: "\""): raw("\\\"")
            case UInt8(ascii: "\\"): raw("\\\\")
            case 0x0A: raw("\\n")
            case 0x0D: raw("\\r")
            case 0x09: raw("\\t")
            case 0x08: raw("\\b")
            case 0x0C: raw("\\f")
            default:
                raw("\\u00")
                bytes.append(Self.hexDigits[Int(c >> 4)])
                bytes.append(Self.hexDigits[Int(c & 0x0F)])
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
