import Foundation

/// A failure below HTTP (connection, DNS, TLS, timeout, cancellation).
public enum NetworkServiceError: Error, Sendable {
    /// A failure described only by text.
    case genericError(String)
    /// The request was cancelled (task cancellation).
    case operationCanceled
    /// The service is disabled (kept for API parity).
    case serviceDisabled
    /// The server failed in a way not expressible as an HTTP status.
    case serverError(any Error)
    /// The system reported an error (usually a `URLError`: timeout, connection refused, TLS).
    case systemError(any Error)

    /// Whether the failure is worth retrying (connection trouble and timeouts, not cancellation).
    public var isTransient: Bool {
        switch self {
        case .systemError(let error), .serverError(let error):
            guard let urlError = error as? URLError else { return false }
            return NetworkServiceError.transientURLErrorCodes.contains(urlError.code)
        case .genericError, .operationCanceled, .serviceDisabled:
            return false
        }
    }

    /// Whether the request timed out.
    public var isTimeout: Bool {
        if case .systemError(let error) = self, let urlError = error as? URLError { return urlError.code == .timedOut }
        return false
    }

    static let transientURLErrorCodes: Set<URLError.Code> = [
        .timedOut, .cannotConnectToHost, .networkConnectionLost, .cannotFindHost, .dnsLookupFailed,
        .notConnectedToInternet, .badServerResponse,
    ]
}

extension NetworkServiceError: CustomStringConvertible {
    /// The `userInfo` key of a `URLError` that holds how many attempts the failed request made.
    static let attemptsKey = "NowDataAttempts"

    /// A short explanation with the failing URL (without credentials) and the attempts:
    /// `cannot connect to host: Couldn't connect to server (https://…/api/now/table/incident?…) (4 attempts)`.
    public var description: String { description(showingURL: true) }

    /// ``description``, or with only the failing URL's scheme, host and port instead of the whole URL —
    /// `cannot connect to host: Couldn't connect to server (https://acme.service-now.com) (4 attempts)` —
    /// for a line people read (a caller logs the URL apart, at debug level).
    public func description(showingURL: Bool) -> String {
        switch self {
        case .genericError(let text): return text
        case .operationCanceled: return "operation cancelled"
        case .serviceDisabled: return "service disabled"
        case .serverError(let error): return "server error: \(error.localizedDescription)"
        case .systemError(let error):
            guard let urlError = error as? URLError else { return "\(error.localizedDescription)" }
            var text = "\(urlError.code.name): \(urlError.localizedDescription)"
            if let url = failingURL {
                text += " (\(showingURL ? url : Self.origin(of: url)))"
            }
            if let attempts = urlError.userInfo[Self.attemptsKey] as? Int, attempts > 1 {
                text += " (\(attempts) attempts)"
            }
            return text
        }
    }

    /// The URL (without credentials) of the request that failed, when the transport recorded it.
    public var failingURL: String? {
        guard case .systemError(let error) = self, let urlError = error as? URLError else { return nil }
        return urlError.userInfo[NSURLErrorFailingURLStringErrorKey] as? String
    }

    /// `scheme://host[:port]` of `url`, or `url` when it does not parse.
    private static func origin(of url: String) -> String {
        guard let components = URLComponents(string: url), let scheme = components.scheme, let host = components.host
        else { return url }
        return "\(scheme)://\(host)" + (components.port.map { ":\($0)" } ?? "")
    }
}

extension URLError.Code {
    /// A readable name for the codes the transport cares about.
    var name: String {
        switch self {
        case .timedOut: return "timed out"
        case .cannotConnectToHost: return "cannot connect to host"
        case .networkConnectionLost: return "connection lost"
        case .cannotFindHost, .dnsLookupFailed: return "cannot find host"
        case .secureConnectionFailed, .serverCertificateUntrusted, .serverCertificateHasUnknownRoot:
            return "TLS failure"
        case .cancelled: return "cancelled"
        default: return "URL error \(rawValue)"
        }
    }
}
