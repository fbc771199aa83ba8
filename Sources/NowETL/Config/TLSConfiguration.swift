import Foundation

/// Extra TLS trust and a client identity for the instance: `source.tls`.
///
/// ```yaml
/// source:
///   tls:
///     ca_file: certs/corporate-ca.pem   # trusted besides the system store
///     client_cert: certs/etl.pem        # mutual TLS: certificate and key go together
///     client_key: certs/etl.key
/// ```
///
/// Relative paths are relative to the pipeline file's folder. Each file must be readable PEM when the
/// pipeline is loaded, so a missing file is exit 78 with the file, line and column, not a TLS error at
/// the first request.
public struct TLSConfiguration: Sendable, Hashable, Decodable {
    /// A PEM file of CA certificates trusted besides the system store.
    public var caFile: URL?
    /// The PEM client certificate (with ``clientKey``).
    public var clientCertificate: URL?
    /// The unencrypted PEM private key of ``clientCertificate``.
    public var clientKey: URL?

    /// Creates a TLS configuration.
    public init(caFile: URL? = nil, clientCertificate: URL? = nil, clientKey: URL? = nil) {
        self.caFile = caFile
        self.clientCertificate = clientCertificate
        self.clientKey = clientKey
    }

    private enum CodingKeys: String, CodingKey, CaseIterable {
        case caFile = "ca_file"
        case clientCertificate = "client_cert"
        case clientKey = "client_key"
    }

    /// The largest PEM file read for the check, in bytes.
    static let maximumFileSize = 1 << 20

    /// Decodes and checks `source.tls` (see the type's documentation).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        let context = PipelineLoadContext.of(decoder.userInfo)
        caFile = try Self.pemFile(.caFile, in: container, context: context)
        clientCertificate = try Self.pemFile(.clientCertificate, in: container, context: context)
        clientKey = try Self.pemFile(.clientKey, in: container, context: context)
        if (clientCertificate == nil) != (clientKey == nil) {
            let given: CodingKeys = clientCertificate == nil ? .clientKey : .clientCertificate
            let missing: CodingKeys = clientCertificate == nil ? .clientCertificate : .clientKey
            throw container.issue(
                given,
                "\(container.path(given)) needs \(container.path(missing)) too: a client certificate "
                    + "and its key go together", pointsAtKey: true)
        }
    }

    /// The file named by `key`, relative to the pipeline file's directory (``PipelineLoadContext``), made
    /// absolute and checked to be readable PEM.
    private static func pemFile(
        _ key: CodingKeys, in container: KeyedDecodingContainer<CodingKeys>, context: PipelineLoadContext?
    ) throws -> URL? {
        guard let text = try container.decodeIfPresent(String.self, forKey: key) else { return nil }
        guard !text.isEmpty else { throw container.issue(key, "\(container.path(key)) is empty") }
        let url = URL(fileURLWithPath: context?.resolve(text) ?? text)
        let bytes: [UInt8]
        do {
            bytes = try FileContents.bytes(ofFile: url.path, limit: maximumFileSize)
        } catch {
            throw container.issue(
                key, NowETLError.text(of: error, after: "cannot read '\(url.path)' named by \(container.path(key))"),
                kind: .unreadableFile)
        }
        guard String(decoding: bytes, as: UTF8.self).contains("-----BEGIN ") else {
            throw container.issue(key, "'\(url.path)' named by \(container.path(key)) is not PEM (no -----BEGIN line)")
        }
        return url
    }
}
