/// The one rule for a sys_id that comes from an instance and goes into a query, a URL path, a journal, the
/// incremental state or a progress file: 1 to 64 bytes of ASCII letters, digits, `-`, `_` and `.`.
///
/// Why these: a sys_id the platform makes is 32 lowercase hex digits, but an instance keeps whatever an
/// import wrote (XML unload imports and `sysparm_suppress_auto_sys_field` keep the given sys_id: the
/// Table API reference, docs/table-api.md §5 "sys_id" and §2.4), and the reference warns not to validate ids as hex in an
/// exporter (§5), so older and migrated data holds ids such as `legacy-import-0001` or `ACME_42.1`; PySNC
/// accepts letters and digits only, which is too narrow for those. 64 bytes are twice the platform's
/// 32-character GUID and leave room for wider imported ids without letting one value blow up a query.
/// What the rule refuses is what could change the meaning of what it is put into: the encoded-query
/// separators (`^`, `,`, `@`, `=`, `<`, `>`, `!`; there is no escape for them, §4.3), `/`, `?`, `#`, `%`,
/// `&`, spaces and every control character (a URL, a path or a terminal), and non-ASCII (bytes that sort
/// otherwise in other collations).
///
/// A record whose sys_id breaks the rule is not dropped silently: the exporter rejects it through the
/// pipeline's reject policy, naming it, and never uses it as a cursor.
public enum SysIDRule {
    /// The longest sys_id accepted, in bytes.
    public static let maximumLength = 64

    /// Whether `value` is a sys_id by the rule.
    @inlinable
    public static func accepts(_ value: some StringProtocol) -> Bool {
        problem(value) == nil
    }

    /// Why `value` is not a sys_id by the rule (`nil` when it is), in words that can follow "sys_id …":
    /// "is empty", "is longer than 64 bytes", "holds '^' at byte 3".
    ///
    /// The character named is escaped as ``escaped(_:)`` escapes it, so the text is safe to print.
    ///
    /// Inlinable, so that a caller's module checks its `String`s with code specialised for them: the
    /// rule runs for every sys_id a run reads or writes.
    @inlinable
    public static func problem(_ value: some StringProtocol) -> String? {
        let bytes = value.utf8
        if bytes.isEmpty { return "is empty" }
        if bytes.count > maximumLength { return "is longer than \(maximumLength) bytes" }
        var offset = 0
        for byte in bytes {
            offset += 1
            if !isAllowed(byte) { return "holds \(describe(byte)) at byte \(offset)" }
        }
        return nil
    }

    /// Whether one byte may appear in a sys_id.
    @inlinable @inline(__always)
    public static func isAllowed(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "a")...UInt8(ascii: "z"),
            UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "."):
            return true
        default:
            return false
        }
    }

    /// `value` in a form safe for a message, a log line or a terminal: at most 80 bytes, bytes outside
    /// printable ASCII and the backslash as `\xHH`, the rest as it is; "…" marks a cut.
    public static func escaped(_ value: some StringProtocol) -> String {
        var text = ""
        var count = 0
        for byte in value.utf8 {
            if count == 80 {
                text += "…"
                break
            }
            count += 1
            if (0x20..<0x7F).contains(byte), byte != UInt8(ascii: "\\") {
                text.unicodeScalars.append(Unicode.Scalar(byte))
            } else {
                text += "\\x" + hex(byte)
            }
        }
        return text
    }

    @usableFromInline
    static func describe(_ byte: UInt8) -> String {
        if (0x21..<0x7F).contains(byte), byte != UInt8(ascii: "\\") {
            return "'\(Character(Unicode.Scalar(byte)))'"
        }
        return "byte 0x\(hex(byte))"
    }

    private static func hex(_ byte: UInt8) -> String {
        let digits = Array("0123456789abcdef")
        return String([digits[Int(byte >> 4)], digits[Int(byte & 0x0F)]])
    }
}
