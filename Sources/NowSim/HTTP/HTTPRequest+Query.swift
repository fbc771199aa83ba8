extension HTTPRequest {
    /// Splits a raw query string (without the leading `?`) into decoded name/value pairs, in order.
    ///
    /// Pairs are separated by `&`; a pair without `=` has an empty value; empty pairs (`a=1&&b=2`) are
    /// skipped. In names and values `+` means a space and `%HH` is a byte; the bytes are read as UTF-8
    /// (invalid sequences become U+FFFD). A `%` not followed by two hex digits stays as it is. This is
    /// what ServiceNow does with `sysparm_query=active%3Dtrue%5Epriority%3C%3D2`, and what the Batch API
    /// needs for the URLs inside a batch body.
    public static func decodeQuery(_ rawQuery: some StringProtocol) -> [(name: String, value: String)] {
        var items: [(name: String, value: String)] = []
        for pair in rawQuery.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true) {
            if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                let name = pair[pair.startIndex..<equals]
                let value = pair[pair.index(after: equals)...]
                items.append((decodeComponent(name, plusAsSpace: true), decodeComponent(value, plusAsSpace: true)))
            } else {
                items.append((decodeComponent(pair, plusAsSpace: true), ""))
            }
        }
        return items
    }

    /// `text` with `%HH` escapes decoded (and `+` read as a space when `plusAsSpace`), as UTF-8.
    public static func percentDecoded(_ text: some StringProtocol, plusAsSpace: Bool = false) -> String {
        decodeComponent(text.utf8, plusAsSpace: plusAsSpace)
    }

    private static func decodeComponent<Bytes: Collection<UInt8>>(_ bytes: Bytes, plusAsSpace: Bool) -> String {
        let needsDecoding = bytes.contains { $0 == UInt8(ascii: "%") || (plusAsSpace && $0 == UInt8(ascii: "+")) }
        guard needsDecoding else { return String(decoding: bytes, as: UTF8.self) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index != bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "%") {
                let first = bytes.index(after: index)
                if first != bytes.endIndex, let high = hexValue(bytes[first]) {
                    let second = bytes.index(after: first)
                    if second != bytes.endIndex, let low = hexValue(bytes[second]) {
                        decoded.append(high << 4 | low)
                        index = bytes.index(after: second)
                        continue
                    }
                }
                decoded.append(byte)
            } else if plusAsSpace && byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else {
                decoded.append(byte)
            }
            index = bytes.index(after: index)
        }
        return String(decoding: decoded, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): return byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): return byte - UInt8(ascii: "A") + 10
        default: return nil
        }
    }
}
