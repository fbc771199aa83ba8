/// A half-open range of sys_ids, `lowerBound ≤ sys_id < upperBound`; either end may be open.
///
/// sys_ids are 32 hex digits, uniformly random, so splitting `00…` to `ff…` into ranges gives partitions of
/// even size that can be paged concurrently.
public struct SysIDRange: Sendable, Hashable {
    /// The smallest sys_id included, or `nil` for no lower bound.
    public var lowerBound: SysID?
    /// The first sys_id excluded, or `nil` for no upper bound.
    public var upperBound: SysID?

    /// Creates a range.
    public init(lowerBound: SysID? = nil, upperBound: SysID? = nil) {
        self.lowerBound = lowerBound
        self.upperBound = upperBound
    }

    /// Splits the sys_id key space into `count` ranges of equal width by leading hex digits.
    ///
    /// The first range has no lower bound and the last no upper bound, so ids that are not 32 hex digits
    /// (demo data) still land somewhere.
    public static func partitions(_ count: Int) -> [SysIDRange] {
        let count = max(1, min(count, 65_536))
        guard count > 1 else { return [SysIDRange()] }
        let space = 65_536
        let bounds = (1..<count).map { index -> SysID in
            let value = index * space / count
            let hex = String(value, radix: 16)
            return String(repeating: "0", count: 4 - hex.count) + hex
        }
        var ranges: [SysIDRange] = []
        var lower: SysID?
        for bound in bounds {
            ranges.append(SysIDRange(lowerBound: lower, upperBound: bound))
            lower = bound
        }
        ranges.append(SysIDRange(lowerBound: lower, upperBound: nil))
        return ranges
    }
}
