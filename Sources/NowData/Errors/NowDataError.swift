import Foundation

/// An HTTP status code as received from the instance.
public typealias HTTPStatusCode = Int

/// The error every ``NowTableService`` operation fails with.
///
/// The cases of the Mobile SDK are kept (`badResponse`, `cannotDecodeModel`, `network`, …); cases that
/// instances produce but the SDK documentation does not name (a truncated 200 body, a transaction
/// cancelled by the quota rule, plain `http` to a remote host) are added so that callers never mistake
/// them for data. Where the instance answered, ``ResponseContext`` says which request failed and what the
/// server said; credentials never appear in it.
public enum NowDataError: Error, Sendable {
    /// The access-token provider failed to produce a token.
    case accessToken(AccessTokenProviderError)
    /// An attachment failed validation (kept for API parity; the Table API does not raise it).
    case attachmentValidation
    /// The instance answered with an unexpected status; `context` carries the server's
    /// `error.message` / `error.detail` or, for non-JSON bodies, the first bytes.
    ///
    /// The SDK documents the case as `badResponse(statusCode: HTTPStatusCode)`; `context` has a default
    /// (``ResponseContext/unrecorded``) so that form constructs as written. Errors from the service always
    /// carry the real context. Matching takes both values, or reads ``statusCode``:
    /// ```swift
    /// let error: NowDataError = .badResponse(statusCode: 404)
    /// if case .badResponse(statusCode: 404, _) = error { print("not found") }
    /// if let statusCode = error.statusCode { print("HTTP \(statusCode)") }
    /// ```
    case badResponse(statusCode: HTTPStatusCode, context: ResponseContext = .unrecorded)
    /// A model could not be decoded from the response JSON.
    case cannotDecodeModel(DecodingError)
    /// A string-wrapped value could not be decoded into `type`.
    case cannotDecodeProperty(type: any Any.Type, from: String)
    /// A model could not be encoded to JSON.
    case cannotEncodeModel(EncodingError)
    /// A response was complete JSON but not of the expected shape (no `result`, wrong type).
    case cannotParseResponse
    /// A URL could not be formed (empty table name, illegal characters, bad instance URL).
    case invalidURL
    /// An attachment response lacked its metadata header (kept for API parity).
    case missingAttachmentMetadata
    /// A required service configuration was missing.
    case missingServiceConfiguration
    /// An operation needed a sys_id and the model or argument had none.
    case missingSysID
    /// The request failed below HTTP: connection, timeout, cancellation.
    case network(NetworkServiceError)
    /// A 2xx body ended before the JSON was complete (connection cut, proxy limit); never a short page.
    case truncatedResponse(ResponseContext)
    /// The instance's transaction quota cancelled the request
    /// (`Transaction cancelled: maximum execution time exceeded`), possibly inside a 200 body.
    /// Retrying the same request usually fails again: lower the page size.
    case transactionCancelled(ResponseContext)
    /// Plain `http` to a host other than loopback was refused; set
    /// ``NowServiceConfiguration/allowsInsecureHTTP`` to allow it.
    case insecureConnectionRefused(host: String)
    /// The configuration asks for something the HTTP stack cannot do (a custom
    /// ``NowCoreServiceProviding`` may throw it); the text says what.
    case unsupportedConfiguration(String)

    /// The HTTP status the instance answered with, when there was one.
    public var statusCode: HTTPStatusCode? {
        switch self {
        case .badResponse(let statusCode, _): return statusCode
        case .truncatedResponse(let context), .transactionCancelled(let context): return context.statusCode
        default: return nil
        }
    }

    /// The request context, when the error came from an HTTP exchange.
    public var context: ResponseContext? {
        switch self {
        case .badResponse(_, let context), .truncatedResponse(let context), .transactionCancelled(let context):
            return context
        default: return nil
        }
    }

    /// Whether trying again later may succeed (rate limits, overload, network trouble, cut bodies).
    ///
    /// Authentication, permission, missing records, bad requests and decoding problems are terminal.
    public var isTransient: Bool {
        switch self {
        case .badResponse(let statusCode, _):
            return [408, 429, 500, 502, 503, 504].contains(statusCode)
        case .truncatedResponse, .transactionCancelled:
            return true
        case .network(let error):
            return error.isTransient
        case .accessToken(let error):
            return error.isTransient
        default:
            return false
        }
    }
}

extension NowDataError: CustomStringConvertible {
    /// A one-line explanation with the request context; never contains credentials.
    public var description: String { description(showingURL: true) }

    /// ``description``, or with the request context without its URL
    /// (``ResponseContext/description(showingURL:)``): `HTTP 503 for GET table incident (3 attempts): …`.
    public func description(showingURL: Bool) -> String {
        let request = context?.description(showingURL: showingURL) ?? ""
        switch self {
        case .accessToken(let error): return "access token: \(error)"
        case .attachmentValidation: return "attachment validation failed"
        case .badResponse(let statusCode, _): return "HTTP \(statusCode) for \(request)"
        case .cannotDecodeModel(let error): return "cannot decode model: \(DecodingErrorSummary(error))"
        case .cannotDecodeProperty(let type, let from): return "cannot decode \(type) from \"\(from.prefix(64))\""
        case .cannotEncodeModel(let error): return "cannot encode model: \(error)"
        case .cannotParseResponse: return "the response is not of the expected shape"
        case .invalidURL: return "a URL could not be formed"
        case .missingAttachmentMetadata: return "attachment metadata missing"
        case .missingServiceConfiguration: return "service configuration missing"
        case .missingSysID: return "a sys_id is required"
        case .network(let error): return "network: \(error.description(showingURL: showingURL))"
        case .truncatedResponse: return "truncated response body for \(request)"
        case .transactionCancelled:
            return "transaction cancelled by the instance (maximum execution time) for \(request); lower the page size"
        case .insecureConnectionRefused(let host):
            return "refusing plain http to \(host); use https or set allowsInsecureHTTP"
        case .unsupportedConfiguration(let what): return "unsupported configuration: \(what)"
        }
    }
}

extension NowDataError: LocalizedError {
    /// Same as ``description``.
    public var errorDescription: String? { description }
}

/// Renders a `DecodingError` with its coding path, which the default description hides.
struct DecodingErrorSummary: CustomStringConvertible {
    let error: DecodingError
    init(_ error: DecodingError) { self.error = error }

    var description: String {
        func path(_ context: DecodingError.Context) -> String {
            context.codingPath.map { $0.intValue.map { "[\($0)]" } ?? $0.stringValue }.joined(separator: ".")
        }
        switch error {
        case .typeMismatch(let type, let context):
            return "type mismatch for \(type) at '\(path(context))': \(context.debugDescription)"
        case .valueNotFound(let type, let context):
            return "value of \(type) not found at '\(path(context))': \(context.debugDescription)"
        case .keyNotFound(let key, let context):
            return "key '\(key.stringValue)' not found at '\(path(context))'"
        case .dataCorrupted(let context):
            return "data corrupted at '\(path(context))': \(context.debugDescription)"
        @unknown default:
            return "\(error)"
        }
    }
}
