import Foundation

/// The per-service transfer options every ``CurlExchange`` of a ``CurlCoreService`` gets: trust,
/// client identity, proxy and the total timeout, as the file paths and URLs libcurl takes.
struct CurlTransferSettings: Sendable {
    /// A PEM file of extra CAs (`CURLOPT_CAINFO`); the system directory is added as `CURLOPT_CAPATH`.
    var certificateAuthorities: String?
    /// The PEM client certificate (`CURLOPT_SSLCERT`).
    var clientCertificate: String?
    /// The PEM client key (`CURLOPT_SSLKEY`).
    var clientPrivateKey: String?
    /// The proxy URL with any credentials (`CURLOPT_PROXY`); `nil` leaves libcurl's environment handling.
    var proxy: String?
    /// Seconds one request may take in all (`CURLOPT_TIMEOUT_MS`); not finite or not positive: no limit.
    var totalTimeout: TimeInterval
    /// The most bytes of one decoded response body (``NowServiceConfiguration/maximumResponseBytes``).
    var maximumResponseBytes: Int
    /// When requests send `Accept-Encoding: gzip` (``NowServiceConfiguration/compressedTransfer``).
    var compressedTransfer: CompressedTransfer

    init(configuration: NowServiceConfiguration) {
        maximumResponseBytes = max(1, configuration.maximumResponseBytes)
        certificateAuthorities = configuration.additionalCertificateAuthorities?.path
        clientCertificate = configuration.clientCertificate?.path
        clientPrivateKey = configuration.clientPrivateKey?.path
        proxy = configuration.proxy?.absoluteString
        totalTimeout = configuration.totalRequestTimeout
        compressedTransfer = configuration.compressedTransfer
    }

    /// The system's hashed certificate directory, trusted next to extra CAs: replacing libcurl's default
    /// bundle with the extra PEM would otherwise drop the system store.
    static let systemCertificateDirectory: String? = {
        for candidate in ["/etc/ssl/certs", "/etc/pki/tls/certs"] {
            var isDirectory: ObjCBool = false
            if FileManager.default.fileExists(atPath: candidate, isDirectory: &isDirectory), isDirectory.boolValue {
                return candidate
            }
        }
        return nil
    }()
}
