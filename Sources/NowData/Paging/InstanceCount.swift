/// A record count as an instance sends it (`X-Total-Count`, the Aggregate API's `stats.count`), checked
/// where it enters.
///
/// Counts are figures that paging and summaries add, subtract and divide; a value from the network
/// that is negative, not a plain decimal number or absurdly large would trap that arithmetic or
/// make a loop run for ever. The largest count accepted, ``maximum`` (10^12), is far above any table an
/// instance serves through the Table API.
public enum InstanceCount {
    /// The largest count accepted.
    public static let maximum = 1_000_000_000_000

    /// The count in `text` (ASCII digits, surrounding spaces allowed, at most ``maximum``), or `nil`.
    public static func parse(_ text: some StringProtocol) -> Int? {
        var value = 0
        var digits = 0
        var seenEnd = false
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: " "), UInt8(ascii: "\t"):
                if digits > 0 { seenEnd = true }
            case UInt8(ascii: "0")...UInt8(ascii: "9"):
                guard !seenEnd, digits < 13 else { return nil }
                value = value * 10 + Int(byte - UInt8(ascii: "0"))
                digits += 1
            default:
                return nil
            }
        }
        guard digits > 0, value <= maximum else { return nil }
        return value
    }
}
