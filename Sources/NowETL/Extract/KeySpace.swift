import NowQuery

/// sys_ids as positions in the 128-bit key space, for splitting a range that is still being fetched.
///
/// A sys_id is 32 lowercase hex digits; a range bound may be a shorter prefix (`"4000"`, from
/// ``SysIDRange/partitions(_:)``), which stands for the prefix followed by zeros. The instance
/// compares sys_ids as text, and for lowercase hex of one length text order is numeric order, so a
/// split point written as 32 digits sorts exactly where its number says. Anything else (upper case,
/// other characters) has no position, and a range whose cursor has none is never split.
enum KeySpace {
    /// The position of `id`, or `nil` when it is not lowercase hex of at most 32 digits.
    static func position(_ id: SysID) -> UInt128? {
        guard !id.isEmpty, id.utf8.count <= 32 else { return nil }
        var value: UInt128 = 0
        for byte in id.utf8 {
            let digit: UInt8
            switch byte {
            case 0x30...0x39: digit = byte - 0x30
            case 0x61...0x66: digit = byte - 0x61 + 10
            default: return nil
            }
            value = value << 4 | UInt128(digit)
        }
        return value << (4 * UInt128(32 - id.utf8.count))
    }

    /// The 32-digit sys_id at `position`.
    static func id(at position: UInt128) -> SysID {
        let hex = String(position, radix: 16)
        return String(repeating: "0", count: 32 - hex.count) + hex
    }

    /// Where to split the rest of a range, `(cursor, upper)`, so that the part that keeps fetching
    /// keeps about `keepPages` pages of `pageWidth` key positions each (at most half the rest); `nil`
    /// when the rest is too narrow or has no positions.
    static func splitPoint(after cursor: SysID, upper: SysID?, pageWidth: UInt128, keepPages: Int) -> SysID? {
        guard let start = position(cursor) else { return nil }
        let end: UInt128
        if let upper {
            guard let bound = position(upper) else { return nil }
            end = bound
        } else {
            end = UInt128.max
        }
        guard end > start, end - start >= 4 else { return nil }
        let half = (end - start) / 2
        let (wanted, overflow) = pageWidth.multipliedReportingOverflow(by: UInt128(max(1, keepPages)))
        let step = overflow || wanted == 0 || wanted > half ? half : wanted
        return id(at: start + step)
    }

    /// The key positions from `cursor` to `upper` (the end of the key space for `nil`), or `nil`.
    static func width(after cursor: SysID, upper: SysID?) -> UInt128? {
        guard let start = position(cursor) else { return nil }
        guard let upper else { return UInt128.max - start }
        guard let end = position(upper), end > start else { return nil }
        return end - start
    }
}
