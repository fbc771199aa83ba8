import Foundation
import NowSimTesting
import Testing

@testable import NowData

/// Builds services against a scripted server with instant, recorded sleeps.
enum TestService {
    /// The error an operation throws, or `nil` (recording an issue) when it succeeds.
    static func failure<Value>(
        sourceLocation: SourceLocation = #_sourceLocation, _ operation: () async throws -> Value
    ) async -> (any Error)? {
        do {
            _ = try await operation()
            Issue.record("expected an error", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    static let password = "s3cret-Pa55word"

    /// Expects `operation` to fail before paging with ``PaginationError/invalidQuery(_:)`` carrying `expected`.
    static func expectInvalidQuery(
        _ expected: EncodedQueryError, sourceLocation: SourceLocation = #_sourceLocation,
        _ operation: () async throws(PaginationError) -> Void
    ) async {
        do throws(PaginationError) {
            try await operation()
            Issue.record("paged with an unparsable filter", sourceLocation: sourceLocation)
        } catch {
            guard case .invalidQuery(let parseError) = error else {
                Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
                return
            }
            #expect(parseError == expected, sourceLocation: sourceLocation)
        }
    }

    static func make(
        _ server: ScriptedHTTPServer, authentication: Authentication? = nil,
        policy: RetryPolicy = RetryPolicy(initialBackoff: 0.001, maximumBackoff: 0.01), timeout: TimeInterval = 10,
        apiVersion: String? = nil, sleeps: Recorder<Double>? = nil, events: Recorder<TransportEvent>? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, totalTimeout: TimeInterval = 600
    ) -> NowTableService {
        make(
            url: server.baseURL, authentication: authentication, policy: policy, timeout: timeout,
            apiVersion: apiVersion, sleeps: sleeps, events: events, now: now, totalTimeout: totalTimeout)
    }

    /// The same against any instance URL (a ``RefusedPort``'s, say).
    static func make(
        url: URL, authentication: Authentication? = nil,
        policy: RetryPolicy = RetryPolicy(initialBackoff: 0.001, maximumBackoff: 0.01), timeout: TimeInterval = 10,
        apiVersion: String? = nil, sleeps: Recorder<Double>? = nil, events: Recorder<TransportEvent>? = nil,
        now: @escaping @Sendable () -> Date = { Date() }, totalTimeout: TimeInterval = 600
    ) -> NowTableService {
        var handler: (@Sendable (TransportEvent) -> Void)?
        if let events { handler = { event in events.append(event) } }
        let auth: Authentication = authentication ?? .basic(username: "admin", password: password)
        let configuration = NowServiceConfiguration(
            instanceURL: url, authentication: auth, requestTimeout: timeout, retryPolicy: policy,
            apiVersion: apiVersion, eventHandler: handler, totalRequestTimeout: totalTimeout)
        let transport = HTTPTransport(
            configuration: configuration, sleep: { seconds in sleeps?.append(seconds) }, unitRandom: { 0.5 }, now: now)
        return NowTableService(transport: transport)
    }

    static func envelope(_ message: String, _ detail: String?) -> String {
        let detailJSON = detail.map { "\"\($0)\"" } ?? "null"
        return #"{"error":{"message":"\#(message)","detail":\#(detailJSON)},"status":"failure"}"#
    }
}

/// The "Using NowData" example of docs/nowdata.md, which two suites run: ReadmeExampleTests against a scripted
/// server, NowSimIntegrationTests against nowsim.
enum ReadmeExample {
    /// The example's fetch: active users by name, at most 100, three fields.
    static let activeUsers = FetchConfiguration(
        filter: Filter(conditions: [Condition.boolean(field: "active", .is(true))], sorts: [.asc("name")]),
        limit: 100,
        readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "name", "email"]))

    /// Every item `paginator` gives, page after page, as the example's loop reads them.
    static func all<Item>(_ paginator: Paginator<[Item]>) async throws -> [Item] {
        var items: [Item] = []
        while paginator.hasNext { items += try await paginator.next() }
        return items
    }
}
