import Foundation

extension NowTableService {
    /// Fetches the keyset window `offset` records past `after`: the request of
    /// ``keysetPage(from:configuration:range:after:)`` with `sysparm_offset`.
    ///
    /// The instance applies `sysparm_limit` and `sysparm_offset` before row ACLs (ref §2.1), so when a
    /// keyset page comes back empty although records are left (``keysetCount(from:configuration:range:after:)``
    /// is not 0), the records right after the cursor are hidden from the caller; windows at growing
    /// offsets from the same cursor step over them without skipping a visible record. Continue by keyset
    /// after the ``KeysetPage/lastSysId`` of the first window that has records.
    /// - Parameters:
    ///   - offset: records (counted before ACLs) to skip after `after`; 0 is the keyset page itself.
    ///   - counting: ask the instance to count the records of `range` after `after` too (no
    ///     `sysparm_no_count`): ``KeysetPage/totalCount``. The count is a second query on the instance,
    ///     as costly as the records it counts, so ask for it where the rest is known to be small.
    /// - Throws: as ``keysetPage(from:configuration:range:after:)``.
    public func keysetPage(
        from tableName: String, configuration: FetchConfiguration? = nil, range: SysIDRange? = nil,
        after: SysID? = nil, skipping offset: Int, counting: Bool = false
    ) async throws(PaginationError) -> KeysetPage {
        let request = PageRequest(configuration: configuration ?? FetchConfiguration())
        let items = try request.keysetItems(in: range, after: after, offset: max(0, offset), counting: counting)
        let answer = try await PageRequest.send(items, keyset: true, fetch: pageFetch(tableName: tableName))
        return KeysetPage(
            body: answer.response.body, recordCount: answer.recordCount, lastSysId: answer.lastSysId,
            attempts: answer.response.attempts,
            totalCount: counting ? answer.totalCount : nil)
    }

    /// Counts the records of `range` after `after` that match the configuration's filter, through the
    /// Aggregate API (`GET /api/now/stats/{table}?sysparm_count=true`, ref §7.1), with the keyset page's
    /// query (`<filter>^sys_id>=LOW^sys_id<HIGH^sys_id>AFTER` per `^NQ` group).
    ///
    /// The count is taken before row ACLs: 0 confirms that an empty keyset page ends the range; more
    /// means records are left that the caller may not see. A user the Aggregate API refuses (403: its
    /// REST ACL is active and the user lacks the role) is counted through the Table API instead: the
    /// `X-Total-Count` of a one-record keyset request, which counts the same way.
    /// - Throws: ``PaginationError/invalidQuery(_:)`` before any request when the filter text does not
    ///   parse; ``PaginationError/fetchFailed(_:)`` when the request fails (after the retry policy's
    ///   retries) or the answer holds no count.
    public func keysetCount(
        from tableName: String, configuration: FetchConfiguration? = nil, range: SysIDRange? = nil,
        after: SysID? = nil
    ) async throws(PaginationError) -> KeysetCount {
        let request = PageRequest(configuration: configuration ?? FetchConfiguration())
        let filter = try request.keysetCountFilter(in: range, after: after)
        let refused: Int
        do {
            let counted = try await count(from: tableName, filter: filter)
            return KeysetCount(count: counted.count, attempts: counted.attempts)
        } catch {
            guard error.statusCode == 403 else { throw .fetchFailed(error) }
            refused = error.context?.attempts ?? 1
        }
        var items = [
            URLQueryItem(name: "sysparm_query", value: filter.query), URLQueryItem(name: "sysparm_limit", value: "1"),
            URLQueryItem(name: "sysparm_fields", value: "sys_id"),
            URLQueryItem(name: "sysparm_suppress_pagination_header", value: "true"),
        ]
        if let category = filter.queryCategory {
            items.append(URLQueryItem(name: "sysparm_query_category", value: category))
        }
        let response: TransportResponse
        do {
            response = try await pageFetch(tableName: tableName)(items)
        } catch {
            throw .fetchFailed(error)
        }
        guard let text = response.header("x-total-count"), let count = InstanceCount.parse(text) else {
            throw .fetchFailed(.cannotParseResponse)
        }
        return KeysetCount(count: count, attempts: refused + response.attempts)
    }
}
