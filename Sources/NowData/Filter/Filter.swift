/// Which records to fetch: an encoded query, given as text or built from typed conditions.
///
/// ```swift
/// Filter(query: "active=true^priority<=2")
/// Filter(conditions: [Condition.boolean(field: "active", .is(true))], sorts: [.desc("number")])
/// Filter(criteria: [Criteria(condition: a), Criteria(conditions: [b, c])])   // a OR (b AND c)
/// ```
public struct Filter: Sendable, Hashable, QueryProviding {
    /// The encoded query text sent as `sysparm_query`.
    public let query: String
    /// The query category sent as `sysparm_query_category` (routes reads to a read replica).
    public let queryCategory: String?
    /// The structured query, when the filter was built from typed conditions.
    ///
    /// `nil` for raw query text (parsing it is the job of the encoded-query parser,
    /// ``EncodedQuery/init(parsing:)``; a ``Paginator`` parses it once to compose its page queries) and
    /// for filters that contain custom ``QueryProviding`` values.
    public let encodedQuery: EncodedQuery?

    /// Creates a filter from raw encoded-query text.
    public init(query: String, queryCategory: String? = nil) {
        self.query = query
        self.queryCategory = queryCategory
        self.encodedQuery = nil
    }

    /// Creates a filter from a structured query.
    public init(encodedQuery: EncodedQuery, queryCategory: String? = nil) {
        self.query = encodedQuery.description
        self.queryCategory = queryCategory
        self.encodedQuery = encodedQuery
    }

    /// Creates a filter that matches any of the criteria (each an AND group; groups joined by `^NQ`).
    public init(criteria criteriaList: [Criteria], sortBy: [Sort]? = nil, queryCategory: String? = nil) {
        let sorts = (sortBy ?? []).map(\.encodedSort)
        let groups = criteriaList.map { Filter.group($0.conditions) }
        if groups.allSatisfy({ $0 != nil }) {
            self.init(
                encodedQuery: EncodedQuery(groups: groups.map { $0! }, orderBy: sorts), queryCategory: queryCategory)
        } else {
            let text = criteriaList.map { $0.conditions.map(\.query).joined(separator: "^") }.joined(separator: "^NQ")
            self.init(text: text, sorts: sorts, queryCategory: queryCategory)
        }
    }

    /// Creates a filter that matches when all conditions hold.
    public init(conditions: [any QueryProviding], sorts: [Sort]? = nil) {
        let encodedSorts = (sorts ?? []).map(\.encodedSort)
        if let group = Filter.group(conditions) {
            self.init(encodedQuery: EncodedQuery(groups: group.terms.isEmpty ? [] : [group], orderBy: encodedSorts))
        } else {
            self.init(text: conditions.map(\.query).joined(separator: "^"), sorts: encodedSorts, queryCategory: nil)
        }
    }

    /// Creates a text-search filter with AND-ed conditions:
    /// `123TEXTQUERY321=<keywords>^<conditions>^EQ^<sorts>`.
    public init(keywords: String? = nil, conditions: [Condition], sortBy: [Sort]? = nil) {
        var terms: [EncodedQuery.Term] = []
        if let keywords, !keywords.isEmpty {
            let search = EncodedQuery.Condition(field: "123TEXTQUERY321", op: .equals, value: .literal(keywords))
            terms.append(EncodedQuery.Term(conditions: [search]))
        }
        terms += conditions.map { EncodedQuery.Term(conditions: [$0.encodedCondition]) }
        let query = EncodedQuery(
            groups: terms.isEmpty ? [] : [EncodedQuery.Group(terms: terms)],
            orderBy: (sortBy ?? []).map(\.encodedSort), hasEndMarker: true)
        self.init(encodedQuery: query)
    }

    private init(text: String, sorts: [EncodedQuery.Sort], queryCategory: String?) {
        let sortText = EncodedQuery(orderBy: sorts).description
        self.query = [text, sortText].filter { !$0.isEmpty }.joined(separator: "^")
        self.queryCategory = queryCategory
        self.encodedQuery = nil
    }

    /// The AND group of the providers, when all of them are typed conditions.
    private static func group(_ providers: [any QueryProviding]) -> EncodedQuery.Group? {
        var terms: [EncodedQuery.Term] = []
        for provider in providers {
            if let condition = provider as? Condition {
                terms.append(EncodedQuery.Term(conditions: [condition.encodedCondition]))
            } else if let compound = provider as? CompoundCondition {
                terms.append(compound.term)
            } else if let filter = provider as? Filter, let query = filter.encodedQuery, query.groups.count == 1,
                query.orderBy.isEmpty
            {
                terms += query.groups[0].terms
            } else {
                return nil
            }
        }
        return EncodedQuery.Group(terms: terms)
    }

    /// Two filters are equal when they send the same query and category.
    public static func == (lhs: Filter, rhs: Filter) -> Bool {
        lhs.query == rhs.query && lhs.queryCategory == rhs.queryCategory
    }

    /// Hashes the query text and category.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(query)
        hasher.combine(queryCategory)
    }
}
