import Foundation

/// Decides, request by request, which configured ``Fault``s strike; thread-safe.
public final class FaultInjector: @unchecked Sendable {
    // State is guarded by `lock`; requests arrive on many server threads at once.
    private let lock = NSLock()
    private var faults: [Fault]
    private var counters: [Int]

    /// Creates an injector with `faults` (none by default).
    public init(faults: [Fault] = []) {
        self.faults = faults
        self.counters = Array(repeating: 0, count: faults.count)
    }

    /// The faults in force.
    public var current: [Fault] {
        lock.lock()
        defer { lock.unlock() }
        return faults
    }

    /// How many requests each fault of ``current`` has seen (matched by table) since it was set;
    /// `acl-hide` counts none, as it acts on every request alike.
    public var matchedCounts: [Int] {
        lock.lock()
        defer { lock.unlock() }
        return counters
    }

    /// Replaces the faults and restarts their counts.
    public func replace(with faults: [Fault]) {
        lock.lock()
        self.faults = faults
        counters = Array(repeating: 0, count: faults.count)
        lock.unlock()
    }

    /// What strikes one request.
    struct Decision {
        /// Answer with this instead of running the request.
        var response: HTTPResponse?
        /// Wait this long first.
        var delayMilliseconds = 0
        /// Cut the body and append the cancellation error.
        var truncate = false
        /// Cut the body and append nothing.
        var cut = false
        /// Hide this fraction of records from lists and reads.
        var hiddenFraction = 0.0
        /// In runs of this many records in sys_id order (1: record by record).
        var hiddenRun = 1
        /// Put bytes that are not UTF-8 into these records' values.
        var invalidUTF8: [InvalidUTF8Corruption] = []
        /// Answer counts (Aggregate API `count`, `X-Total-Count`) with this text.
        var count: String?
        /// Answer `X-Total-Count` (only) with this text; it wins over ``count``.
        var totalCount: String?
        /// Pad a successful answer to this many bytes.
        var oversize: Int?
        /// Replace a successful answer with a gzip body inflating to this many bytes.
        var gzipBomb: Int?
        /// Label a successful answer with this `Content-Encoding`.
        var contentEncoding: String?
        /// Drop the keyset cursor (`sys_id>X`) from list queries.
        var stuckCursor = false
    }

    /// Counts the request against every matching fault and says which strike.
    func decide(table: String?, api: Fault.API? = nil) -> Decision {
        var decision = Decision()
        lock.lock()
        defer { lock.unlock() }
        for index in faults.indices {
            let fault = faults[index]
            if let wanted = fault.table, wanted != table { continue }
            if let wanted = fault.api, wanted != api { continue }
            if case .aclHide(let fraction, let run) = fault.kind {
                // ACLs are not intermittent: they hide the same records from every request.
                if fraction > decision.hiddenFraction
                    || (fraction == decision.hiddenFraction && run > decision.hiddenRun)
                {
                    decision.hiddenFraction = fraction
                    decision.hiddenRun = run
                }
                continue
            }
            counters[index] += 1
            let seen = counters[index] - fault.after
            guard seen > 0, (seen - 1) % fault.every == 0 else { continue }
            switch fault.kind {
            case .rateLimit(let retryAfter, let asDate):
                if decision.response == nil {
                    decision.response = Self.rateLimited(retryAfter: retryAfter, asDate: asDate)
                }
            case .status(let code):
                if decision.response == nil { decision.response = Self.failure(code) }
            case .delay(let milliseconds): decision.delayMilliseconds += milliseconds
            case .truncate(let cut):
                if cut {
                    decision.cut = true
                } else {
                    decision.truncate = true
                }
            case .aclHide: break
            case .invalidUTF8(let field, let sysID):
                decision.invalidUTF8.append(InvalidUTF8Corruption(field: field, sysID: sysID))
            case .retryAfter(let value):
                if decision.response == nil { decision.response = Self.rateLimited(rawRetryAfter: value) }
            case .ansiError(let status):
                if decision.response == nil { decision.response = Self.ansiError(status: status) }
            case .count(let value):
                if decision.count == nil { decision.count = value }
            case .totalCount(let value):
                if decision.totalCount == nil { decision.totalCount = value }
            case .oversize(let bytes): decision.oversize = max(decision.oversize ?? 0, bytes)
            case .gzipBomb(let bytes): decision.gzipBomb = max(decision.gzipBomb ?? 0, bytes)
            case .contentEncoding(let value):
                if decision.contentEncoding == nil { decision.contentEncoding = value }
            case .stuckCursor: decision.stuckCursor = true
            }
        }
        return decision
    }

    /// Whether the record `sysId` is hidden when `fraction` of all records are (stable per sys_id).
    static func isHidden(sysId: UnsafeBufferPointer<UInt8>, fraction: Double) -> Bool {
        if fraction <= 0 { return false }
        if fraction >= 1 { return true }
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in sysId {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        return Double(hash % 1_000_000) < fraction * 1_000_000
    }

    /// Cuts a list body after the record nearest its middle and appends the error an instance writes
    /// when its quota rule cancels a transaction that was already streaming (ref §1.4, KB1297438).
    ///
    /// The result is valid JSON with a short `result` and a trailing `error` member: the nastiest
    /// form, since a client that only parses JSON sees a plausible short page.
    static func truncated(_ body: [UInt8]) -> [UInt8] {
        let boundary = Array("},{".utf8)
        var cut = 0
        var index = 0
        while index + boundary.count <= body.count / 2 {
            if body[index] == boundary[0] && body[index + 1] == boundary[1] && body[index + 2] == boundary[2] {
                cut = index + 1
            }
            index += 1
        }
        var result: [UInt8]
        if cut > 0 {
            result = Array(body[..<cut])
            result.append(contentsOf: Array("],".utf8))
        } else {
            result = Array("{\"result\":[],".utf8)
        }
        ErrorEnvelope.appendMembers(
            message: ErrorEnvelope.transactionCancelledMessage, detail: ErrorEnvelope.transactionCancelledDetail,
            to: &result)
        result.append(UInt8(ascii: "}"))
        return result
    }

    /// The first half of `body`: invalid JSON that still arrives with a matching `Content-Length`.
    static func cut(_ body: [UInt8]) -> [UInt8] {
        Array(body.prefix(body.count / 2))
    }

    static func rateLimited(retryAfter: Int, asDate: Bool) -> HTTPResponse {
        var response = ErrorEnvelope.response(
            status: 429, message: "Rate limit exceeded",
            detail: "Rate limit of 100 requests per hour for Table API exceeded")
        let reset = Int(Date().timeIntervalSince1970) + retryAfter
        response.headers.append(("Retry-After", asDate ? httpDate(secondsFromNow: retryAfter) : String(retryAfter)))
        response.headers.append(("X-RateLimit-Limit", "100"))
        response.headers.append(("X-RateLimit-Reset", String(reset)))
        response.headers.append(("X-RateLimit-Rule", "6b0e8f5f1b1e2010a6b0ecee6e4bcb0b"))
        return response
    }

    /// The `retry-after` fault's 429: the rate limit's envelope with `Retry-After` exactly `value`.
    static func rateLimited(rawRetryAfter value: String) -> HTTPResponse {
        var response = ErrorEnvelope.response(
            status: 429, message: "Rate limit exceeded",
            detail: "Rate limit of 100 requests per hour for Table API exceeded")
        response.headers.append(("Retry-After", value))
        response.headers.append(("X-RateLimit-Limit", "100"))
        response.headers.append(("X-RateLimit-Rule", "6b0e8f5f1b1e2010a6b0ecee6e4bcb0b"))
        return response
    }

    /// The `ansi-error` fault's `message`: sets the terminal's window title (OSC 0, ended by BEL),
    /// clears the screen and homes the cursor (CSI 2J, CSI H), turns text red through the one-byte
    /// C1 CSI (U+009B), and hides the start behind a carriage return and backspaces.
    public static let ansiMessage =
        "\u{1B}]0;pwned\u{07}\u{1B}[2J\u{1B}[HInvalid table\r\u{08}\u{08}\u{9B}31mrm -rf /\u{1B}[0m"

    /// The `ansi-error` fault's `detail`: more control characters (NUL, DEL, a bell, a vertical tab,
    /// a line feed that fakes a second log line) and a right-to-left override (U+202E).
    public static let ansiDetail =
        "\u{1B}]2;pwned\u{1B}\\\u{1B}[1A\u{1B}[K\u{00}\u{7F}\u{07}\u{0B}\nnowetl: run ok\u{202E}gpj.exe"

    /// The `ansi-error` fault's answer: the Table API's error envelope with ``ansiMessage`` and
    /// ``ansiDetail`` (JSON escapes them as `\u001b` and so on; a client decodes them back).
    static func ansiError(status: Int) -> HTTPResponse {
        ErrorEnvelope.response(status: status, message: ansiMessage, detail: ansiDetail)
    }

    static func failure(_ code: Int) -> HTTPResponse {
        if code == 500 {
            return ErrorEnvelope.response(status: 500, message: "Internal server error", detail: nil)
        }
        // Gateways in front of an instance answer with their own HTML, not the JSON envelope.
        let html =
            "<html><head><title>\(code)</title></head><body><h1>\(code)</h1><p>The server is temporarily unable to service your request.</p></body></html>"
        return HTTPResponse(status: code, headers: [("Content-Type", "text/html")], body: Array(html.utf8))
    }

    /// An IMF-fixdate (`Sun, 06 Nov 1994 08:49:37 GMT`) `seconds` from now, for `Retry-After`.
    static func httpDate(secondsFromNow seconds: Int) -> String {
        var time = time_t(Int(Date().timeIntervalSince1970) + seconds)
        var parts = tm()
        gmtime_r(&time, &parts)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &parts)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
