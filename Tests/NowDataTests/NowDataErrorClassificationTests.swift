import Foundation
import NowData
import Testing

/// One classification of NowData's failures, which nowetl maps to exit codes and run errors.
@Suite(.timeLimit(.minutes(1))) struct NowDataErrorClassificationTests {
    static let context = ResponseContext(method: "GET", url: "https://example.service-now.com/api/now/table/incident")

    static let cases: [(NowDataError, NowDataError.Classification)] = [
        (.badResponse(statusCode: 401, context: context), .authentication),
        (.badResponse(statusCode: 403, context: context), .authentication),
        (.badResponse(statusCode: 429, context: context), .transient),
        (.badResponse(statusCode: 503, context: context), .transient),
        (.badResponse(statusCode: 408, context: context), .transient),
        (.badResponse(statusCode: 400, context: context), .terminal),
        (.badResponse(statusCode: 404, context: context), .terminal),
        (.network(.systemError(URLError(.cannotConnectToHost))), .unreachable),
        (.network(.systemError(URLError(.cannotFindHost))), .unreachable),
        (.network(.systemError(URLError(.dnsLookupFailed))), .unreachable),
        (.network(.systemError(URLError(.notConnectedToInternet))), .unreachable),
        (.network(.systemError(URLError(.timedOut))), .transient),
        (.network(.systemError(URLError(.networkConnectionLost))), .transient),
        (.network(.systemError(URLError(.secureConnectionFailed))), .terminal),
        // Only a system error says the host is unreachable; a server error is just transient.
        (.network(.serverError(URLError(.cannotConnectToHost))), .transient),
        (.network(.operationCanceled), .terminal),
        (
            .accessToken(.tokenRequestRejected(statusCode: 401, error: "invalid_client", errorDescription: nil)),
            .authentication
        ),
        (.accessToken(.tokenRequestRejected(statusCode: 503, error: nil, errorDescription: nil)), .transient),
        (.accessToken(.invalidTokenResponse), .authentication),
        // The token endpoint being unreachable is transient: the instance itself may be up.
        (.accessToken(.network(.systemError(URLError(.cannotConnectToHost)))), .transient),
        (.truncatedResponse(context), .transient),
        (.transactionCancelled(context), .transient),
        (.cannotParseResponse, .terminal),
        (.invalidURL, .terminal),
        (.insecureConnectionRefused(host: "example.com"), .terminal),
    ]

    @Test(arguments: 0..<cases.count) func classifiesTheFailure(_ index: Int) {
        let (error, expected) = Self.cases[index]
        #expect(error.classification == expected, "\(error)")
    }

    @Test(arguments: 0..<cases.count) func transientMeansTransientOrUnreachable(_ index: Int) {
        let error = Self.cases[index].0
        #expect(error.isTransient == [.transient, .unreachable].contains(error.classification), "\(error)")
    }

    @Test func everyClassificationIsCovered() {
        #expect(Set(Self.cases.map(\.1)) == Set(NowDataError.Classification.allCases))
    }
}
