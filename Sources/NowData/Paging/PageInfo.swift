/// Facts about the page a ``Paginator`` fetched last.
public struct PageInfo: Sendable, Hashable {
    /// The zero-based page index.
    public var index: Int
    /// Records in the page's `result` array (may be fewer than the page size because of ACLs).
    public var recordCount: Int
    /// The greatest sys_id in the page, when the rows carried sys_ids.
    public var lastSysId: SysID?
    /// `X-Total-Count`, when the instance sent it.
    public var totalCount: Int?
    /// HTTP attempts the page needed, retries included.
    public var attempts: Int
}
