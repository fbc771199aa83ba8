import Foundation

/// The access log: one line per finished request, written to stderr (or any sink) under a lock.
///
/// A line looks like `2026-11-29T12:00:00Z 127.0.0.1 GET /api/now/table/incident?sysparm_limit=1 200 1234B 3.2ms`.
/// Only the request line's target is logged, never headers (so never `Authorization`) and never bodies
/// (so never the `password`, `client_secret` or `refresh_token` of an OAuth form). Query parameters whose
/// names look like credentials are redacted all the same, in case a client puts them in the URL.
public final class RequestLog: Sendable {
    /// One finished request, as the log sees it.
    public struct Entry: Sendable {
        /// When the request line arrived.
        public var date: Date
        /// The peer's IP address.
        public var remoteAddress: String
        /// The request method.
        public var method: String
        /// The request target as sent (path and raw query, still percent-encoded).
        public var target: String
        /// The response status, 0 when no response was produced.
        public var status: Int
        /// The number of body bytes sent (0 for `HEAD`).
        public var bytes: Int
        /// Time from the request line to the end of the response, in seconds.
        public var duration: Double
        /// False when the connection failed or the client went away before the response was sent.
        public var completed: Bool

        /// Creates an entry.
        public init(
            date: Date, remoteAddress: String, method: String, target: String, status: Int, bytes: Int,
            duration: Double, completed: Bool = true
        ) {
            self.date = date
            self.remoteAddress = remoteAddress
            self.method = method
            self.target = target
            self.status = status
            self.bytes = bytes
            self.duration = duration
            self.completed = completed
        }
    }

    /// Longest request target written to the log; longer ones are cut and marked with `…`.
    public static let maxTargetLength = 8192

    private let lock = NSLock()
    private let sink: @Sendable (String) -> Void

    /// A log writing to a file descriptor, standard error by default.
    public convenience init(fileDescriptor: Int32 = STDERR_FILENO) {
        self.init { line in Self.write(line, to: fileDescriptor) }
    }

    /// Writes all of `text` to `fileDescriptor`, retrying interrupted and partial writes, and gives up
    /// silently on an error: a closed or full stderr must not take the server down (Foundation's
    /// `FileHandle.write` would trap there).
    static func write(_ text: String, to fileDescriptor: Int32) {
        var text = text
        text.withUTF8 { buffer in
            guard let base = buffer.baseAddress else { return }
            var offset = 0
            while offset < buffer.count {
                let written = Glibc.write(fileDescriptor, base + offset, buffer.count - offset)
                if written > 0 {
                    offset += written
                } else if written < 0 && errno == EINTR {
                    continue
                } else {
                    return
                }
            }
        }
    }

    /// A log handing every finished line (with its trailing newline) to `sink`; calls are serialised.
    public init(sink: @escaping @Sendable (String) -> Void) {
        self.sink = sink
    }

    /// Writes the line for `entry`.
    public func record(_ entry: Entry) {
        write(Self.format(entry))
    }

    /// Writes a diagnostic line (for example a message from libmicrohttpd), prefixed with `nowsim: `.
    public func note(_ message: String) {
        write("nowsim: " + Self.sanitized(message, limit: Self.maxTargetLength))
    }

    private func write(_ line: String) {
        let terminated = line + "\n"
        lock.withLock { sink(terminated) }
    }

    /// The log line for `entry`, without the trailing newline.
    public static func format(_ entry: Entry) -> String {
        let tenths = max(0, Int((entry.duration * 10_000).rounded()))  // tenths of a millisecond
        var line = timestamp(entry.date)
        line += " "
        line += entry.remoteAddress.isEmpty ? "-" : entry.remoteAddress
        line += " "
        line += entry.method.isEmpty ? "-" : sanitized(entry.method, limit: 32)
        line += " "
        line += sanitized(redacted(entry.target), limit: maxTargetLength)
        line += " "
        line += entry.status == 0 ? "-" : String(entry.status)
        line += " \(entry.bytes)B \(tenths / 10).\(tenths % 10)ms"
        if !entry.completed { line += " incomplete" }
        return line
    }

    /// `date` as `yyyy-MM-ddTHH:mm:ssZ` (UTC), built without a formatter on the hot path.
    static func timestamp(_ date: Date) -> String {
        var seconds = time_t(date.timeIntervalSince1970.rounded(.down))
        var parts = tm()
        gmtime_r(&seconds, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : String(value) }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Query parameter names whose values never reach the log.
    static let sensitiveNames: Set<String> = ["password", "client_secret", "refresh_token", "access_token"]

    /// `target` with the values of credential-like query parameters replaced by `REDACTED`.
    static func redacted(_ target: String) -> String {
        guard let question = target.firstIndex(of: "?") else { return target }
        let lowered = target[question...].lowercased()
        guard lowered.contains("password") || lowered.contains("secret") || lowered.contains("_token") else {
            return target
        }
        var result = String(target[...question])
        var first = true
        for part in target[target.index(after: question)...].split(separator: "&", omittingEmptySubsequences: false) {
            if !first { result += "&" }
            first = false
            let name = part.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)[0]
            let decodedName = HTTPRequest.percentDecoded(name, plusAsSpace: true).lowercased()
            if sensitiveNames.contains(decodedName), part.contains("=") {
                result += name + "=REDACTED"
            } else {
                result += part
            }
        }
        return result
    }

    /// `text` with control characters shown as `\xHH`, so one request is always one line; cut at `limit`.
    static func sanitized(_ text: String, limit: Int) -> String {
        let needsWork = text.utf8.count > limit || text.utf8.contains(where: { $0 < 0x20 || $0 == 0x7F })
        guard needsWork else { return text }
        var result = ""
        var count = 0
        for scalar in text.unicodeScalars {
            if count >= limit {
                result += "…"
                break
            }
            if scalar.value < 0x20 || scalar.value == 0x7F {
                let hex = String(scalar.value, radix: 16, uppercase: true)
                result += "\\x" + (hex.count < 2 ? "0" + hex : hex)
                count += 4
            } else {
                result.unicodeScalars.append(scalar)
                count += 1
            }
        }
        return result
    }
}
