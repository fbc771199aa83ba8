import Foundation

/// What to fetch: a filter, a page size, and which fields in which form.
///
/// Use one configuration per model type so the returned fields match the `Decodable` model.
public struct FetchConfiguration: Sendable, Hashable {
    /// The filter, sent as `sysparm_query` (and `sysparm_query_category`).
    public var filter: Filter?
    /// Records per response or page (`sysparm_limit`); `nil` leaves the server default (10000) for
    /// plain fetches and 20 for paginators.
    public var limit: Int?
    /// The fields and value forms to read.
    public var readConfiguration: FieldReadConfiguration?

    /// Creates a fetch configuration.
    public init(filter: Filter? = nil, limit: Int? = nil, readConfiguration: FieldReadConfiguration? = nil) {
        self.filter = filter
        self.limit = limit
        self.readConfiguration = readConfiguration
    }

    /// Creates a fetch configuration from positional arguments, as the SDK samples write it:
    /// `FetchConfiguration(Filter(query: q), limit, readConfig)`.
    public init(_ filter: Filter?, _ limit: Int?, _ readConfiguration: FieldReadConfiguration?) {
        self.init(filter: filter, limit: limit, readConfiguration: readConfiguration)
    }

    /// The query items for a list request (filter, category, limit, read configuration).
    public var queryItems: [URLQueryItem] {
        var items: [URLQueryItem] = []
        if let filter {
            if !filter.query.isEmpty { items.append(URLQueryItem(name: "sysparm_query", value: filter.query)) }
            if let category = filter.queryCategory {
                items.append(URLQueryItem(name: "sysparm_query_category", value: category))
            }
        }
        if let limit { items.append(URLQueryItem(name: "sysparm_limit", value: String(limit))) }
        items += readConfiguration?.queryItems ?? []
        return items
    }
}
