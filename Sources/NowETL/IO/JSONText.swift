/// JSON text written by hand rather than by `JSONEncoder`: the JSON sink's rows and the JSON log lines
/// (`--log-format json`) share these, so both escape strings the same way and accept the same numbers.
///
/// Strings are escaped by hand: `"` and `\` and the control characters U+0000–U+001F are escaped (`\n`,
/// `\t`, `\b`, `\f`, `\r` or `\u00XX`), U+2028 and U+2029 too (so the text is also valid JavaScript);
/// everything else is written as UTF-8.
enum JSONText {
    /// Appends `text` as a JSON string literal.
    static func append(_ text: String, to buffer: inout ByteBuffer) {
        var text = text
        text.withUTF8 { append(bytes: $0, to: &buffer) }
    }

    /// Appends the UTF-8 text `bytes` as a JSON string literal, as ``append(_:to:)``.
    static func append(bytes: UnsafeBufferPointer<UInt8>, to buffer: inout ByteBuffer) {
        buffer.append(0x22)
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != 0x22 && byte != 0x5C && byte != 0xE2 {
                index += 1
                continue
            }
            // U+2028 / U+2029 are E2 80 A8 / E2 80 A9; other E2 sequences pass.
            if byte == 0xE2 {
                guard index + 2 < count, bytes[index + 1] == 0x80, bytes[index + 2] & 0xFE == 0xA8 else {
                    index += 1
                    continue
                }
            }
            buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            switch byte {
            case 0x22: buffer.append(escape: 0x22)
            case 0x5C: buffer.append(escape: 0x5C)
            case 0x0A: buffer.append(escape: 0x6E)
            case 0x0D: buffer.append(escape: 0x72)
            case 0x09: buffer.append(escape: 0x74)
            case 0x08: buffer.append(escape: 0x62)
            case 0x0C: buffer.append(escape: 0x66)
            case 0xE2:
                buffer.appendUnicodeEscape(bytes[index + 2] == 0xA8 ? 0x2028 : 0x2029)
                index += 2
            default:
                buffer.appendUnicodeEscape(UInt16(byte))
            }
            index += 1
            runStart = index
        }
        buffer.append(UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        buffer.append(0x22)
    }

    /// Whether `text` is a number by JSON's grammar (RFC 8259):
    /// `-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?` — so not `NaN`, `inf`, `1.`, `.5`, `+1` or `012`.
    static func isNumber(_ text: String) -> Bool {
        var bytes = text.utf8[...]
        func digits() -> Int {
            var count = 0
            while let byte = bytes.first, byte >= 0x30, byte <= 0x39 {
                bytes = bytes.dropFirst()
                count += 1
            }
            return count
        }
        if bytes.first == 0x2D { bytes = bytes.dropFirst() }
        if bytes.first == 0x30 {
            bytes = bytes.dropFirst()
        } else if digits() == 0 {
            return false
        }
        if bytes.first == 0x2E {
            bytes = bytes.dropFirst()
            guard digits() > 0 else { return false }
        }
        if bytes.first == 0x65 || bytes.first == 0x45 {
            bytes = bytes.dropFirst()
            if bytes.first == 0x2B || bytes.first == 0x2D { bytes = bytes.dropFirst() }
            guard digits() > 0 else { return false }
        }
        return bytes.isEmpty
    }

    /// `text` as a JSON string literal, quotes included.
    static func quoted(_ text: String) -> String {
        var buffer = ByteBuffer(capacity: text.utf8.count + 2)
        append(text, to: &buffer)
        return String(decoding: buffer.bytes, as: UTF8.self)
    }
}
