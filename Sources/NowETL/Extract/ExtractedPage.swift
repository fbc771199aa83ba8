/// One fetched and transformed page of a partition, ready for the sinks.
public struct ExtractedPage: Sendable {
    /// The partition (sys_id range) the page belongs to.
    public var partition: Int
    /// The page's index within its partition.
    public var index: Int
    /// Records the instance returned in the page.
    public var recordCount: Int
    /// The rows of the records that converted.
    public var batch: RowBatch
    /// The records that would not convert, in page order.
    public var rejections: [Rejection]
    /// HTTP attempts the page took, retries included.
    public var attempts: Int
}
