import CGnuTLS
import CMicroHTTPD
import Foundation

/// The part of `HTTPServer` that libmicrohttpd's threads see: the handler, the log and the limits.
///
/// Passed to every C callback as its `cls` pointer (unretained: the server outlives its daemon).
/// Immutable apart from two lock-protected counters, hence safely `Sendable`.
final class ServerContext: @unchecked Sendable {
    // @unchecked: `diagnostics` and `connections` are only touched under `lock`; the rest is immutable.
    let handler: any HTTPHandler
    let log: RequestLog?
    let maxRequestBodySize: Int
    let isSecure: Bool
    /// Whether every request must come with a client certificate that verifies (mutual TLS).
    let requiresClientCertificate: Bool

    private let lock = NSLock()
    private var startupMessages: [String]?
    private var connections = 0
    private var answering = 0

    init(
        handler: any HTTPHandler, log: RequestLog?, maxRequestBodySize: Int, isSecure: Bool,
        requiresClientCertificate: Bool = false
    ) {
        self.handler = handler
        self.log = log
        self.maxRequestBodySize = maxRequestBodySize
        self.isSecure = isSecure
        self.requiresClientCertificate = requiresClientCertificate
    }

    // MARK: Diagnostics

    /// From now on libmicrohttpd's messages are collected for the start error instead of logged.
    func beginStartup() {
        lock.withLock { startupMessages = [] }
    }

    /// Ends collection and returns what libmicrohttpd said while starting.
    func endStartup() -> [String] {
        lock.withLock {
            defer { startupMessages = nil }
            return startupMessages ?? []
        }
    }

    /// A message from libmicrohttpd: collected during start, logged afterwards.
    func report(_ message: String) {
        let collected: Bool = lock.withLock {
            guard startupMessages != nil else { return false }
            startupMessages!.append(message)
            return true
        }
        if !collected { log?.note("microhttpd: " + message) }
    }

    var liveConnections: Int {
        lock.withLock { connections }
    }

    func connectionOpened() {
        lock.withLock { connections += 1 }
    }

    func connectionClosed() {
        lock.withLock { connections -= 1 }
    }

    /// Requests whose handler has been called and whose answer is not finished (sent or dropped).
    var answeringRequests: Int {
        lock.withLock { answering }
    }

    // MARK: Requests

    /// One call of libmicrohttpd's access handler for the request on `connection`.
    ///
    /// libmicrohttpd calls it once when the headers are in, once per chunk of body, and once more when
    /// the request is complete; the response is queued on that last call.
    func access(
        connection: OpaquePointer, state: ConnectionState, url: UnsafePointer<CChar>?,
        method: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?, uploadDataSize: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        switch state.phase {
        case .idle, .requestLine:
            state.phase = .receivingBody
            state.method = method.map { String(cString: $0) } ?? ""
            if requiresClientCertificate, !Self.peerCertificateVerifies(on: connection) {
                state.phase = .responded
                return queue(clientCertificateResponse(), on: connection, state: state)
            }
            if let text = MHD_lookup_connection_value(connection, .HEADER_KIND, "Content-Length"),
                let length = Int(String(cString: text))
            {
                if length > maxRequestBodySize {
                    // Answering now makes libmicrohttpd skip "100 Continue" and close after the response.
                    state.bodyTooLarge = true
                    state.phase = .responded
                    return queue(tooLargeResponse(length), on: connection, state: state)
                }
                state.body.reserveCapacity(length)
            }
            return .YES
        case .receivingBody:
            let size = uploadDataSize.pointee
            if size > 0 {
                if !state.bodyTooLarge, let uploadData {
                    if state.body.count + size > maxRequestBodySize {
                        state.bodyTooLarge = true  // chunked upload over the limit: drain, then answer 413
                        state.body = []
                    } else {
                        uploadData.withMemoryRebound(to: UInt8.self, capacity: size) {
                            state.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: size))
                        }
                    }
                }
                uploadDataSize.pointee = 0
                return .YES
            }
            state.phase = .responded
            if state.bodyTooLarge {
                return queue(tooLargeResponse(nil), on: connection, state: state)
            }
            let request = makeRequest(connection: connection, state: state, url: url)
            state.isAnswering = true
            lock.withLock { answering += 1 }
            let response = handler.handle(request)
            return queue(response, on: connection, state: state)
        case .responded:
            return .YES
        }
    }

    /// The request is over (answered, failed or abandoned): log it and drop its memory.
    func finish(_ state: ConnectionState, completed: Bool) {
        if state.isAnswering {
            state.isAnswering = false
            lock.withLock { answering -= 1 }
        }
        guard state.phase != .idle else { return }
        if let log {
            let elapsed = DispatchTime.now().uptimeNanoseconds &- state.startNanoseconds
            log.record(
                RequestLog.Entry(
                    date: state.startDate, remoteAddress: state.remoteAddress, method: state.method,
                    target: state.rawTarget, status: state.status, bytes: state.responseBytes,
                    duration: Double(elapsed) / 1e9, completed: completed))
        }
        state.phase = .idle
        state.body = []
    }

    private func makeRequest(connection: OpaquePointer, state: ConnectionState, url: UnsafePointer<CChar>?)
        -> HTTPRequest
    {
        var headers: [String: String] = [:]
        withUnsafeMutablePointer(to: &headers) { pointer in
            _ = MHD_get_connection_values(connection, .HEADER_KIND, headerCollector, pointer)
        }
        var body: [UInt8] = []
        swap(&body, &state.body)
        let rawQuery = state.rawQuery
        return HTTPRequest(
            method: state.method, path: url.map { String(cString: $0) } ?? "/", rawQuery: String(rawQuery),
            queryItems: rawQuery.isEmpty ? [] : HTTPRequest.decodeQuery(rawQuery), headers: headers, body: body,
            remoteAddress: state.remoteAddress, isSecure: isSecure)
    }

    /// Whether the TLS peer of `connection` presented a certificate that chains to the client CA
    /// (libmicrohttpd asked for one; GnuTLS verifies it against the trust list the server was given).
    private static func peerCertificateVerifies(on connection: OpaquePointer) -> Bool {
        guard let session = nowetl_mhd_tls_session(connection) else { return false }
        var status: UInt32 = 0
        guard gnutls_certificate_verify_peers2(OpaquePointer(session), &status) == GNUTLS_E_SUCCESS else {
            return false  // no certificate sent (GNUTLS_E_NO_CERTIFICATE_FOUND) or verification failed
        }
        return status == 0
    }

    private func clientCertificateResponse() -> HTTPResponse {
        let json =
            #"{"error":{"message":"Client certificate required","detail":"this instance requires a TLS "#
            + #"client certificate issued by its client CA"},"status":"failure"}"#
        return HTTPResponse(
            status: 403, headers: [("Content-Type", "application/json;charset=UTF-8")], body: Array(json.utf8))
    }

    private func tooLargeResponse(_ declaredLength: Int?) -> HTTPResponse {
        let size = declaredLength.map { "\($0) bytes" } ?? "the request body"
        let json =
            #"{"error":{"message":"Request entity too large","detail":"\#(size) exceeds the limit of "#
            + #"\#(maxRequestBodySize) bytes"},"status":"failure"}"#
        return HTTPResponse(
            status: 413, headers: [("Content-Type", "application/json;charset=UTF-8")], body: Array(json.utf8))
    }

    /// Hands `response` to libmicrohttpd, which owns a copy of the body from then on.
    ///
    /// libmicrohttpd sends the body after this returns, from its own threads, so it must get memory
    /// whose lifetime does not depend on Swift: an array's storage address is only valid inside
    /// `withUnsafeBytes`. The body is therefore copied into a buffer allocated here, and ownership of
    /// that buffer passes to the response: libmicrohttpd calls `releaseResponseBody` with it once the
    /// response is destroyed (sent, or dropped with its connection), and that callback is the only
    /// place that frees it. If no response can be created, the buffer is freed here instead.
    private func queue(_ response: HTTPResponse, on connection: OpaquePointer, state: ConnectionState) -> MHD_Result {
        let status = (200...999).contains(response.status) ? response.status : 500
        // 204 and 304 have no body by definition; a handler's stray bytes must not corrupt the connection.
        var count = status == 204 || status == 304 ? 0 : response.body.count
        let mhdResponse: OpaquePointer?
        if let stream = response.stream, status != 204, status != 304 {
            // Produced as it is sent (an attachment's file): its length is not known up front.
            let source = Unmanaged.passRetained(StreamedBody(stream)).toOpaque()
            mhdResponse = MHD_create_response_from_callback(
                UInt64.max, 64 << 10, readStreamedBody, source, releaseStreamedBody)
            if mhdResponse == nil { Unmanaged<StreamedBody>.fromOpaque(source).release() }
            count = 0
        } else if count > 0, let padding = response.padding, padding.count > 0 {
            // Produced block by block: the padding may be far larger than nowsim should allocate.
            let padded = PaddedBody(body: response.body, padding: padding)
            count = padded.totalCount
            let source = Unmanaged.passRetained(padded).toOpaque()
            mhdResponse = MHD_create_response_from_callback(
                UInt64(count), 64 << 10, readPaddedBody, source, releasePaddedBody)
            if mhdResponse == nil { Unmanaged<PaddedBody>.fromOpaque(source).release() }
        } else if count == 0 {
            mhdResponse = MHD_create_response_from_buffer(0, nil, .RESPMEM_PERSISTENT)
        } else {
            let buffer = UnsafeMutableRawBufferPointer.allocate(byteCount: count, alignment: 1)
            buffer.copyBytes(from: response.body)
            mhdResponse = MHD_create_response_from_buffer_with_free_callback_cls(
                count, buffer.baseAddress, releaseResponseBody, buffer.baseAddress)
            if mhdResponse == nil { buffer.deallocate() }
        }
        guard let mhdResponse else { return .NO }
        defer { MHD_destroy_response(mhdResponse) }
        for (name, value) in response.headers where !Self.isManagedByServer(name) {
            if MHD_add_response_header(mhdResponse, name, value) != .YES {
                log?.note(
                    "dropped response header \(name) (invalid name or value) for \(state.method) \(state.rawTarget)")
            }
        }
        state.status = status
        state.responseBytes = state.method == "HEAD" ? 0 : count
        return MHD_queue_response(connection, UInt32(status), mhdResponse)
    }

    /// Headers libmicrohttpd computes itself from the body and the protocol.
    private static func isManagedByServer(_ name: String) -> Bool {
        let utf8 = name.utf8
        guard utf8.count == 14 || utf8.count == 17 else { return false }
        let lowered = name.lowercased()
        return lowered == "content-length" || lowered == "transfer-encoding"
    }
}
