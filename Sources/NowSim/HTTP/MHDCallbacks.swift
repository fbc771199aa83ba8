import CMicroHTTPD
import Foundation

// The C callbacks libmicrohttpd calls. Each receives the `ServerContext` as `cls` and finds the
// connection's `ConnectionState` in the socket context (retained for the connection's lifetime) or in
// the per-request `con_cls` slot (the same pointer, unretained).

/// `MHD_OPTION_NOTIFY_CONNECTION`: creates the connection's state on accept, releases it on close.
func connectionNotifyCallback(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    socketContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_ConnectionNotificationCode
) {
    guard let cls, let socketContext else { return }
    let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    switch code {
    case .CONNECTION_NOTIFY_STARTED:
        let address = ListenAddress.text(of: connection.flatMap { nowetl_mhd_client_address($0) })
        socketContext.pointee = Unmanaged.passRetained(ConnectionState(remoteAddress: address)).toOpaque()
        server.connectionOpened()
    case .CONNECTION_NOTIFY_CLOSED:
        if let pointer = socketContext.pointee {
            Unmanaged<ConnectionState>.fromOpaque(pointer).release()
            socketContext.pointee = nil
            server.connectionClosed()
        }
    @unknown default:
        break
    }
}

/// `MHD_OPTION_URI_LOG_CALLBACK`: sees the request target before libmicrohttpd strips the query, which
/// is the only place the raw query string is available. Its result becomes the request's `con_cls`.
func uriLogCallback(
    cls: UnsafeMutableRawPointer?, uri: UnsafePointer<CChar>?, connection: OpaquePointer?
) -> UnsafeMutableRawPointer? {
    guard let connection, let pointer = nowetl_mhd_socket_context(connection) else { return nil }
    let state = Unmanaged<ConnectionState>.fromOpaque(pointer).takeUnretainedValue()
    state.begin(rawTarget: uri.map { String(cString: $0) } ?? "")
    return pointer
}

/// The access handler: body accumulation and the call into the `HTTPHandler` (see `ServerContext.access`).
func accessHandlerCallback(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?, url: UnsafePointer<CChar>?,
    method: UnsafePointer<CChar>?, version: UnsafePointer<CChar>?, uploadData: UnsafePointer<CChar>?,
    uploadDataSize: UnsafeMutablePointer<Int>?, requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?
) -> MHD_Result {
    guard let cls, let connection, let uploadDataSize, let requestContext else { return .NO }
    if requestContext.pointee == nil {
        requestContext.pointee = nowetl_mhd_socket_context(connection)
    }
    guard let pointer = requestContext.pointee else { return .NO }
    let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<ConnectionState>.fromOpaque(pointer).takeUnretainedValue()
    return server.access(
        connection: connection, state: state, url: url, method: method, uploadData: uploadData,
        uploadDataSize: uploadDataSize)
}

/// `MHD_OPTION_NOTIFY_COMPLETED`: the request is finished; log it.
func requestCompletedCallback(
    cls: UnsafeMutableRawPointer?, connection: OpaquePointer?,
    requestContext: UnsafeMutablePointer<UnsafeMutableRawPointer?>?, code: MHD_RequestTerminationCode
) {
    guard let cls, let requestContext, let pointer = requestContext.pointee else { return }
    let server = Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue()
    let state = Unmanaged<ConnectionState>.fromOpaque(pointer).takeUnretainedValue()
    server.finish(state, completed: code == .REQUEST_TERMINATED_COMPLETED_OK)
    requestContext.pointee = nil
}

/// `MHD_OPTION_EXTERNAL_LOGGER`: libmicrohttpd's own messages (bind failures, TLS errors).
func loggerCallback(cls: UnsafeMutableRawPointer?, format: UnsafePointer<CChar>?, arguments: CVaListPointer?) {
    guard let cls, let format, let arguments else { return }
    var buffer = [CChar](repeating: 0, count: 1024)
    _ = vsnprintf(&buffer, buffer.count, format, arguments)
    let bytes = buffer.prefix(while: { $0 != 0 }).map { UInt8(bitPattern: $0) }
    let message = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
    Unmanaged<ServerContext>.fromOpaque(cls).takeUnretainedValue().report(message)
}

/// `MHD_KeyValueIterator` collecting request headers into a `[String: String]` with lower-cased names.
func headerCollector(
    cls: UnsafeMutableRawPointer?, kind: MHD_ValueKind, key: UnsafePointer<CChar>?, value: UnsafePointer<CChar>?
) -> MHD_Result {
    guard let cls, let key else { return .YES }
    let headers = cls.assumingMemoryBound(to: [String: String].self)
    headers.pointee[lowercasedASCII(key)] = value.map { String(cString: $0) } ?? ""
    return .YES
}

/// Frees a response body that `ServerContext.queue` allocated and handed to libmicrohttpd; called by
/// libmicrohttpd exactly once, when the response is destroyed.
func releaseResponseBody(_ cls: UnsafeMutableRawPointer?) {
    cls?.deallocate()
}

/// A C string with ASCII letters lower-cased, built in one pass (header names are ASCII).
private func lowercasedASCII(_ text: UnsafePointer<CChar>) -> String {
    let length = strlen(text)
    return text.withMemoryRebound(to: UInt8.self, capacity: length) { bytes in
        String(unsafeUninitializedCapacity: length) { output in
            for index in 0..<length {
                let byte = bytes[index]
                output[index] = byte &- UInt8(ascii: "A") < 26 ? byte | 0x20 : byte
            }
            return length
        }
    }
}
