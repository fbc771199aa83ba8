import Foundation

extension NowDataError {
    /// What kind of failure an error is, in the terms a caller reports it in and maps to exit codes.
    ///
    /// It refines ``NowDataError/isTransient``: an error is transient exactly when its classification
    /// is ``transient`` or ``unreachable`` (a refused connection is retried before it is given up on).
    public enum Classification: String, Sendable, Hashable, CaseIterable {
        /// The instance could not be reached at all: connection refused, host not found, no network.
        case unreachable
        /// The instance or its token endpoint refused the credentials or the permission (401, 403, a
        /// rejected token request); asking again with the same credentials fails again.
        case authentication
        /// Rate limits, overload, timeouts, cut bodies, cancelled transactions: later may succeed.
        case transient
        /// Anything else (a bad request, a response that will not decode, a URL that cannot be
        /// formed): asking again fails the same way.
        case terminal
    }

    /// The kind of this failure; see ``Classification``.
    ///
    /// A token request that failed transiently (the token endpoint was down or unreachable) is
    /// ``Classification/transient``, not ``Classification/unreachable``: the instance itself may be up.
    public var classification: Classification {
        switch self {
        case .badResponse(let statusCode, _) where statusCode == 401 || statusCode == 403:
            return .authentication
        case .accessToken(let error):
            return error.isTransient ? .transient : .authentication
        case .network(.systemError(let underlying)):
            if let urlError = underlying as? URLError, Self.unreachableURLErrorCodes.contains(urlError.code) {
                return .unreachable
            }
        default:
            break
        }
        return isTransient ? .transient : .terminal
    }

    /// The `URLError` codes that mean the host could not be reached (all of them are transient too).
    static let unreachableURLErrorCodes: Set<URLError.Code> = [
        .cannotConnectToHost, .cannotFindHost, .dnsLookupFailed, .notConnectedToInternet,
    ]
}
