/// How a ``Paginator`` walks through a result set.
public enum PaginationStrategy: Sendable, Hashable {
    /// `sysparm_offset` paging, as the Mobile SDK does: random access (``Paginator/last()``,
    /// ``Paginator/previous()``) and a page count from `X-Total-Count`. An `ORDERBYsys_id` tie-breaker is
    /// appended so pages have a total order, but rows inserted or deleted while paging shift later pages.
    case offset
    /// Keyset paging on sys_id: `<filter>^sys_id>LAST^ORDERBYsys_id` (per `^NQ` group), optionally
    /// bounded to `sys_id>=lowerBound^sys_id<upperBound`. Stable on changing tables and cheap at any
    /// depth. Only an empty page ends the range — a short page (rows hidden by ACLs) does not.
    /// Supports ``Paginator/first()``, ``Paginator/next()`` and ``Paginator/previous()``, not
    /// ``Paginator/last()``.
    case keyset(range: SysIDRange? = nil)
}
