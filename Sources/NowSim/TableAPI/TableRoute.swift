/// A parsed `/api/now[/v1|/v2]/table/{table}[/{sys_id}]` path.
struct TableRoute: Equatable {
    /// `1` or `2` for versioned paths, `nil` for the unversioned one (which behaves like v2).
    var version: Int?
    /// The table name.
    var table: String
    /// The record's sys_id, for single-record methods.
    var sysId: String?

    /// Whether an empty list answers 404 (v1) rather than 200 with `[]` (v2 and latest).
    var emptyListIsNotFound: Bool { version == 1 }

    /// Parses `path` for the API named `api` (`table`, `stats`); `nil` when it is not such a path.
    init?(path: String, api: String) {
        var parts = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        guard parts.count >= 3, parts[0] == "api", parts[1] == "now" else { return nil }
        parts.removeFirst(2)
        if let first = parts.first, first.count == 2, first.hasPrefix("v"), let number = Int(first.dropFirst()) {
            guard number == 1 || number == 2 else { return nil }
            version = number
            parts.removeFirst()
        } else {
            version = nil
        }
        guard parts.count == 2 || parts.count == 3, parts[0] == api, !parts[1].isEmpty else { return nil }
        table = parts[1]
        sysId = parts.count == 3 ? parts[2] : nil
    }
}
