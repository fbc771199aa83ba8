import CCurl
import Foundation
import Synchronization

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One HTTP exchange on libcurl: the easy handle with its options, header list and error buffer, and
/// what arrived (status line, headers, body).
///
/// It is built on the caller's task and then handed to the ``CurlMultiLoop`` thread, which alone
/// touches the handle and the buffers from then on: libcurl calls the write and header callbacks on
/// that thread, inside `curl_multi_perform`. The hand-over goes through the loop's lock, so the
/// caller's writes happen before the loop's reads; the caller reads nothing back but the outcome the
/// loop passes to its continuation, after the handle left the multi handle. Only
/// ``cancelRequested`` is shared, and it is atomic. That is why `@unchecked Sendable` is safe here.
final class CurlExchange: @unchecked Sendable {
    /// The easy handle (`CURL *`), owned here and freed in `deinit`.
    let handle: UnsafeMutableRawPointer
    /// The request URL, for the response and for messages.
    let url: URL
    /// Set when the caller's task is cancelled; the loop then removes the handle.
    let cancelRequested = Atomic<Bool>(false)

    private var headerList: UnsafeMutablePointer<curl_slist>?
    private let errorBuffer: UnsafeMutablePointer<CChar>
    private var body = Data()
    private var headers: [(String, String)] = []
    /// The current answer's `Content-Length` when it is the body's length as received: no
    /// `Content-Encoding` (a gzip answer's length is of its compressed bytes), within the limit.
    private var announcedLength: Int?
    /// Whether the current answer named a `Content-Encoding`.
    private var announcedEncoding = false
    /// The most body bytes reserved on an answer's `Content-Length` before they arrive.
    static let largestReservation = 32 << 20
    /// The most body bytes kept (decoded); more ends the transfer with ``refusal``.
    private let maximumBodyBytes: Int
    /// Why the loop thread ended the transfer from a callback (too large, an encoding not asked for).
    private var refusal: URLError?
    /// Where a 2xx answer's body goes instead of ``body`` (``ResponseBodyStream``).
    private let stream: (any ResponseBodyStream)?
    /// Whether the current answer's body goes to ``stream``: its status line said 2xx.
    private var streaming = false
    /// What the stream threw, which ends the transfer and is its outcome (the caller's own error back).
    private var streamError: (any Error)?

    /// Creates the easy handle for `request` with `settings`; a 2xx answer's body goes to `stream`
    /// when one is given.
    /// - Throws: `URLError` when libcurl cannot create the handle or refuses an option.
    init(request: URLRequest, settings: CurlTransferSettings, stream: (any ResponseBodyStream)? = nil) throws {
        guard let url = request.url else { throw URLError(.badURL) }
        guard let handle = curl_easy_init() else { throw URLError(.unknown) }
        self.handle = handle
        self.url = url
        self.stream = stream
        maximumBodyBytes = settings.maximumResponseBytes
        errorBuffer = .allocate(capacity: Int(CURL_ERROR_SIZE) + 1)
        errorBuffer.initialize(repeating: 0, count: Int(CURL_ERROR_SIZE) + 1)
        try configure(request: request, settings: settings)
    }

    deinit {
        curl_easy_cleanup(handle)
        curl_slist_free_all(headerList)
        errorBuffer.deallocate()
    }

    // MARK: - Options

    private func configure(request: URLRequest, settings: CurlTransferSettings) throws {
        let context = Unmanaged.passUnretained(self).toOpaque()
        try set(CURLOPT_URL, url.absoluteString)
        try set(CURLOPT_ERRORBUFFER, pointer: UnsafeRawPointer(errorBuffer))
        try set(CURLOPT_PROTOCOLS_STR, "http,https")
        try set(CURLOPT_NOSIGNAL, 1)
        // Every answer — 3xx and 401 included — comes back as it is; the service decides.
        try set(CURLOPT_FOLLOWLOCATION, 0)
        try set(CURLOPT_HTTP_VERSION, Int(CURL_HTTP_VERSION_2TLS))
        // Instances compress with gzip; no other encoding is asked for, and an answer in one is refused
        // in the header callback before libcurl decodes any of it. libcurl decodes only while this option
        // is set, so it stays set even when the request must not ask (below): a gzip answer nobody asked
        // for is then still decoded within the size limit instead of reaching the decoder as raw bytes.
        try set(CURLOPT_ACCEPT_ENCODING, "gzip")
        try set(CURLOPT_TCP_KEEPALIVE, 1)
        try set(CURLOPT_SUPPRESS_CONNECT_HEADERS, 1)
        try check(nowetl_curl_easy_setopt_data_callback(handle, CURLOPT_WRITEFUNCTION, curlWriteBody))
        try set(CURLOPT_WRITEDATA, pointer: UnsafeRawPointer(context))
        try check(nowetl_curl_easy_setopt_data_callback(handle, CURLOPT_HEADERFUNCTION, curlWriteHeader))
        try set(CURLOPT_HEADERDATA, pointer: UnsafeRawPointer(context))

        // No progress for `noProgress` seconds (connecting, waiting, between bytes) ends the request,
        // and so does the total limit.
        let noProgress = CurlCoreService.wholeSeconds(request.timeoutInterval)
        try set(CURLOPT_CONNECTTIMEOUT, Int(noProgress))
        try set(CURLOPT_LOW_SPEED_LIMIT, 1)
        try set(CURLOPT_LOW_SPEED_TIME, Int(noProgress))
        if settings.totalTimeout.isFinite, settings.totalTimeout > 0 {
            try set(CURLOPT_TIMEOUT_MS, Int((settings.totalTimeout * 1000).rounded(.up)))
        }

        if let authorities = settings.certificateAuthorities {
            try set(CURLOPT_CAINFO, authorities)
            try set(CURLOPT_PROXY_CAINFO, authorities)
            if let directory = CurlTransferSettings.systemCertificateDirectory {
                try set(CURLOPT_CAPATH, directory)
                try set(CURLOPT_PROXY_CAPATH, directory)
            }
        }
        if let certificate = settings.clientCertificate {
            try set(CURLOPT_SSLCERT, certificate)
            try set(CURLOPT_SSLCERTTYPE, "PEM")
        }
        if let key = settings.clientPrivateKey {
            try set(CURLOPT_SSLKEY, key)
            try set(CURLOPT_SSLKEYTYPE, "PEM")
        }
        if let proxy = settings.proxy { try set(CURLOPT_PROXY, proxy) }
        // Plain http is allowed to loopback only because it stays on this machine: never hand it (and its
        // Authorization header) to a proxy, whether `proxy` or libcurl's `http_proxy` named it.
        if url.scheme?.lowercased() == "http", let host = url.host, NowServiceConfiguration.isLoopbackHost(host) {
            try set(CURLOPT_NOPROXY, "*")
        }

        try configureMethod(request)
        for (name, value) in request.allHTTPHeaderFields ?? [:] {
            headerList = curl_slist_append(headerList, "\(name): \(value)")
        }
        if !settings.compressedTransfer.asksForGzip(host: url.host) {
            // A header with no value removes the one libcurl would send for CURLOPT_ACCEPT_ENCODING.
            headerList = curl_slist_append(headerList, "Accept-Encoding:")
        }
        // Without this libcurl waits for `100 Continue` before sending a larger body.
        headerList = curl_slist_append(headerList, "Expect:")
        try set(CURLOPT_HTTPHEADER, pointer: UnsafeRawPointer(headerList))
    }

    private func configureMethod(_ request: URLRequest) throws {
        let method = (request.httpMethod ?? "GET").uppercased()
        let body = request.httpBody
        switch method {
        case "GET" where body == nil:
            try set(CURLOPT_HTTPGET, 1)
        case "HEAD":
            try set(CURLOPT_NOBODY, 1)
        default:
            if let body {
                try set(CURLOPT_POSTFIELDSIZE_LARGE, offset: curl_off_t(body.count))
                try body.withUnsafeBytes { bytes in
                    // COPYPOSTFIELDS copies the bytes, so the buffer need not outlive this call. An empty
                    // body has no base address; any valid pointer does for zero bytes.
                    try set(CURLOPT_COPYPOSTFIELDS, pointer: bytes.baseAddress ?? UnsafeRawPointer(errorBuffer))
                }
            }
            if method != "POST" || body == nil { try set(CURLOPT_CUSTOMREQUEST, method) }
        }
    }

    private func set(_ option: CURLoption, _ value: Int) throws {
        try check(nowetl_curl_easy_setopt_long(handle, option, value))
    }

    private func set(_ option: CURLoption, offset value: curl_off_t) throws {
        try check(nowetl_curl_easy_setopt_offset(handle, option, value))
    }

    /// A string option; libcurl copies it.
    private func set(_ option: CURLoption, _ value: String) throws {
        try value.withCString { try check(nowetl_curl_easy_setopt_pointer(handle, option, $0)) }
    }

    private func set(_ option: CURLoption, pointer value: UnsafeRawPointer?) throws {
        try check(nowetl_curl_easy_setopt_pointer(handle, option, value))
    }

    private func check(_ code: CURLcode) throws {
        guard code == CURLE_OK else { throw CurlFailure.urlError(code, message: nil, url: url) }
    }

    // MARK: - Loop thread

    /// Appends body bytes (write callback, loop thread); returns `false` (which ends the transfer) when
    /// they would take the body past its limit.
    fileprivate func receivedBody(_ bytes: UnsafeRawBufferPointer) -> Bool {
        if streaming, let stream {
            do {
                try stream.append(bytes)
                return true
            } catch {
                streamError = error
                return false
            }
        }
        guard bytes.count <= maximumBodyBytes - body.count else {
            refuse(.dataLengthExceedsMaximum, "the answer is larger than the \(maximumBodyBytes)-byte limit")
            return false
        }
        if body.isEmpty, !announcedEncoding, let length = announcedLength, length > bytes.count {
            // One allocation of the announced size instead of a doubling series of copies: a page body
            // is a few megabytes, and each doubling left a freed buffer behind in the allocator. The
            // length is the instance's word: at most `largestReservation` is taken on it (a body that is
            // longer, or a length that lies, simply grows as before).
            body.reserveCapacity(min(length, Self.largestReservation))
        }
        body.append(contentsOf: bytes)
        return true
    }

    /// Records one header line (header callback, loop thread); returns `false` (which ends the transfer)
    /// for an answer that announces a body over the limit or comes in an encoding not asked for. A
    /// status line starts a new answer: what came before belonged to an interim `100 Continue`.
    fileprivate func receivedHeader(_ bytes: UnsafeRawBufferPointer) -> Bool {
        let line = String(decoding: bytes, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
        if line.hasPrefix("HTTP/") {
            headers.removeAll()
            announcedLength = nil
            announcedEncoding = false
            // `HTTP/1.1 200 OK`, `HTTP/2 206`: the second word is the status.
            let words = line.split(separator: " ", maxSplits: 2)
            let status = words.count > 1 ? Int(words[1]) ?? 0 : 0
            streaming = stream != nil && (200..<300).contains(status)
            if streaming, let stream {
                do {
                    try stream.restart()
                } catch {
                    streamError = error
                    return false
                }
            }
            return true
        }
        guard let colon = line.firstIndex(of: ":") else { return true }
        let name = String(line[..<colon]).trimmingCharacters(in: .whitespaces)
        let value = String(line[line.index(after: colon)...]).trimmingCharacters(in: .whitespaces)
        switch name.lowercased() {
        case "content-length":
            // A streamed body is bounded by its stream, not by memory.
            if !streaming, let length = Int(value), length > maximumBodyBytes {
                refuse(
                    .dataLengthExceedsMaximum,
                    "the answer announces \(length) bytes, over the \(maximumBodyBytes)-byte limit")
                return false
            }
            if let length = Int(value), length >= 0 { announcedLength = length }
        case "content-encoding":
            announcedEncoding = true
            let encodings = value.lowercased().split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) }
            if let other = encodings.first(where: { $0 != "gzip" && $0 != "identity" && !$0.isEmpty }) {
                refuse(
                    .cannotDecodeContentData,
                    "the answer is in content encoding '\(PrintableText.escaped(String(other.prefix(40))))', "
                        + "which was not asked for (only gzip is)")
                return false
            }
        default:
            break
        }
        headers.append((name, value))
        return true
    }

    /// Ends the transfer from a callback for `reason`; the outcome is then this error, not libcurl's.
    private func refuse(_ code: URLError.Code, _ reason: String) {
        guard refusal == nil else { return }
        refusal = CurlFailure.urlError(code, reason, url: url)
    }

    /// The outcome once libcurl finished the transfer with `code` (loop thread).
    func outcome(_ code: CURLcode) -> Result<(Data, URLResponse), any Error> {
        if let streamError { return .failure(streamError) }
        if let refusal {
            body = Data()
            return .failure(refusal)
        }
        guard code == CURLE_OK else {
            let message = errorBuffer.pointee == 0 ? nil : String(cString: errorBuffer)
            return .failure(CurlFailure.urlError(code, message: message, url: url))
        }
        var status = 0
        _ = nowetl_curl_easy_getinfo_long(handle, CURLINFO_RESPONSE_CODE, &status)
        var version = 0
        _ = nowetl_curl_easy_getinfo_long(handle, CURLINFO_HTTP_VERSION, &version)
        var fields: [String: String] = [:]
        var spelling: [String: String] = [:]
        for (name, value) in headers {
            let key = spelling[name.lowercased()] ?? name
            spelling[name.lowercased()] = key
            fields[key] = fields[key].map { $0 + ", " + value } ?? value
        }
        let httpVersion = version == Int(CURL_HTTP_VERSION_2_0) ? "HTTP/2" : "HTTP/1.1"
        guard status > 0,
            let response = HTTPURLResponse(url: url, statusCode: status, httpVersion: httpVersion, headerFields: fields)
        else { return .failure(URLError(.badServerResponse)) }
        return .success((body, response))
    }
}

/// `CURLOPT_WRITEFUNCTION`: a piece of the body.
private let curlWriteBody: nowetl_curl_data_callback = { data, size, count, context in
    deliver(data, size * count, context, to: CurlExchange.receivedBody)
}

/// `CURLOPT_HEADERFUNCTION`: one header line per call.
private let curlWriteHeader: nowetl_curl_data_callback = { data, size, count, context in
    deliver(data, size * count, context, to: CurlExchange.receivedHeader)
}

/// Hands the `length` bytes at `data` of a libcurl data callback to `receive` of the exchange in `context`
/// (the unretained ``CurlExchange`` the loop keeps alive), and answers libcurl.
///
/// Returning fewer bytes than given ends the transfer (CURLE_WRITE_ERROR): what `receive` refuses.
private func deliver(
    _ data: UnsafeMutablePointer<CChar>?, _ length: Int, _ context: UnsafeMutableRawPointer?,
    to receive: (CurlExchange) -> (UnsafeRawBufferPointer) -> Bool
) -> Int {
    guard let data, let context else { return length }
    let exchange = Unmanaged<CurlExchange>.fromOpaque(context).takeUnretainedValue()
    return receive(exchange)(UnsafeRawBufferPointer(start: data, count: length)) ? length : 0
}
