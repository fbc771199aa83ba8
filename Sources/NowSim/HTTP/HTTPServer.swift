import CMicroHTTPD
import Foundation

/// nowsim's HTTP/1.1 server: libmicrohttpd with a pool of worker threads, keep-alive, and HTTPS when
/// given a certificate.
///
/// Every request is read completely (headers and body) and handed to the `HTTPHandler` synchronously on
/// the libmicrohttpd worker thread that owns the connection; many workers call the handler at once. The
/// handler's response body is passed to libmicrohttpd without a second copy. One line per request goes
/// to the `RequestLog`.
///
/// ```swift
/// let server = HTTPServer(configuration: .init(port: 0), handler: app, log: RequestLog())
/// let port = try server.start()
/// try writePortFile(path, port: port)
/// ```
public final class HTTPServer: @unchecked Sendable {
    // @unchecked Sendable: the class owns the C `MHD_Daemon*`. `lifecycle` serialises start/stop (the only
    // code touching the daemon pointer and the TLS strings), `stateLock` guards the port for readers; the
    // libmicrohttpd threads only see the immutable, Sendable `ServerContext`.

    /// The configuration the server was created with.
    public let configuration: Configuration

    private let context: ServerContext
    private let lifecycle = NSLock()
    private let stateLock = NSLock()
    private var daemon: OpaquePointer?
    private var boundPort = 0
    private var tlsStrings: [UnsafeMutablePointer<CChar>] = []

    /// Creates a stopped server; nothing is bound until `start()`.
    ///
    /// - Parameters:
    ///   - configuration: address, threads, limits and optional TLS material.
    ///   - handler: answers requests; called concurrently from the worker threads.
    ///   - log: receives one line per request and libmicrohttpd's diagnostics; `nil` for silence.
    public init(configuration: Configuration, handler: any HTTPHandler, log: RequestLog?) {
        self.configuration = configuration
        self.context = ServerContext(
            handler: handler, log: log, maxRequestBodySize: configuration.maxRequestBodySize,
            isSecure: configuration.usesTLS, requiresClientCertificate: configuration.tlsClientCAPEM != nil)
    }

    deinit {
        stop()
    }

    /// The bound port while running (the real one when configured with port 0); 0 when stopped.
    public var port: Int {
        stateLock.withLock { boundPort }
    }

    /// Whether the server is listening.
    public var isServing: Bool {
        port != 0
    }

    /// Binds the address and starts the worker threads; returns the bound port.
    ///
    /// A stopped server can be started again (possibly getting a different ephemeral port).
    /// - Throws: `HTTPServerError`: `.invalidConfiguration`, `.tlsUnsupported`, `.alreadyRunning`, or
    ///   `.startFailed` with libmicrohttpd's reason (for example "Address already in use").
    @discardableResult
    public func start() throws -> Int {
        try lifecycle.withLock {
            guard daemon == nil else {
                throw HTTPServerError(.alreadyRunning, "the HTTP server is already listening on port \(port)")
            }
            try configuration.validate()
            var address = try ListenAddress(host: configuration.host, port: configuration.port)
            var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_ERROR_LOG.rawValue
            if configuration.threadPerConnection {
                flags |= MHD_USE_THREAD_PER_CONNECTION.rawValue | MHD_USE_POLL.rawValue
            } else {
                flags |= MHD_USE_EPOLL.rawValue
            }
            if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
            if let certificate = configuration.tlsCertificatePEM, let key = configuration.tlsKeyPEM {
                guard MHD_is_feature_supported(.FEATURE_TLS) == .YES else {
                    throw HTTPServerError(
                        .tlsUnsupported,
                        "HTTPS was requested but this libmicrohttpd was built without TLS support; "
                            + "install a libmicrohttpd built with GnuTLS or run without a certificate")
                }
                flags |= MHD_USE_TLS.rawValue
                tlsStrings = [strdup(certificate), strdup(key)]
                if let clientCA = configuration.tlsClientCAPEM { tlsStrings.append(strdup(clientCA)) }
            }
            ShutdownSignals.ignoreBrokenPipe()

            let contextPointer = Unmanaged.passUnretained(context).toOpaque()
            let notifyConnection: MHD_NotifyConnectionCallback = connectionNotifyCallback
            let uriLog: URILogCallback = uriLogCallback
            let notifyCompleted: MHD_RequestCompletedCallback = requestCompletedCallback
            let logger: MHD_LogCallback = loggerCallback
            var options: [MHD_OptionItem] = [
                // The logger must come first, or libmicrohttpd prints its complaints about it to stderr.
                MHD_OptionItem(option: .EXTERNAL_LOGGER, value: functionAddress(logger), ptr_value: contextPointer),
                MHD_OptionItem(
                    option: .CONNECTION_TIMEOUT, value: Int(configuration.connectionTimeout.components.seconds),
                    ptr_value: nil),
                MHD_OptionItem(
                    option: .CONNECTION_MEMORY_LIMIT, value: configuration.connectionMemoryLimit, ptr_value: nil),
                MHD_OptionItem(option: .LISTEN_BACKLOG_SIZE, value: configuration.listenBacklog, ptr_value: nil),
                MHD_OptionItem(option: .CONNECTION_LIMIT, value: configuration.maxConnections, ptr_value: nil),
                MHD_OptionItem(
                    option: .NOTIFY_CONNECTION, value: functionAddress(notifyConnection), ptr_value: contextPointer),
                MHD_OptionItem(option: .URI_LOG_CALLBACK, value: functionAddress(uriLog), ptr_value: contextPointer),
                MHD_OptionItem(
                    option: .NOTIFY_COMPLETED, value: functionAddress(notifyCompleted), ptr_value: contextPointer),
            ]
            if !configuration.threadPerConnection && configuration.threadPoolSize > 1 {
                options.append(
                    MHD_OptionItem(option: .THREAD_POOL_SIZE, value: configuration.threadPoolSize, ptr_value: nil))
            }
            if tlsStrings.count >= 2 {
                options.append(
                    MHD_OptionItem(option: .HTTPS_MEM_CERT, value: 0, ptr_value: UnsafeMutableRawPointer(tlsStrings[0]))
                )
                options.append(
                    MHD_OptionItem(option: .HTTPS_MEM_KEY, value: 0, ptr_value: UnsafeMutableRawPointer(tlsStrings[1])))
            }
            if tlsStrings.count == 3 {
                // With a trust list libmicrohttpd asks each client for a certificate; the access handler
                // verifies it (ServerContext.requiresClientCertificate).
                options.append(
                    MHD_OptionItem(
                        option: .HTTPS_MEM_TRUST, value: 0, ptr_value: UnsafeMutableRawPointer(tlsStrings[2])))
            }
            context.beginStartup()
            let started = withUnsafeMutableBytes(of: &address.storage) { storage -> OpaquePointer? in
                options.append(MHD_OptionItem(option: .SOCK_ADDR, value: 0, ptr_value: storage.baseAddress))
                options.append(MHD_OptionItem(option: .END, value: 0, ptr_value: nil))
                return options.withUnsafeMutableBufferPointer { items in
                    nowetl_mhd_start_daemon(
                        flags, UInt16(configuration.port), accessHandlerCallback, contextPointer, items.baseAddress)
                }
            }
            let startupMessages = context.endStartup()
            guard let started else {
                releaseTLSStrings()
                let scheme = configuration.usesTLS ? "https" : "http"
                let reason =
                    startupMessages.isEmpty ? "libmicrohttpd gave no reason" : startupMessages.joined(separator: "; ")
                throw HTTPServerError(
                    .startFailed,
                    "cannot serve \(scheme) on \(configuration.host) port \(configuration.port): \(reason)")
            }
            let port = Int(nowetl_mhd_bound_port(started))
            guard port != 0 else {
                MHD_stop_daemon(started)
                releaseTLSStrings()
                throw HTTPServerError(.startFailed, "libmicrohttpd started but did not report the bound port")
            }
            daemon = started
            stateLock.withLock { boundPort = port }
            return port
        }
    }

    /// Stops listening, closes all connections and joins the worker threads; does nothing when stopped.
    ///
    /// Waits for handlers that are running to return. Must not be called from inside a handler.
    public func stop() {
        lifecycle.withLock {
            guard let running = daemon else { return }
            MHD_stop_daemon(running)
            daemon = nil
            releaseTLSStrings()
            stateLock.withLock { boundPort = 0 }
        }
    }

    /// Lets the requests being answered finish (up to `grace`), then stops like ``stop()``.
    ///
    /// New connections are still accepted during the grace period, so call it after telling the
    /// handler to cut its waits short (nowsim's ``NowSimInstance/beginShutdown()``); it returns as soon
    /// as no answer is in progress. Must not be called from inside a handler.
    public func stop(grace: Duration) {
        let deadline = ContinuousClock.now + grace
        while context.answeringRequests > 0 && ContinuousClock.now < deadline {
            usleep(5_000)
        }
        stop()
    }

    /// Connection states currently alive (one per open connection); tests use it to detect leaks.
    var liveConnectionCount: Int {
        context.liveConnections
    }

    private func releaseTLSStrings() {
        for string in tlsStrings {
            // Overwrite the key before freeing it, so it does not linger in freed heap memory.
            memset(string, 0, strlen(string))
            free(string)
        }
        tlsStrings = []
    }
}

/// The signature of `MHD_OPTION_URI_LOG_CALLBACK`, for which microhttpd.h declares no typedef.
private typealias URILogCallback =
    @convention(c) (UnsafeMutableRawPointer?, UnsafePointer<CChar>?, OpaquePointer?) ->
    UnsafeMutableRawPointer?

/// The address of a C function pointer as the `intptr_t` an `MHD_OptionItem` wants for callbacks.
private func functionAddress<Function>(_ function: Function) -> Int {
    precondition(MemoryLayout<Function>.size == MemoryLayout<Int>.size, "not a C function pointer")
    return unsafeBitCast(function, to: Int.self)
}
