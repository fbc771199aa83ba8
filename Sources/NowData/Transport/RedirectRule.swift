import Foundation

/// Which HTTP redirects the default transport follows.
///
/// Requests carry the instance credentials in `Authorization`, and a followed redirect repeats the
/// request with that header. So only redirects that stay on the instance's host are
/// followed: same scheme and port, or an upgrade from `http` to `https`. Anything else — another host,
/// a downgrade to `http`, another port — is not followed; the 3xx answer comes back to the transport,
/// which reports it as ``NowDataError/badResponse(statusCode:context:)`` naming the target, so the
/// caller can fix ``NowServiceConfiguration/instanceURL`` instead of sending credentials elsewhere.
enum RedirectRule {
    /// Whether a redirect from `source` to `target` may be followed with the original headers.
    static func allows(from source: URL, to target: URL) -> Bool {
        guard let sourceScheme = source.scheme?.lowercased(), let targetScheme = target.scheme?.lowercased(),
            let sourceHost = source.host?.lowercased(), let targetHost = target.host?.lowercased(),
            sourceHost == targetHost
        else { return false }
        switch (sourceScheme, targetScheme) {
        case ("https", "https"), ("http", "http"):
            return effectivePort(source) == effectivePort(target)
        case ("http", "https"):
            return true
        default:
            return false
        }
    }

    /// The port of a URL, or the scheme's default.
    static func effectivePort(_ url: URL) -> Int? {
        if let port = url.port { return port }
        switch url.scheme?.lowercased() {
        case "https": return 443
        case "http": return 80
        default: return nil
        }
    }

    /// The message for a redirect that was not followed.
    static func refusalMessage(location: String) -> String {
        "redirect to \(location) not followed: NowData follows redirects only on the instance's host "
            + "(check instanceURL)"
    }
}
