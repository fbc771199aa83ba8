import Foundation

/// `application/x-www-form-urlencoded` decoding (and encoding), shared by request bodies
/// (`/oauth_token.do`) and URL query strings (every request's, through
/// ``HTTPRequest/decodeQuery(_:)``, and Batch API items').
///
/// Decoding is lenient the way servlet containers are in practice: `+` is a space, `%XX` is a byte,
/// a `%` not followed by two hex digits stays literal, bytes that are not valid UTF-8 become U+FFFD,
/// empty pairs (`a=1&&b=2`) are skipped and a name without `=` has the empty value. Repeated names
/// are kept, in order; the caller decides what a repetition means.
public enum FormEncoding {
    /// The name–value pairs of a form-encoded body, in order, repetitions kept.
    public static func decode(_ bytes: some Collection<UInt8>) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        var start = bytes.startIndex
        while start != bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            let pair = bytes[start..<end]
            if !pair.isEmpty {
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append(
                        (
                            name: percentDecode(pair[pair.startIndex..<equals], plusAsSpace: true),
                            value: percentDecode(pair[pair.index(after: equals)...], plusAsSpace: true)
                        ))
                } else {
                    pairs.append((name: percentDecode(pair, plusAsSpace: true), value: ""))
                }
            }
            start = end == bytes.endIndex ? end : bytes.index(after: end)
        }
        return pairs
    }

    /// The name–value pairs of a form-encoded string (a query string without its `?`).
    public static func decode(_ string: String) -> [(name: String, value: String)] {
        decode(string.utf8)
    }

    /// Percent-decodes `bytes` to a string; `+` becomes a space only when `plusAsSpace` is set
    /// (query strings and form bodies, not paths).
    public static func percentDecode(_ bytes: some Collection<UInt8>, plusAsSpace: Bool) -> String {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) })
        else {
            return String(decoding: bytes, as: UTF8.self)
        }
        var out: [UInt8] = []
        out.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = hexValue(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = hexValue(bytes[second]) {
                        out.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                out.append(byte)
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                out.append(UInt8(ascii: " "))
            } else {
                out.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: out, as: UTF8.self)
    }

    /// Percent-decodes a string, as the byte-collection overload does.
    public static func percentDecode(_ string: some StringProtocol, plusAsSpace: Bool) -> String {
        percentDecode(string.utf8, plusAsSpace: plusAsSpace)
    }

    /// Form-encodes `pairs`: unreserved characters (`A–Z a–z 0–9 - . _ ~`) stay, a space becomes `+`,
    /// every other UTF-8 byte becomes `%XX`.
    public static func encode(_ pairs: [(name: String, value: String)]) -> String {
        var out: [UInt8] = []
        for (offset, pair) in pairs.enumerated() {
            if offset > 0 { out.append(UInt8(ascii: "&")) }
            appendEncoded(pair.name, to: &out)
            out.append(UInt8(ascii: "="))
            appendEncoded(pair.value, to: &out)
        }
        return String(decoding: out, as: UTF8.self)
    }

    private static let upperHex = Array("0123456789ABCDEF".utf8)

    private static func appendEncoded(_ string: String, to out: inout [UInt8]) {
        for byte in string.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                out.append(byte)
            case UInt8(ascii: " "):
                out.append(UInt8(ascii: "+"))
            default:
                out.append(UInt8(ascii: "%"))
                out.append(upperHex[Int(byte >> 4)])
                out.append(upperHex[Int(byte & 0x0F)])
            }
        }
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
