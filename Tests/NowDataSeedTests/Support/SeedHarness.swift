import Foundation
import NowData
import NowSimTesting
import Synchronization
import Testing

/// What the seed examples run against: one nowsim for the whole target and services made the way the
/// documented `NowTableService.init` example makes them (``NowSDK``).
///
/// How the documents' Combine forms are written here (docs/nowdata.md): a
/// publisher form is its `async` form with the same parameters, `.sink { completion } receiveValue: { value }`
/// becomes `do { let value = try await … } catch { … }`, `.subscribe(on:)`, `.receive(on:)` and
/// `.store(in: &subscriptions)` have no counterpart, and `paginator.publisher` is iterated with
/// `for await`. Those are the Linux forms, not corrections; corrections of the documents' own mistakes
/// are listed beside each example as `// Correction: …`.
enum SeedHarness {
    static let arguments = [
        "--seed", "incident=45,sys_user=25,problem=5", "--seed-value", "7", "--user", "admin:admin:admin",
    ]

    /// The shared nowsim, stopped when the test process exits.
    static func sim() async throws -> NowSimInstance {
        try await NowSimInstance.shared(arguments: arguments)
    }

    /// A table service for the shared nowsim, made by ``documentedInit(_:)``.
    static func tableService() async throws -> NowTableService {
        let sim = try await sim()
        NowSDK.configure(with: NowSDKConfiguration(authentication: .basic(username: "admin", password: "admin")))
        guard let service = documentedInit(sim.baseURL.absoluteString) else {
            throw SeedFailure("NowSDK gave no service")
        }
        return service
    }

    /// The `init(configuration:coreServiceProvider:)` example of NowTableService; `return nil` where the
    /// document returns from its guards.
    ///
    /// Correction: the instance URL string is a parameter (nowsim's). The document's
    /// `http://sample.service-now.com` is plain `http` to a remote host, which NowData refuses unless
    /// `NowSDKConfiguration.allowsInsecureHTTP` is set, so there the second guard returns.
    static func documentedInit(_ instanceUrlString: String) -> NowTableService? {
        guard let coreService = NowSDK.core() else {
            // Error with NowServiceError.sdkNotConfigured
            return nil
        }

        guard
            let instanceUrl = URL(string: instanceUrlString),
            let serviceConfig = NowSDK.makeServiceConfiguration(for: instanceUrl)
        else {
            // Could not create service --
            // NowServiceError.serviceConfigurationInvalid
            return nil
        }
        let tableService = NowTableService(configuration: serviceConfig, coreServiceProvider: coreService)
        return tableService
    }
}

/// A check the harness itself makes.
struct SeedFailure: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// Stands in for the app object the documents' completion-handler examples are methods of: they
/// capture `[weak self]` and hand results to `self?.publish(data:)` / `self?.publish(result:)` (the
/// update example's own calls), which the test awaits with ``outcome()``: one host per example, since
/// the results are one stream read once.
final class ExampleHost: Sendable {
    let tableService: NowTableService
    let tableName: String
    private let outcomes: AsyncStream<Result<Data, any Error>>
    private let continuation: AsyncStream<Result<Data, any Error>>.Continuation

    init(tableService: NowTableService, tableName: String) {
        self.tableService = tableService
        self.tableName = tableName
        (outcomes, continuation) = AsyncStream.makeStream(bufferingPolicy: .unbounded)
    }

    func publish(data: Data) { continuation.yield(.success(data)) }

    func publish(result: Result<Data, any Error>) { continuation.yield(result) }

    /// The next result a completion handler published.
    func outcome() async throws -> Result<Data, any Error> {
        var iterator = outcomes.makeAsyncIterator()
        guard let next = await iterator.next() else { throw SeedFailure("no completion") }
        return next
    }
}

/// Unique names for records the examples create, so reruns against the shared nowsim never collide.
enum SeedNames {
    private static let counter = Mutex(0)

    static func next(_ prefix: String) -> String {
        let n = counter.withLock { value in
            value += 1
            return value
        }
        return "\(prefix) \(ProcessInfo.processInfo.processIdentifier)-\(n)"
    }
}

/// The seed suites, one after another: the `init` example configures and forgets the process-wide
/// ``NowSDK`` state that every other suite makes its service through.
@Suite(.serialized, .timeLimit(.minutes(10))) enum SeedExamples {}
