/// Writes the Table API's XML responses (`<response><result>…</result></response>`, ref §1.5)
/// straight into a byte buffer.
///
/// Text is escaped (`&`, `<`, `>`), and characters XML 1.0 forbids (C0 controls other than tab,
/// CR and LF) are dropped, so every response parses. Field names become element names as given
/// (`caller_id.name` is a valid XML name).
struct XMLWriter: RecordOutput {
    /// The bytes written so far.
    var bytes: [UInt8] = []

    init(capacity: Int = 4096) {
        bytes.reserveCapacity(capacity)
    }

    /// The XML declaration and the opening `<response>`.
    mutating func startResponse() {
        raw("<?xml version=\"1.0\" encoding=\"UTF-8\"?><response>")
    }

    /// The closing `</response>`.
    mutating func endResponse() {
        raw("</response>")
    }

    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { bytes.append(contentsOf: $0) }
    }

    mutating func startRecord() { raw("<result>") }
    mutating func endRecord() { raw("</result>") }

    mutating func startField(_ key: String, first: Bool) {
        bytes.append(UInt8(ascii: "<"))
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func endField(_ key: String) {
        bytes.append(contentsOf: Array("</".utf8))
        bytes.append(contentsOf: key.utf8)
        bytes.append(UInt8(ascii: ">"))
    }

    mutating func text(utf8 buffer: UnsafeBufferPointer<UInt8>) {
        for byte in buffer {
            switch byte {
            case UInt8(ascii: "&"): raw("&amp;")
            case UInt8(ascii: "<"): raw("&lt;")
            case UInt8(ascii: ">"): raw("&gt;")
            case 0x09, 0x0A, 0x0D: bytes.append(byte)
            case 0x00..<0x20: continue
            default: bytes.append(byte)
            }
        }
    }

    mutating func text(_ string: String) {
        var string = string
        string.withUTF8 { text(utf8: $0) }
    }

    mutating func startComposite() {}
    mutating func startMember(_ name: StaticString, first: Bool) {
        bytes.append(UInt8(ascii: "<"))
        raw(name)
        bytes.append(UInt8(ascii: ">"))
    }
    mutating func endMember(_ name: StaticString) {
        raw("</")
        raw(name)
        bytes.append(UInt8(ascii: ">"))
    }
    mutating func endComposite() {}
}
