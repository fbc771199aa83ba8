import Foundation
import NowData

/// Which records one page request asks for: up to `limit` records of `range` after `after` in sys_id
/// order, `offset` records (counted by the instance before ACLs) past the cursor.
///
/// A keyset page has offset 0. A window with an offset steps over records hidden from the reader when
/// a keyset page came back empty although the instance counts records beyond the cursor.
public struct PageWindow: Sendable, Hashable {
    /// The sys_id range.
    public var range: SysIDRange
    /// The cursor: the greatest sys_id already fetched, `nil` for the range's start.
    public var after: SysID?
    /// `sysparm_limit`.
    public var limit: Int
    /// `sysparm_offset` past the cursor (0 for a keyset page).
    public var offset: Int
    /// Whether the instance is asked to count the records of `range` after `after` (no
    /// `sysparm_no_count`): ``SourcePage/totalCount``.
    public var counts: Bool

    /// Describes a window.
    public init(range: SysIDRange, after: SysID?, limit: Int, offset: Int = 0, counts: Bool = false) {
        self.range = range
        self.after = after
        self.limit = max(1, limit)
        self.offset = max(0, offset)
        self.counts = counts
    }
}
