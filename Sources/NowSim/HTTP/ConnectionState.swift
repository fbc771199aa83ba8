import Foundation

/// What the server keeps for one TCP connection and the request currently on it.
///
/// Created when libmicrohttpd accepts the connection, released when it closes; every callback for a
/// connection runs on the one thread that owns it, so the fields need no lock.
final class ConnectionState {
    /// Where the current request is in its life.
    enum Phase {
        /// Between requests.
        case idle
        /// The request line arrived; the headers are being read.
        case requestLine
        /// Headers are in; the body (if any) is arriving.
        case receivingBody
        /// A response has been queued.
        case responded
    }

    /// The peer's IP address, read once per connection.
    let remoteAddress: String
    /// The request target exactly as sent (path plus raw query, percent-encoded).
    var rawTarget = ""
    /// The request method.
    var method = ""
    /// When the request line arrived (wall clock, for the log line).
    var startDate = Date()
    /// When the request line arrived (monotonic nanoseconds, for the duration).
    var startNanoseconds: UInt64 = 0
    /// The request's phase.
    var phase = Phase.idle
    /// The body received so far.
    var body: [UInt8] = []
    /// Set when the body outgrew the limit; the rest is discarded and the answer is 413.
    var bodyTooLarge = false
    /// The status of the queued response.
    var status = 0
    /// The body bytes of the queued response (0 for HEAD).
    var responseBytes = 0
    /// The handler was called for this request and its answer is not finished yet (see
    /// `ServerContext.answeringRequests`).
    var isAnswering = false

    init(remoteAddress: String) {
        self.remoteAddress = remoteAddress
    }

    /// Resets the per-request fields for a new request line.
    func begin(rawTarget: String) {
        self.rawTarget = rawTarget
        method = ""
        startDate = Date()
        startNanoseconds = DispatchTime.now().uptimeNanoseconds
        phase = .requestLine
        body = []
        bodyTooLarge = false
        status = 0
        responseBytes = 0
    }

    /// The raw query: everything after the first `?` of the target, without a fragment.
    var rawQuery: Substring {
        guard let question = rawTarget.firstIndex(of: "?") else { return "" }
        let query = rawTarget[rawTarget.index(after: question)...]
        if let hash = query.firstIndex(of: "#") { return query[..<hash] }
        return query
    }
}
