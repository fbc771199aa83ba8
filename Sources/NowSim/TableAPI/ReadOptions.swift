/// The read parameters shared by every Table API method that returns records (ref §2).
struct ReadOptions {
    /// `sysparm_display_value`.
    enum DisplayMode: Sendable {
        /// `false` (default): stored values.
        case value
        /// `true`: display values.
        case display
        /// `all`: both, as `{"display_value":…,"value":…}`.
        case all
    }

    var displayMode: DisplayMode = .value
    /// `sysparm_exclude_reference_link`.
    var excludeReferenceLink = false
    /// `sysparm_fields`, split on commas; `nil` means every field of the table.
    var fields: [String]?
    /// The path before a table name in reference links: `/api/now/table/`, or `/api/now/v2/table/`
    /// when the request named a version. Real instances build links on the path the caller used
    /// (recorded v2 answers link `…/api/now/v2/table/sys_user/…`, v1 answers `…/api/now/v1/table/…`).
    var tablePath = "/api/now/table/"

    init(displayMode: DisplayMode = .value, excludeReferenceLink: Bool = false, fields: [String]? = nil) {
        self.displayMode = displayMode
        self.excludeReferenceLink = excludeReferenceLink
        self.fields = fields
    }

    /// Reads the options from the request's query parameters; unknown values fall back to defaults.
    init(request: HTTPRequest) {
        switch request.query("sysparm_display_value")?.lowercased() {
        case "true": displayMode = .display
        case "all": displayMode = .all
        default: displayMode = .value
        }
        excludeReferenceLink = isTrue(request.query("sysparm_exclude_reference_link"))
        tablePath = Self.tablePath(of: request)
        if let list = request.query("sysparm_fields") {
            let names = list.split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }.filter {
                !$0.isEmpty
            }
            fields = names.isEmpty ? nil : names
        }
    }
}

extension ReadOptions {
    /// The Table API path prefix of `request`: `/api/now/v1/table/` or `/api/now/v2/table/` for a
    /// versioned Table API path, `/api/now/table/` otherwise.
    static func tablePath(of request: HTTPRequest) -> String {
        if let route = TableRoute(path: request.path, api: "table"), let version = route.version {
            return "/api/now/v\(version)/table/"
        }
        return "/api/now/table/"
    }
}

/// Whether a boolean query parameter says true (`true`, any case); ServiceNow treats anything else as false.
func isTrue(_ value: String?) -> Bool {
    value?.lowercased() == "true"
}
