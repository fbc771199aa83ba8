import Foundation

/// Reads a keyset page's body in the pass that validates it, so NowData does not scan a body its
/// caller parses anyway.
///
/// The transport calls ``read(_:)`` on each 2xx body of a keyset page request. A read it gets back
/// stands for NowData's own scan: the body is complete, `result` is an array of ``KeysetPageRead/recordCount``
/// records, there is no `error` member. `nil` means "not such a body, or not one this reader can vouch
/// for": NowData then scans the body as it always does, so a cut body is retried, a cancelled
/// transaction is ``NowDataError/transactionCancelled(_:)`` and so on, exactly as without a reader.
public protocol KeysetPageReading: Sendable {
    /// What the reader makes of the body (decoded records, for example).
    associatedtype Content: Sendable

    /// Reads one response body.
    /// - Returns: the content and the paging facts, or `nil` when the body is not a complete
    ///   `{"result": [records…]}` object without an `error` member.
    func read(_ body: Data) -> KeysetPageRead<Content>?
}

/// What a ``KeysetPageReading`` read from a keyset page's body.
public struct KeysetPageRead<Content: Sendable>: Sendable {
    /// The reader's content.
    public var content: Content
    /// Records in the `result` array.
    public var recordCount: Int
    /// The greatest sys_id among them (byte by byte; the plain value, or the stored form of a
    /// `{"value": …}` object): the next page's cursor.
    public var lastSysId: SysID?

    /// Creates a read.
    public init(content: Content, recordCount: Int, lastSysId: SysID?) {
        self.content = content
        self.recordCount = recordCount
        self.lastSysId = lastSysId
    }
}

/// A keyset page and what a ``KeysetPageReading`` read from it.
public struct ReadKeysetPage<Content: Sendable>: Sendable {
    /// The page, as ``NowTableService/keysetPage(from:configuration:range:after:skipping:counting:)`` returns it.
    public var page: KeysetPage
    /// The reader's content; `nil` when the reader declined the body (NowData validated it itself,
    /// and the caller decodes ``KeysetPage/body`` to learn what is wrong with it).
    public var content: Content?

    /// Creates a read page.
    public init(page: KeysetPage, content: Content?) {
        self.page = page
        self.content = content
    }
}
