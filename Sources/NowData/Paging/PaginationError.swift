/// Why a ``Paginator`` navigation failed.
public enum PaginationError: Error, Sendable {
    /// There is no next page (the last page was reached or, with keyset paging, an empty page was seen).
    case noNextPage
    /// There is no previous page.
    case noPreviousPage
    /// Another navigation is still fetching.
    case busy
    /// The paginator finished (``Paginator/publisherShouldFinish`` was set and the last page was fetched).
    case finished
    /// The strategy cannot do this (``Paginator/last()`` with keyset paging).
    case unsupported(String)
    /// Rows of a keyset page had no `sys_id` to continue from.
    case missingSysId
    /// The request for the page failed.
    case fetchFailed(NowDataError)
    /// The filter's text is not an encoded query the page queries can be composed from; nothing was
    /// sent. (Keyset and offset pages add sys_id conditions and sorts to the parsed query.)
    case invalidQuery(EncodedQueryError)
    /// A sys_id that breaks ``SysIDRule`` was to go into a page query (a cursor or a range bound); nothing
    /// was sent. The value is escaped for printing (``SysIDRule/escaped(_:)``) and followed by what is
    /// wrong with it. A keyset page whose greatest sys_id breaks the rule cannot be continued from.
    case invalidSysId(String)
    /// A keyset page did not move the cursor forward: its greatest sys_id (the first value, escaped) is
    /// not after the cursor the page was asked after (the second). An instance or proxy that ignores the
    /// `sys_id>` bound would otherwise be asked for the same page forever.
    case cursorDidNotAdvance(last: String, after: String)
}

extension PaginationError: CustomStringConvertible {
    /// A short explanation.
    public var description: String {
        switch self {
        case .noNextPage: return "no next page"
        case .noPreviousPage: return "no previous page"
        case .busy: return "the paginator is busy fetching"
        case .finished: return "the paginator has finished"
        case .unsupported(let what): return "unsupported: \(what)"
        case .missingSysId: return "keyset page rows carry no sys_id"
        case .fetchFailed(let error): return "page fetch failed: \(error)"
        case .invalidQuery(let error): return "filter not usable for paging: \(error)"
        case .invalidSysId(let what): return "sys_id \(what): it cannot be used as a cursor or bound"
        case .cursorDidNotAdvance(let last, let after):
            return "the keyset page ended at sys_id \(last), not after the cursor \(after): the instance does not "
                + "honour the sys_id> bound, so paging stops instead of asking for the same page again"
        }
    }
}
