import Foundation

/// The proxy requests to the instance go through: `source.proxy`.
///
/// ```yaml
/// source:
///   proxy: http://proxy.corp.example:3128   # or http://user:${PROXY_PASSWORD}@host:port
/// ```
///
/// Without it libcurl's own environment handling applies (`HTTPS_PROXY`/`https_proxy`, `NO_PROXY`).
/// The URL may carry credentials; descriptions and dumps never show them.
public struct ProxyConfiguration: Sendable, Hashable, Decodable, CustomStringConvertible, CustomReflectable {
    /// The proxy URL as given, credentials included (for the transport only).
    public var url: URL

    /// Wraps a proxy URL.
    public init(url: URL) {
        self.url = url
    }

    /// The schemes libcurl takes for a proxy.
    static let schemes: Set<String> = ["http", "https", "socks5", "socks5h"]

    /// Decodes and checks the URL; messages never repeat it (it may carry a password).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        let path = ConfigPath(codingPath: decoder.codingPath).description
        guard let components = URLComponents(string: text), let scheme = components.scheme?.lowercased(),
            Self.schemes.contains(scheme), let host = components.host, !host.isEmpty,
            (components.port ?? 1) >= 1, (components.port ?? 1) <= 65_535, let url = components.url
        else {
            throw ConfigIssue(
                .invalidValue, at: decoder.codingPath,
                "\(path) must be a proxy URL such as http://proxy.example:3128 (http, https, socks5 or socks5h; port 1…65535)"
            )
        }
        self.url = url
    }

    /// The proxy URL without user name and password.
    public var description: String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else { return "<proxy>" }
        if components.user != nil || components.password != nil {
            components.user = nil
            components.password = nil
        }
        return components.string ?? "<proxy>"
    }

    /// A mirror without credentials.
    public var customMirror: Mirror { Mirror(self, children: ["url": description]) }
}
