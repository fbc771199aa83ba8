/// The outcome of authenticating one request: the caller, or the response to send instead.
public enum AuthResult: Sendable {
    /// The request authenticated as this user.
    case user(APIUser)
    /// The request did not authenticate; send this response (a 401 `User Not Authenticated`).
    case failure(HTTPResponse)

    /// The authenticated user, or `nil` on failure.
    public var user: APIUser? {
        if case .user(let user) = self { return user }
        return nil
    }
}
