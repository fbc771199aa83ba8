import Foundation

/// A misbehaviour nowsim can be told to show, so clients can be tested against what real instances
/// do under load: rate limits, gateway errors, slow answers, cancelled transactions and ACLs that
/// shorten pages.
///
/// Written `KIND[:key=value,…]` on the command line (`--fault rate-limit:every=5,retry-after=2`) or
/// sent to `PUT /api/nowsim/faults`. Every fault may name `table=NAME` (only that table's Table API
/// and Aggregate API requests) and `every=N` (every N-th matching request, counting from the first;
/// default 1 = all) and `after=N` (skip the first N matching requests).
public struct Fault: Sendable, Equatable, CustomStringConvertible {
    /// What happens to a selected request.
    public enum Kind: Sendable, Equatable {
        /// 429 `Rate limit exceeded` with `Retry-After` and the `X-RateLimit-*` headers (ref §3.4);
        /// `Retry-After` is in seconds, or an HTTP date that many seconds ahead when `asDate` is set.
        case rateLimit(retryAfter: Int, asDate: Bool)
        /// An error status (500, 502, 503, 504…), with the envelope for 500 and a proxy's HTML page otherwise.
        case status(Int)
        /// The answer is delayed by this many milliseconds.
        case delay(milliseconds: Int)
        /// HTTP 200 whose body is cut in the middle and ends with the `Transaction cancelled` error
        /// (ref §1.4); with `cut`, the body simply stops half-way, as behind a proxy that dropped it.
        case truncate(cut: Bool)
        /// A fraction of records is hidden after `sysparm_limit` is applied, so pages come back short or
        /// empty while more rows follow (ref §2.1, "limit before ACL"); counts (`X-Total-Count`, the
        /// Aggregate API) still include them, as an instance counts before ACLs (ref §3.2).
        ///
        /// With `run` 1 each record is chosen by its sys_id alone; with `run` K the table's records are
        /// taken in sys_id order in runs of K and whole runs are chosen (by table and run number), so at
        /// page sizes up to K whole keyset pages come back empty. The runs are counted in the table as
        /// it is, whatever the query: an insert or delete shifts the runs after it.
        case aclHide(fraction: Double, run: Int)
        /// One string value of one record of a JSON list or read gets a raw byte that is not UTF-8
        /// (0xE9, Latin-1 `é`) put before it, as an instance serves text a bad import stored: the
        /// value of `field` (default: the record's first string field other than `sys_id`) of the
        /// record `sysID` (default: the response's first record having that field) — see
        /// ``InvalidUTF8Corruption``.
        case invalidUTF8(field: String?, sysID: String?)
    }

    /// The misbehaviour.
    public var kind: Kind
    /// Only requests for this table (Table API and Aggregate API), or every API request when `nil`.
    public var table: String?
    /// Every N-th matching request is affected.
    public var every: Int
    /// The first N matching requests are spared.
    public var after: Int

    /// Creates a fault.
    public init(kind: Kind, table: String? = nil, every: Int = 1, after: Int = 0) {
        self.kind = kind
        self.table = table
        self.every = max(1, every)
        self.after = max(0, after)
    }

    /// A spec problem, naming the spec.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What is wrong.
        public var description: String
    }

    /// Parses `KIND[:key=value,…]`; kinds are `rate-limit`, `status`, `delay`, `truncate`, `acl-hide`,
    /// `invalid-utf8`.
    public init(parsing spec: String) throws(ParseError) {
        let parts = spec.split(separator: ":", maxSplits: 1).map(String.init)
        guard let kindName = parts.first, !kindName.isEmpty else { throw ParseError(description: "empty fault spec") }
        var settings: [String: String] = [:]
        if parts.count == 2 {
            for pair in parts[1].split(separator: ",") {
                let keyValue = pair.split(separator: "=", maxSplits: 1).map(String.init)
                guard keyValue.count == 2 else {
                    throw ParseError(description: "fault '\(spec)': expected key=value, got '\(pair)'")
                }
                settings[keyValue[0]] = keyValue[1]
            }
        }
        func integer(_ key: String, default value: Int?) throws(ParseError) -> Int {
            guard let text = settings.removeValue(forKey: key) else {
                if let value { return value }
                throw ParseError(description: "fault '\(spec)' needs \(key)=N")
            }
            guard let number = Int(text), number >= 0 else {
                throw ParseError(description: "fault '\(spec)': \(key) must be a non-negative integer, got '\(text)'")
            }
            return number
        }
        func flag(_ key: String) throws(ParseError) -> Bool {
            guard let text = settings.removeValue(forKey: key) else { return false }
            guard text == "true" || text == "false" else {
                throw ParseError(description: "fault '\(spec)': \(key) must be true or false, got '\(text)'")
            }
            return text == "true"
        }
        let kind: Kind
        switch kindName {
        case "rate-limit":
            kind = .rateLimit(
                retryAfter: try integer("retry-after", default: 1), asDate: try flag("date"))
        case "status":
            let code = try integer("code", default: 503)
            guard (400...599).contains(code) else {
                throw ParseError(description: "fault '\(spec)': code must be 400…599, got \(code)")
            }
            kind = .status(code)
        case "delay": kind = .delay(milliseconds: try integer("ms", default: nil))
        case "truncate": kind = .truncate(cut: try flag("cut"))
        case "acl-hide":
            guard let text = settings.removeValue(forKey: "fraction"), let fraction = Double(text),
                (0...1).contains(fraction)
            else { throw ParseError(description: "fault '\(spec)' needs fraction=F with 0 ≤ F ≤ 1") }
            let run = try integer("run", default: 1)
            guard run >= 1 else { throw ParseError(description: "fault '\(spec)': run must be at least 1") }
            kind = .aclHide(fraction: fraction, run: run)
        case "invalid-utf8":
            kind = .invalidUTF8(
                field: settings.removeValue(forKey: "field"), sysID: settings.removeValue(forKey: "sys_id"))
        default:
            throw ParseError(
                description:
                    "unknown fault kind '\(kindName)' (expected rate-limit, status, delay, truncate, acl-hide, invalid-utf8)"
            )
        }
        let table = settings.removeValue(forKey: "table")
        let every = try integer("every", default: 1)
        let after = try integer("after", default: 0)
        if let unknown = settings.keys.sorted().first {
            throw ParseError(description: "fault '\(spec)': unknown setting '\(unknown)'")
        }
        self.init(kind: kind, table: table, every: max(1, every), after: after)
    }

    /// The spec text that parses back to this fault.
    public var description: String {
        var text: String
        var settings: [String] = []
        switch kind {
        case .rateLimit(let retryAfter, let asDate):
            text = "rate-limit"
            settings.append("retry-after=\(retryAfter)")
            if asDate { settings.append("date=true") }
        case .status(let code):
            text = "status"
            settings.append("code=\(code)")
        case .delay(let milliseconds):
            text = "delay"
            settings.append("ms=\(milliseconds)")
        case .truncate(let cut):
            text = "truncate"
            if cut { settings.append("cut=true") }
        case .aclHide(let fraction, let run):
            text = "acl-hide"
            settings.append("fraction=\(fraction)")
            if run != 1 { settings.append("run=\(run)") }
        case .invalidUTF8(let field, let sysID):
            text = "invalid-utf8"
            if let field { settings.append("field=\(field)") }
            if let sysID { settings.append("sys_id=\(sysID)") }
        }
        if let table { settings.append("table=\(table)") }
        if every != 1 { settings.append("every=\(every)") }
        if after != 0 { settings.append("after=\(after)") }
        if !settings.isEmpty { text += ":" + settings.joined(separator: ",") }
        return text
    }
}
