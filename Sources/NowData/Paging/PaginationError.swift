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
        }
    }
}
