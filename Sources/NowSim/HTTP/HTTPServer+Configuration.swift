import Foundation

extension HTTPServer {
    /// Where the server listens, how many threads answer, and what it accepts.
    public struct Configuration: Sendable {
        /// The address to listen on: an IPv4 address (`127.0.0.1`, `0.0.0.0`), `::1`, `::` or `localhost`
        /// (which means `127.0.0.1`). Host names are not resolved.
        public var host: String
        /// The TCP port; 0 picks a free ephemeral port (read it from `start()` or `port`).
        public var port: Int
        /// Worker threads; each owns its connections and calls the handler for them, one request at a time.
        public var threadPoolSize: Int
        /// One thread per connection instead of a pool: a slow handler (injected latency) then stalls only
        /// its own connection. Costs a thread start per connection; `threadPoolSize` is ignored.
        public var threadPerConnection: Bool
        /// The server certificate (PEM text, leaf first, then intermediates); with `tlsKeyPEM` turns on HTTPS.
        public var tlsCertificatePEM: String?
        /// The unencrypted private key for `tlsCertificatePEM` (PEM text).
        public var tlsKeyPEM: String?
        /// CA certificates (PEM text) client certificates must chain to; when set, HTTPS asks every client
        /// for a certificate and answers a request without a verified one with 403 (mutual TLS).
        public var tlsClientCAPEM: String?
        /// An idle or stalled connection is closed after this long (whole seconds; zero means never).
        public var connectionTimeout: Duration
        /// Request bodies larger than this are refused with 413.
        public var maxRequestBodySize: Int
        /// libmicrohttpd's per-connection memory; it bounds the request line plus headers and the response
        /// headers. ServiceNow URLs and `Link` headers can be long, hence well above libmicrohttpd's 32 KiB.
        public var connectionMemoryLimit: Int
        /// The listen backlog.
        public var listenBacklog: Int
        /// Connections served at once (libmicrohttpd's `MHD_OPTION_CONNECTION_LIMIT`); libmicrohttpd
        /// closes a further connection as soon as it accepts it, so a flood of connections cannot
        /// exhaust the threads and file descriptors. With a thread pool it is shared out among the threads.
        public var maxConnections: Int

        /// The default of ``maxConnections``: far more than any client of a test opens, far fewer than
        /// the threads and descriptors a process has.
        public static let defaultMaxConnections = 256

        /// `max(4, 2 × cores)`: handlers mostly wait on SQLite, so more threads than cores pay off.
        public static var defaultThreadPoolSize: Int {
            max(4, 2 * ProcessInfo.processInfo.activeProcessorCount)
        }

        /// Creates a configuration; every value has a default suitable for tests (loopback, ephemeral port).
        public init(
            host: String = "127.0.0.1", port: Int = 0, threadPoolSize: Int = Configuration.defaultThreadPoolSize,
            threadPerConnection: Bool = false, tlsCertificatePEM: String? = nil, tlsKeyPEM: String? = nil,
            connectionTimeout: Duration = .seconds(60), maxRequestBodySize: Int = 64 << 20,
            connectionMemoryLimit: Int = 256 << 10, listenBacklog: Int = 1024,
            maxConnections: Int = Configuration.defaultMaxConnections
        ) {
            self.maxConnections = maxConnections
            self.host = host
            self.port = port
            self.threadPoolSize = threadPoolSize
            self.threadPerConnection = threadPerConnection
            self.tlsCertificatePEM = tlsCertificatePEM
            self.tlsKeyPEM = tlsKeyPEM
            self.connectionTimeout = connectionTimeout
            self.maxRequestBodySize = maxRequestBodySize
            self.connectionMemoryLimit = connectionMemoryLimit
            self.listenBacklog = listenBacklog
        }

        /// Whether the server will speak HTTPS.
        public var usesTLS: Bool { tlsCertificatePEM != nil || tlsKeyPEM != nil }

        /// Reads the client CA PEM file into `tlsClientCAPEM` (mutual TLS).
        ///
        /// - Throws: `HTTPServerError` (`.certificateUnreadable`) naming the file.
        public mutating func loadTLSClientCA(file: String) throws {
            tlsClientCAPEM = try Self.readPEM(file, what: "TLS client CA")
        }

        /// Reads the certificate and key PEM files into `tlsCertificatePEM` and `tlsKeyPEM`.
        ///
        /// - Throws: `HTTPServerError` (`.certificateUnreadable`) naming the file that could not be read.
        public mutating func loadTLS(certificateFile: String, keyFile: String) throws {
            tlsCertificatePEM = try Self.readPEM(certificateFile, what: "TLS certificate")
            tlsKeyPEM = try Self.readPEM(keyFile, what: "TLS private key")
        }

        private static func readPEM(_ path: String, what: String) throws -> String {
            do {
                let text = try String(contentsOfFile: path, encoding: .utf8)
                guard text.contains("-----BEGIN ") else {
                    throw HTTPServerError(
                        .certificateUnreadable, "\(what) file \(path) is not PEM (no -----BEGIN line)")
                }
                return text
            } catch let error as HTTPServerError {
                throw error
            } catch {
                throw HTTPServerError(
                    .certificateUnreadable, "cannot read \(what) file \(path): \(error.localizedDescription)")
            }
        }

        /// Checks ranges and pairs; `start()` calls it first.
        ///
        /// - Throws: `HTTPServerError` (`.invalidConfiguration`) naming the offending value.
        public func validate() throws {
            func invalid(_ message: String) -> HTTPServerError { HTTPServerError(.invalidConfiguration, message) }
            guard (0...65535).contains(port) else { throw invalid("port \(port) is outside 0…65535") }
            guard threadPoolSize >= 1 else { throw invalid("thread pool size \(threadPoolSize) must be at least 1") }
            guard maxRequestBodySize >= 0 else { throw invalid("max request body size must not be negative") }
            guard connectionMemoryLimit >= 8192 else {
                throw invalid("connection memory limit \(connectionMemoryLimit) is below 8192 bytes")
            }
            guard connectionTimeout >= .zero else { throw invalid("connection timeout must not be negative") }
            guard maxConnections >= 1 else { throw invalid("max connections \(maxConnections) must be at least 1") }
            if !threadPerConnection, maxConnections < threadPoolSize {
                throw invalid("max connections \(maxConnections) is below the thread pool size \(threadPoolSize)")
            }
            guard (1...65535).contains(listenBacklog) else {
                throw invalid("listen backlog \(listenBacklog) is out of range")
            }
            if (tlsCertificatePEM == nil) != (tlsKeyPEM == nil) {
                throw invalid(
                    "HTTPS needs both a certificate and a private key; only the \(tlsKeyPEM == nil ? "certificate" : "key") was given"
                )
            }
            if tlsClientCAPEM != nil, tlsCertificatePEM == nil {
                throw invalid("client certificates (mutual TLS) need HTTPS: a certificate and a private key")
            }
            _ = try ListenAddress(host: host, port: port)
        }
    }
}
