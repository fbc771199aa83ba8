import Foundation

/// A misbehaviour nowsim can be told to show, so clients can be tested against what real instances
/// do under load: rate limits, gateway errors, slow answers, cancelled transactions and ACLs that
/// shorten pages.
///
/// Written `KIND[:key=value,…]` on the command line (`--fault rate-limit:every=5,retry-after=2`) or
/// sent to `PUT /api/nowsim/faults`. Every fault may name `table=NAME` (only that table's Table API
/// and Aggregate API requests) and `every=N` (every N-th matching request, counting from the first;
/// default 1 = all) and `after=N` (skip the first N matching requests).
///
/// The hostile answers take their one argument directly: `retry-after:VALUE`, `count:VALUE`,
/// `total-count:VALUE` and
/// `content-encoding:VALUE` (the whole rest of the spec, commas included, so an HTTP date fits), or
/// `oversize:SIZE[,key=value…]` and `gzip-bomb:SIZE[,…]`. With other settings a value is written
/// `value=VALUE` as the last one (`retry-after:table=incident,value=Sun, 06 Nov 1994 08:49:37 GMT`);
/// it takes the rest of the spec verbatim.
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
        /// 429 `Rate limit exceeded` whose `Retry-After` is this text verbatim (`1e30`, `-5`, `abc`, a
        /// date), as a misconfigured rule or a proxy sends it; no `X-RateLimit-Reset` (there is no
        /// number to compute it from).
        case retryAfter(String)
        /// The Aggregate API's `count` (a JSON string, as every count is) and the Table API's
        /// `X-Total-Count` are this text verbatim (`-9223372036854775808`, `1e400`, `abc`).
        case count(String)
        /// The Table API's `X-Total-Count` only (when the request asks for it: no `sysparm_no_count`) is
        /// this text verbatim, the Aggregate API's count staying true: a proxy or a broken instance that
        /// mangles the header a client may end a range on.
        case totalCount(String)
        /// A successful answer is padded to this many bytes with spaces inside its outermost JSON
        /// object (before the last `}`; after the body for XML), so it stays valid and holds the same
        /// records; streamed, nowsim never holds the padding in memory.
        case oversize(bytes: Int)
        /// A successful answer is replaced by a `Content-Encoding: gzip` body that inflates to this
        /// many bytes (`{"result":[` + spaces + `]}`), whatever the request's `Accept-Encoding` said.
        case gzipBomb(bytes: Int)
        /// A successful answer carries `Content-Encoding: VALUE` (`br`, `zstd`, …) while its body is
        /// the plain page: an encoding the client never asked for.
        case contentEncoding(String)
        /// An error answer with the Table API's envelope whose `message` and `detail` carry terminal
        /// escape sequences and other control characters (``FaultInjector/ansiMessage``).
        case ansiError(status: Int)
        /// Keyset pages ignore the `sys_id>X` bound of `sysparm_query` (each `sys_id` condition with
        /// `>`), so the same first page comes back however the cursor moves; `sys_id>=` range bounds
        /// still hold.
        case stuckCursor
    }

    /// The largest `oversize` and `gzip-bomb` size: 64 GiB.
    public static let maximumSize = 64 << 30

    /// The misbehaviour.
    public var kind: Kind
    /// Only requests for this table (Table API and Aggregate API), or every API request when `nil`.
    public var table: String?
    /// Only requests of this API, or of both when `nil` (`api=table` spares a table's counts).
    public var api: API?
    /// Every N-th matching request is affected.
    public var every: Int
    /// The first N matching requests are spared.
    public var after: Int

    /// Creates a fault.
    public init(kind: Kind, table: String? = nil, api: API? = nil, every: Int = 1, after: Int = 0) {
        self.kind = kind
        self.table = table
        self.api = api
        self.every = max(1, every)
        self.after = max(0, after)
    }

    /// A spec problem, naming the spec.
    public struct ParseError: Error, CustomStringConvertible, Equatable {
        /// What is wrong.
        public var description: String
    }

    /// Parses `KIND[:key=value,…]`; kinds are `rate-limit`, `status`, `delay`, `truncate`, `acl-hide`,
    /// `invalid-utf8`, `retry-after`, `count`, `total-count`, `oversize`, `gzip-bomb`, `content-encoding`,
    /// `ansi-error`, `stuck-cursor`.
    public init(parsing spec: String) throws(ParseError) {
        let parts = spec.split(separator: ":", maxSplits: 1, omittingEmptySubsequences: false).map(String.init)
        guard let kindName = parts.first, !kindName.isEmpty else { throw ParseError(description: "empty fault spec") }
        let argumentKey = Self.argumentKeys[kindName]
        var settings: [String: String] = [:]
        if parts.count == 2 {
            var rest = Substring(parts[1])
            if argumentKey == "value", !Self.startsWithSetting(rest, kindName: kindName) {
                // `KIND:VALUE`: a value may hold commas, so the whole text is the value.
                settings["value"] = String(rest)
                rest = ""
            } else if argumentKey == "size", let first = rest.split(separator: ",").first, !first.contains("=") {
                // `KIND:SIZE[,key=value…]`.
                settings["size"] = String(first)
                rest = rest.dropFirst(min(rest.count, first.count + 1))
            }
            while !rest.isEmpty {
                if argumentKey == "value", rest.hasPrefix("value=") {
                    settings["value"] = String(rest.dropFirst("value=".count))
                    break
                }
                let pair = rest.prefix(while: { $0 != "," })
                rest = rest.dropFirst(pair.count + (pair.count < rest.count ? 1 : 0))
                if pair.isEmpty { continue }
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
        func headerValue() throws(ParseError) -> String {
            guard let text = settings.removeValue(forKey: "value") else {
                throw ParseError(description: "fault '\(spec)' needs a value: \(kindName):VALUE")
            }
            // A line break would end the header early, and libmicrohttpd refuses it anyway.
            guard !text.utf8.contains(where: { $0 == 0x0A || $0 == 0x0D || $0 == 0 }) else {
                throw ParseError(description: "fault '\(spec)': the value must not contain CR, LF or NUL")
            }
            return text
        }
        func size(default value: Int) throws(ParseError) -> Int {
            guard let text = settings.removeValue(forKey: "size") else { return value }
            guard let bytes = Self.byteCount(text), bytes <= Self.maximumSize else {
                throw ParseError(
                    description: "fault '\(spec)': size must be a byte count up to 64GB "
                        + "(e.g. 1048576, 512KB, 64MB, 1GB), got '\(text)'")
            }
            return bytes
        }
        func statusCode(default value: Int) throws(ParseError) -> Int {
            let code = try integer("code", default: value)
            guard (400...599).contains(code) else {
                throw ParseError(description: "fault '\(spec)': code must be 400…599, got \(code)")
            }
            return code
        }
        let kind: Kind
        switch kindName {
        case "rate-limit":
            kind = .rateLimit(
                retryAfter: try integer("retry-after", default: 1), asDate: try flag("date"))
        case "status": kind = .status(try statusCode(default: 503))
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
        case "retry-after": kind = .retryAfter(try headerValue())
        case "count": kind = .count(try headerValue())
        case "total-count": kind = .totalCount(try headerValue())
        case "content-encoding": kind = .contentEncoding(try headerValue())
        case "oversize": kind = .oversize(bytes: try size(default: 64 << 20))
        case "gzip-bomb": kind = .gzipBomb(bytes: try size(default: 1 << 30))
        case "ansi-error": kind = .ansiError(status: try statusCode(default: 400))
        case "stuck-cursor": kind = .stuckCursor
        default:
            throw ParseError(
                description:
                    "unknown fault kind '\(kindName)' (expected rate-limit, status, delay, truncate, acl-hide, "
                    + "invalid-utf8, retry-after, count, total-count, oversize, gzip-bomb, content-encoding, "
                    + "ansi-error, stuck-cursor)"
            )
        }
        let table = settings.removeValue(forKey: "table")
        var api: API?
        if let text = settings.removeValue(forKey: "api") {
            guard let named = API(rawValue: text) else {
                throw ParseError(description: "fault '\(spec)': api must be table or stats, got '\(text)'")
            }
            api = named
        }
        let every = try integer("every", default: 1)
        let after = try integer("after", default: 0)
        if let unknown = settings.keys.sorted().first {
            throw ParseError(description: "fault '\(spec)': unknown setting '\(unknown)'")
        }
        self.init(kind: kind, table: table, api: api, every: max(1, every), after: after)
    }

    /// The kinds that take one argument as `KIND:ARGUMENT`, with the setting it stands for.
    private static let argumentKeys = [
        "retry-after": "value", "count": "value", "total-count": "value", "content-encoding": "value",
        "oversize": "size",
        "gzip-bomb": "size",
    ]

    /// Whether `text` begins with a setting of its own (`table=`, `api=`, `every=`, `after=`, or the
    /// kind's argument key) rather than being the bare argument.
    private static func startsWithSetting(_ text: Substring, kindName: String) -> Bool {
        let keys = ["table", "api", "every", "after"] + [argumentKeys[kindName]].compactMap { $0 }
        return keys.contains { text.hasPrefix($0 + "=") }
    }

    /// `1048576`, `512KB`, `64MB`, `1GB` (binary multiples; `B` and lower case accepted) in bytes.
    static func byteCount(_ text: String) -> Int? {
        let upper = text.uppercased()
        let units: [(String, Int)] = [("GB", 1 << 30), ("MB", 1 << 20), ("KB", 1 << 10), ("B", 1)]
        for (suffix, factor) in units where upper.hasSuffix(suffix) {
            guard let number = Int(upper.dropLast(suffix.count)), number >= 0 else { return nil }
            let (bytes, overflow) = number.multipliedReportingOverflow(by: factor)
            return overflow ? nil : bytes
        }
        guard let number = Int(upper), number >= 0 else { return nil }
        return number
    }

    /// The spec text that parses back to this fault.
    public var description: String {
        var text = kind.name
        var settings: [String] = []
        var trailing: String?
        switch kind {
        case .rateLimit(let retryAfter, let asDate):
            settings.append("retry-after=\(retryAfter)")
            if asDate { settings.append("date=true") }
        case .status(let code), .ansiError(let code):
            settings.append("code=\(code)")
        case .delay(let milliseconds):
            settings.append("ms=\(milliseconds)")
        case .truncate(let cut):
            if cut { settings.append("cut=true") }
        case .aclHide(let fraction, let run):
            settings.append("fraction=\(fraction)")
            if run != 1 { settings.append("run=\(run)") }
        case .invalidUTF8(let field, let sysID):
            if let field { settings.append("field=\(field)") }
            if let sysID { settings.append("sys_id=\(sysID)") }
        case .retryAfter(let value), .count(let value), .totalCount(let value), .contentEncoding(let value):
            trailing = value
        case .oversize(let bytes), .gzipBomb(let bytes):
            settings.append("size=\(bytes)")
        case .stuckCursor:
            break
        }
        if let table { settings.append("table=\(table)") }
        if let api { settings.append("api=\(api.rawValue)") }
        if every != 1 { settings.append("every=\(every)") }
        if after != 0 { settings.append("after=\(after)") }
        // A value takes the rest of the spec, so it goes last.
        if let trailing { settings.append("value=\(trailing)") }
        if !settings.isEmpty { text += ":" + settings.joined(separator: ",") }
        return text
    }
}

extension Fault {
    /// The APIs faults act on.
    public enum API: String, Sendable, Hashable {
        /// The Table API (`/api/now/table/…`, `/api/now/v1|v2/table/…`).
        case table
        /// The Aggregate API (`/api/now/stats/…`).
        case stats
    }
}

extension Fault.Kind {
    /// The kind's name in a spec (`rate-limit`, `gzip-bomb`, …).
    var name: String {
        switch self {
        case .rateLimit: "rate-limit"
        case .status: "status"
        case .delay: "delay"
        case .truncate: "truncate"
        case .aclHide: "acl-hide"
        case .invalidUTF8: "invalid-utf8"
        case .retryAfter: "retry-after"
        case .count: "count"
        case .totalCount: "total-count"
        case .contentEncoding: "content-encoding"
        case .oversize: "oversize"
        case .gzipBomb: "gzip-bomb"
        case .ansiError: "ansi-error"
        case .stuckCursor: "stuck-cursor"
        }
    }
}
