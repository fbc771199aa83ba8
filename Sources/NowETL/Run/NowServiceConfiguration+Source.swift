import NowData

extension NowServiceConfiguration {
    /// Takes the TLS and proxy settings of `source` (`source.tls`, `source.proxy`); without a proxy
    /// libcurl's `HTTPS_PROXY`/`NO_PROXY` handling stays in force.
    mutating func applyTransportSettings(of source: SourceConfiguration) {
        additionalCertificateAuthorities = source.tls?.caFile
        clientCertificate = source.tls?.clientCertificate
        clientPrivateKey = source.tls?.clientKey
        proxy = source.proxy?.url
    }
}
