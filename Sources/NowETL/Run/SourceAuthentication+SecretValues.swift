extension SourceAuthentication {
    /// The secret values of these settings (passwords, client secret), for the logger to redact.
    var secretValues: [String] {
        switch self {
        case .basic(_, let password):
            return [password.value]
        case .oauth(let oauth):
            if case .password(_, let password) = oauth.grant { return [oauth.clientSecret.value, password.value] }
            return [oauth.clientSecret.value]
        }
    }
}
