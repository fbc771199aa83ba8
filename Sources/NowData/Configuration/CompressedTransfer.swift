import Foundation

/// Whether requests ask the instance for gzip-compressed answers (`Accept-Encoding: gzip`).
///
/// Compression trades CPU on both ends for bytes on the wire: Table API pages in JSON shrink five- to
/// tenfold, which decides the time over a WAN link of tens of Mbit/s, while on loopback the bytes
/// cost almost nothing and inflating them is pure overhead. Decodes from its raw values, the
/// pipeline file's spelling (`auto`, `always`, `never`).
public enum CompressedTransfer: String, Sendable, Hashable, CaseIterable, Decodable {
    /// Ask unless the instance is on loopback (``NowServiceConfiguration/isLoopbackHost(_:)``).
    case automatic = "auto"
    /// Always ask.
    case always
    /// Never ask.
    case never

    /// Whether a request to `host` asks for gzip.
    public func asksForGzip(host: String?) -> Bool {
        switch self {
        case .always: true
        case .never: false
        case .automatic: !(host.map(NowServiceConfiguration.isLoopbackHost) ?? false)
        }
    }
}
