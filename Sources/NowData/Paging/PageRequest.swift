import Foundation

/// How the pages of one fetch configuration are requested and checked: the query items of offset and
/// keyset pages and the checks of their answers.
///
/// The one place that knows what a page request looks like, shared by ``Paginator`` (which keeps the
/// cursors) and ``NowTableService/keysetPage(from:configuration:range:after:)`` (whose caller keeps them),
/// so both send the same queries and fail with the same ``PaginationError``s.
struct PageRequest: Sendable {
    /// The fetch configuration (filter, limit, fields).
    let configuration: FetchConfiguration
    /// The filter as a parsed query, parsed once here: page queries are composed from it, never from text.
    let filter: PageFilter
    /// Items requested per page (`sysparm_limit`); 20 unless the fetch configuration sets a limit.
    let itemsPerPage: Int

    /// Sends the GET of a page with the given query items.
    typealias Fetch = @Sendable ([URLQueryItem]) async throws(NowDataError) -> TransportResponse

    init(configuration: FetchConfiguration) {
        self.configuration = configuration
        self.filter = Self.parsedFilter(configuration.filter)
        self.itemsPerPage = max(1, configuration.limit ?? 20)
    }

    /// A filter as pages use it: its structured query, or its text when that does not parse.
    enum PageFilter: Sendable {
        case parsed(EncodedQuery)
        case unparsed(String, EncodedQueryError)
    }

    /// The filter's structured query, or its text parsed when it was given as text (or holds custom
    /// ``QueryProviding`` values); an empty query without a filter.
    ///
    /// Text that does not parse is kept with the error: offset pages send it as it is, keyset pages
    /// refuse it, because composing their bounds by splitting unparsed text could send a query that
    /// means something else.
    private static func parsedFilter(_ filter: Filter?) -> PageFilter {
        guard let filter else { return .parsed(EncodedQuery()) }
        if let query = filter.encodedQuery { return .parsed(query) }
        do {
            return .parsed(try EncodedQuery(parsing: filter.query))
        } catch {
            return .unparsed(filter.query, error)
        }
    }

    /// The `sysparm_query` of an offset page over unparsed filter text: the text with `ORDERBYsys_id`
    /// appended unless its last sort is already on sys_id, so the pages have a total order (ref §9.1).
    static func offsetPageText(_ text: String) -> String {
        let lastSort = text.split(separator: "^").last { $0.hasPrefix("ORDERBY") }
        if lastSort == "ORDERBYsys_id" || lastSort == "ORDERBYDESCsys_id" { return text }
        return text.isEmpty ? "ORDERBYsys_id" : text + "^ORDERBYsys_id"
    }

    /// The query items of offset page `index`.
    func offsetItems(page index: Int) -> [URLQueryItem] {
        let query: String
        switch filter {
        case .parsed(let filter): query = filter.offsetPage().description
        case .unparsed(let text, _): query = Self.offsetPageText(text)
        }
        return [
            URLQueryItem(name: "sysparm_query", value: query),
            URLQueryItem(name: "sysparm_limit", value: String(itemsPerPage)),
            URLQueryItem(name: "sysparm_offset", value: String(index * itemsPerPage)),
        ] + commonItems(readConfiguration: configuration.readConfiguration)
    }

    /// The query items of the keyset page of `range` after `after`: the filter with sys_id bounds in
    /// every `^NQ` group, no count, no `Link` header, and `sys_id` among the fields (the next cursor).
    /// - Throws: ``PaginationError/invalidQuery(_:)`` when the filter text does not parse.
    func keysetItems(in range: SysIDRange?, after: SysID?) throws(PaginationError) -> [URLQueryItem] {
        try Self.checkBounds(range, after: after)
        let filter: EncodedQuery
        switch self.filter {
        case .parsed(let query): filter = query
        case .unparsed(_, let error): throw .invalidQuery(error)
        }
        var readConfiguration = configuration.readConfiguration
        if var read = readConfiguration, !read.includeFields.isEmpty, !read.includeFields.contains("sys_id") {
            read.includeFields.append("sys_id")
            readConfiguration = read
        }
        return [
            URLQueryItem(name: "sysparm_query", value: filter.keysetPage(in: range, after: after).description),
            URLQueryItem(name: "sysparm_limit", value: String(itemsPerPage)),
            URLQueryItem(name: "sysparm_suppress_pagination_header", value: "true"),
            URLQueryItem(name: "sysparm_no_count", value: "true"),
        ] + commonItems(readConfiguration: readConfiguration)
    }

    /// The query items of the keyset window `offset` records past `after` (offsets count records before
    /// ACLs, so a window of hidden records can be stepped over): the keyset page's items plus `sysparm_offset`;
    /// with `counting`, without `sysparm_no_count`, so the answer's `X-Total-Count` counts the records of
    /// `range` after `after` (before ACLs, whatever the limit and offset).
    /// - Throws: ``PaginationError/invalidQuery(_:)`` when the filter text does not parse.
    func keysetItems(
        in range: SysIDRange?, after: SysID?, offset: Int, counting: Bool = false
    ) throws(PaginationError) -> [URLQueryItem] {
        var items = try keysetItems(in: range, after: after)
        if counting { items.removeAll { $0.name == "sysparm_no_count" } }
        if offset > 0 { items.append(URLQueryItem(name: "sysparm_offset", value: String(offset))) }
        return items
    }

    /// The filter of the count of the keyset window of `range` after `after`: the keyset page's query
    /// without its sort (the Aggregate API ignores sorting anyway).
    /// - Throws: ``PaginationError/invalidQuery(_:)`` when the filter text does not parse.
    func keysetCountFilter(in range: SysIDRange?, after: SysID?) throws(PaginationError) -> Filter {
        try Self.checkBounds(range, after: after)
        let filter: EncodedQuery
        switch self.filter {
        case .parsed(let query): filter = query
        case .unparsed(_, let error): throw .invalidQuery(error)
        }
        var query = filter.keysetPage(in: range, after: after)
        query.orderBy = []
        return Filter(encodedQuery: query, queryCategory: configuration.filter?.queryCategory)
    }

    /// Checks that every sys_id about to go into a page query keeps to ``SysIDRule``: a cursor comes from
    /// an instance's answer, and `zz^NQsys_idISNOTEMPTY` would add a query group of its own.
    /// - Throws: ``PaginationError/invalidSysId(_:)``.
    static func checkBounds(_ range: SysIDRange?, after: SysID?) throws(PaginationError) {
        for value in [range?.lowerBound, range?.upperBound, after] {
            if let value, let problem = SysIDRule.problem(value) {
                throw .invalidSysId("'\(SysIDRule.escaped(value))' \(problem)")
            }
        }
    }

    private func commonItems(readConfiguration: FieldReadConfiguration?) -> [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let category = configuration.filter?.queryCategory {
            items.append(URLQueryItem(name: "sysparm_query_category", value: category))
        }
        return items + (readConfiguration?.queryItems ?? [])
    }

    /// A page's answer with the facts paging needs.
    struct Answer: Sendable {
        var response: TransportResponse
        /// Records in the `result` array.
        var recordCount: Int
        /// The greatest sys_id among them.
        var lastSysId: SysID?

        /// `X-Total-Count`, when the answer carried one that is a record count (``InstanceCount``).
        var totalCount: Int? { response.header("x-total-count").flatMap { InstanceCount.parse($0) } }
    }

    /// Sends a page request and checks the answer: a `result` array, and for keyset pages a sys_id on
    /// the rows (the next page's cursor).
    /// - Throws: ``PaginationError/fetchFailed(_:)`` when the request fails or the body has no `result`
    ///   array; ``PaginationError/missingSysId`` when keyset rows carry no sys_id.
    static func send(_ items: [URLQueryItem], keyset: Bool, fetch: Fetch) async throws(PaginationError) -> Answer {
        let response: TransportResponse
        do {
            response = try await fetch(items)
        } catch {
            throw .fetchFailed(error)
        }
        guard let scan = response.scan, case .array(let count) = scan.result else {
            throw .fetchFailed(.cannotParseResponse)
        }
        if keyset, count > 0, scan.maxSysId == nil { throw .missingSysId }
        return Answer(response: response, recordCount: count, lastSysId: scan.maxSysId)
    }
}
