import Foundation

/// One keyset page fetched by ``NowTableService/keysetPage(from:configuration:range:after:)``.
///
/// The caller keeps the cursor: pass ``lastSysId`` as `after` to fetch the next page. Only a page with
/// ``recordCount`` 0 ends a range; a short page (rows hidden by ACLs) does not.
public struct KeysetPage: Sendable, Hashable {
    /// The response JSON (`{"result": […]}`).
    public var body: Data
    /// Records in the page's `result` array (may be fewer than the page size because of ACLs).
    public var recordCount: Int
    /// The greatest sys_id in the page: the cursor of the next page; `nil` exactly when the page is empty.
    public var lastSysId: SysID?
    /// HTTP attempts the page needed, retries included.
    public var attempts: Int
    /// The instance's count of the records of the range after the cursor (`X-Total-Count`: before ACLs,
    /// whatever the limit and offset), when the page asked for it (`counting: true`) and the answer
    /// carried a usable one (``InstanceCount``); `nil` otherwise.
    public var totalCount: Int?

    /// Creates a page (for tests and for callers that fake the transport).
    public init(body: Data, recordCount: Int, lastSysId: SysID?, attempts: Int, totalCount: Int? = nil) {
        self.body = body
        self.recordCount = recordCount
        self.lastSysId = lastSysId
        self.attempts = attempts
        self.totalCount = totalCount
    }
}
