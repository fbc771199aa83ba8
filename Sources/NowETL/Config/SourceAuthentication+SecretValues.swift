import Foundation

extension SourceAuthentication {
    /// The secret values of these settings, for the logger to redact: passwords, the client secret,
    /// and for basic authentication the `Authorization: Basic` credential (`user:password` in base64)
    /// in case a header is echoed.
    var secretValues: [String] {
        switch self {
        case .basic(let user, let password):
            return [password.value, Data("\(user):\(password.value)".utf8).base64EncodedString()]
        case .oauth(let oauth):
            if case .password(_, let password) = oauth.grant { return [oauth.clientSecret.value, password.value] }
            return [oauth.clientSecret.value]
        }
    }
}
