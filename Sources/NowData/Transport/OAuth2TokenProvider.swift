import Foundation

/// Obtains and refreshes OAuth 2 access tokens from the instance's `/oauth_token.do` (ref §6.2).
///
/// Tokens are cached until `expires_in` minus the credentials' refresh leeway. Refreshing uses the
/// `refresh_token` grant when a refresh token is known and falls back to the original grant when the
/// instance rejects it. Concurrent callers share one token request.
actor OAuth2TokenProvider: AccessTokenProvider {
    private let tokenURL: URL
    private let credentials: OAuth2Credentials
    private let transport: HTTPTransport
    private let now: @Sendable () -> Date

    private var accessToken: String?
    private var expiresAt: Date = .distantPast
    private var refreshToken: String?
    private var pending: Task<String, any Error>?

    init(
        instanceURL: URL, credentials: OAuth2Credentials, transport: HTTPTransport, now: @escaping @Sendable () -> Date
    ) {
        self.tokenURL = instanceURL.appendingPathComponent(
            credentials.tokenPath.hasPrefix("/") ? String(credentials.tokenPath.dropFirst()) : credentials.tokenPath)
        self.credentials = credentials
        self.transport = transport
        self.now = now
        if case .refreshToken(let token) = credentials.grant { refreshToken = token }
    }

    func accessToken(forceRefresh: Bool) async throws(AccessTokenProviderError) -> String {
        if !forceRefresh, let accessToken, now() < expiresAt.addingTimeInterval(-credentials.refreshLeeway) {
            return accessToken
        }
        if let pending { return try await Self.value(of: pending) }
        let task = Task { try await self.obtainToken() }
        pending = task
        defer { pending = nil }
        return try await Self.value(of: task)
    }

    private static func value(of task: Task<String, any Error>) async throws(AccessTokenProviderError) -> String {
        do {
            return try await task.value
        } catch let error as AccessTokenProviderError {
            throw error
        } catch {
            throw .userSessionError(error)
        }
    }

    private func obtainToken() async throws(AccessTokenProviderError) -> String {
        if let refreshToken {
            do {
                return try await request(grant: "refresh_token", fields: [("refresh_token", refreshToken)])
            } catch {
                self.refreshToken = nil
                if case .refreshToken = credentials.grant { throw error }
                if case .tokenRequestRejected = error {
                    // The refresh token expired or was revoked: fall back to the original grant.
                } else {
                    throw error
                }
            }
        }
        switch credentials.grant {
        case .password(let username, let password):
            return try await request(grant: "password", fields: [("username", username), ("password", password)])
        case .clientCredentials:
            var fields: [(String, String)] = []
            if let scope = credentials.scope { fields.append(("scope", scope)) }
            return try await request(grant: "client_credentials", fields: fields)
        case .refreshToken:
            throw .accessTokenRetrievalFailed
        }
    }

    private func request(grant: String, fields: [(String, String)]) async throws(AccessTokenProviderError) -> String {
        let form =
            [("grant_type", grant), ("client_id", credentials.clientID), ("client_secret", credentials.clientSecret)]
            + fields
        let body = form.map { FormEncoding.encode($0.0) + "=" + FormEncoding.encode($0.1) }.joined(separator: "&")
        let request = TransportRequest(
            method: .post, url: tokenURL, table: nil, body: Data(body.utf8),
            contentType: "application/x-www-form-urlencoded", authorize: false, validatesJSONBody: false,
            forceRetryable: true)
        let response: TransportResponse
        do {
            response = try await transport.send(request)
        } catch {
            switch error {
            case .badResponse(let statusCode, let context):
                let oauth = context.bodyPrefix.flatMap { OAuthErrorBody.parse($0) }
                throw .tokenRequestRejected(
                    statusCode: statusCode, error: oauth?.error ?? context.message,
                    errorDescription: oauth?.errorDescription ?? context.detail)
            case .network(let networkError):
                throw .network(networkError)
            default:
                throw .accessTokenRetrievalFailed
            }
        }
        guard let token = try? JSONDecoder().decode(TokenResponse.self, from: response.body),
            !token.accessToken.isEmpty
        else { throw .invalidTokenResponse }
        accessToken = token.accessToken
        // `expires_in` is the server's number: a NaN, negative or endless lifetime becomes the usual half hour.
        let lifetime = token.expiresIn.flatMap { $0.isFinite && $0 >= 0 ? min($0, 366 * 86_400) : nil } ?? 1800
        expiresAt = now().addingTimeInterval(lifetime)
        transport.configuration.credentialObserver?(token.accessToken)
        if let refresh = token.refreshToken, !refresh.isEmpty {
            refreshToken = refresh
            transport.configuration.credentialObserver?(refresh)
        }
        transport.configuration.eventHandler?(.tokenRefreshed(grant: grant))
        return token.accessToken
    }

    private struct TokenResponse: Decodable {
        let accessToken: String
        let refreshToken: String?
        let expiresIn: TimeInterval?

        enum CodingKeys: String, CodingKey {
            case accessToken = "access_token"
            case refreshToken = "refresh_token"
            case expiresIn = "expires_in"
        }

        init(from decoder: any Decoder) throws {
            let container = try decoder.container(keyedBy: CodingKeys.self)
            accessToken = try container.decode(String.self, forKey: .accessToken)
            refreshToken = try container.decodeIfPresent(String.self, forKey: .refreshToken)
            if let seconds = try? container.decodeIfPresent(Double.self, forKey: .expiresIn) {
                expiresIn = seconds
            } else if let text = try? container.decodeIfPresent(String.self, forKey: .expiresIn) {
                expiresIn = Double(text)
            } else {
                expiresIn = nil
            }
        }
    }

    /// `{"error": …, "error_description": …}` of a rejected token request.
    private struct OAuthErrorBody: Decodable {
        let error: String?
        let errorDescription: String?

        enum CodingKeys: String, CodingKey {
            case error
            case errorDescription = "error_description"
        }

        static func parse(_ text: String) -> OAuthErrorBody? {
            try? JSONDecoder().decode(OAuthErrorBody.self, from: Data(text.utf8))
        }
    }
}

/// `application/x-www-form-urlencoded` and query-component encoding: everything but unreserved characters.
enum FormEncoding {
    private static let unreserved = CharacterSet(
        charactersIn: "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-._~")

    static func encode(_ text: String) -> String {
        text.addingPercentEncoding(withAllowedCharacters: unreserved) ?? ""
    }
}
