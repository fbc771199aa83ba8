/// `POST /oauth_token.do`: issues OAuth 2 tokens for the `password`, `refresh_token` and
/// `client_credentials` grants (ref §6.2).
///
/// The body must be `application/x-www-form-urlencoded` (a missing `Content-Type` is read as form
/// data too). Success is 200 with `access_token`, `refresh_token` (password grant only), `scope`
/// (`useraccount`), `token_type` (`Bearer`) and `expires_in`. Errors are OAuth-style JSON, not the
/// Table API envelope:
///
/// | case | status | body |
/// |---|---|---|
/// | wrong client, secret, user, password or refresh token | 401 | `{"error_description":"access_denied","error":"server_error"}` (ref §1.4) |
/// | missing or repeated parameter, non-form body | 400 | `{"error_description":"…","error":"invalid_request"}` |
/// | unknown `grant_type` | 400 | `{"error_description":"…","error":"unsupported_grant_type"}` |
/// | method other than POST | 405 | `{"error_description":"…","error":"invalid_request"}` + `Allow: POST` |
///
/// The 400 and 405 bodies are our choice (RFC 6749 §5.2 codes); the platform's answers to these
/// are undocumented.
public struct OAuthTokenEndpoint: HTTPHandler {
    /// The authenticator that checks credentials and keeps the issued tokens.
    public let authenticator: Authenticator

    /// Creates the endpoint over `authenticator`.
    public init(authenticator: Authenticator) {
        self.authenticator = authenticator
    }

    /// The request path the router should send here.
    public static let path = "/oauth_token.do"

    /// Answers one token request; see the type's documentation for the responses.
    public func handle(_ request: HTTPRequest) -> HTTPResponse {
        guard request.method == "POST" else {
            return Self.oauthError(
                status: 405, error: "invalid_request",
                description: "\(request.method) is not supported; use POST",
                extraHeaders: [(name: "Allow", value: "POST")])
        }
        if let contentType = request.header("content-type"),
            Self.mediaType(contentType) != "application/x-www-form-urlencoded"
        {
            return Self.invalidRequest("the request body must be application/x-www-form-urlencoded")
        }
        let pairs = FormEncoding.decode(request.body)
        var parameters: [String: String] = [:]
        for (name, value) in pairs {
            guard parameters.updateValue(value, forKey: name) == nil else {
                return Self.invalidRequest("parameter \(name) is repeated")
            }
        }
        guard let grantType = parameters["grant_type"], !grantType.isEmpty else {
            return Self.invalidRequest("missing parameter grant_type")
        }
        let needed: [String]
        switch grantType {
        case "password": needed = ["client_id", "client_secret", "username", "password"]
        case "refresh_token": needed = ["client_id", "client_secret", "refresh_token"]
        case "client_credentials": needed = ["client_id", "client_secret"]
        default:
            return Self.oauthError(
                status: 400, error: "unsupported_grant_type",
                description: "grant_type \(grantType) is not supported; use password, refresh_token "
                    + "or client_credentials")
        }
        if let missing = needed.first(where: { parameters[$0, default: ""].isEmpty }) {
            return Self.invalidRequest("missing parameter \(missing)")
        }
        let clientID = parameters["client_id"]!
        let clientSecret = parameters["client_secret"]!
        do {
            let grant: OAuthTokenGrant
            switch grantType {
            case "password":
                grant = try authenticator.grantPassword(
                    clientID: clientID, clientSecret: clientSecret, userName: parameters["username"]!,
                    password: parameters["password"]!)
            case "refresh_token":
                grant = try authenticator.grantRefresh(
                    clientID: clientID, clientSecret: clientSecret, refreshToken: parameters["refresh_token"]!)
            default:
                grant = try authenticator.grantClientCredentials(clientID: clientID, clientSecret: clientSecret)
            }
            return HTTPResponse(status: 200, headers: Self.jsonHeaders, body: grant.json)
        } catch {
            return Self.accessDenied
        }
    }

    /// 401 `{"error_description":"access_denied","error":"server_error"}`, the platform's answer to
    /// any wrong credential or token.
    public static let accessDenied = oauthError(status: 401, error: "server_error", description: "access_denied")

    private static let jsonHeaders: [(name: String, value: String)] = [
        (name: "Content-Type", value: ErrorEnvelope.contentType),
        (name: "Cache-Control", value: "no-store"),
        (name: "Pragma", value: "no-cache"),
    ]

    private static func invalidRequest(_ description: String) -> HTTPResponse {
        oauthError(status: 400, error: "invalid_request", description: description)
    }

    private static func oauthError(
        status: Int, error: String, description: String, extraHeaders: [(name: String, value: String)] = []
    ) -> HTTPResponse {
        var body: [UInt8] = Array(#"{"error_description":"#.utf8)
        ErrorEnvelope.appendQuoted(description, to: &body)
        body.append(contentsOf: #","error":"#.utf8)
        ErrorEnvelope.appendQuoted(error, to: &body)
        body.append(UInt8(ascii: "}"))
        return HTTPResponse(status: status, headers: jsonHeaders + extraHeaders, body: body)
    }

    /// The lower-cased media type of a `Content-Type` value, without parameters.
    private static func mediaType(_ contentType: String) -> String {
        let type = contentType.split(separator: ";", maxSplits: 1).first ?? ""
        return type.trimmingCharacters(in: .whitespaces).lowercased()
    }
}
