import Foundation

extension SourceConfiguration {
    /// Every secret value of the source, for the logger to redact: the authentication's
    /// (``SourceAuthentication/secretValues``) and the password of a `proxy:` URL, as written and
    /// percent-decoded.
    var secretValues: [String] {
        var values = auth.secretValues
        if let proxy, let components = URLComponents(url: proxy.url, resolvingAgainstBaseURL: false) {
            if let encoded = components.percentEncodedPassword, !encoded.isEmpty { values.append(encoded) }
            if let password = components.password, !password.isEmpty { values.append(password) }
        }
        return values
    }
}
