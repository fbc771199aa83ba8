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
    /// A short explanation.
    public var description: String {
        switch self {
        case .genericError(let text): return text
        case .operationCanceled: return "operation cancelled"
        case .serviceDisabled: return "service disabled"
        case .serverError(let error): return "server error: \(error.localizedDescription)"
        case .systemError(let error):
            if let urlError = error as? URLError { return "\(urlError.code.name): \(urlError.localizedDescription)" }
            return "\(error.localizedDescription)"
        }
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
