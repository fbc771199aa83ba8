import NowData
import Testing

@testable import NowETL

/// `source.retry` and `source.slow_request_seconds`: defaults, the mapping to NowData's policy, and
/// positioned errors (exit 78).
@Suite(.timeLimit(.minutes(5))) struct ConfigRetryTests {
    static func yaml(_ source: String) -> String {
        """
        version: 1
        source:
          instance: https://acme.service-now.com
          auth: { basic: { user: etl, password: "${SN_PASSWORD}" } }
        \(source)
        tables:
          - table: incident
        outputs:
          - csv: { path: "{table}.csv" }

        """
    }

    static func load(_ source: String) throws(ConfigError) -> PipelineConfiguration {
        try PipelineLoader.load(text: yaml(source), file: "p.yaml", environment: ["SN_PASSWORD": "hunter2"])
    }

    /// The error loading `source` gives, or `nil` (recording an issue) when it loads.
    static func failure(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) -> ConfigError? {
        do {
            let configuration = try load(source)
            Issue.record("loaded: \(configuration)", sourceLocation: sourceLocation)
            return nil
        } catch {
            return error
        }
    }

    @Test func defaultsSurviveAMaintenanceWindowAndBoundADeadInstance() throws {
        let source = try Self.load("").source
        #expect(source.retry == .default)
        #expect(source.slowRequestSeconds == 30)
        let policy = source.retry.policy
        #expect(policy.maximumAttempts == 50 && policy.maximumBackoff == 30 && policy.initialBackoff == 0.5)
        #expect(policy.totalTimeBudget == 300 && policy.maximumRetryAfter == 300)
        #expect(policy.attemptLimit(unreachable: true) == 4 && policy.attemptLimit(unreachable: false) == 50)
        #expect(policy.retryableStatusCodes == [429, 502, 503, 504] && !policy.retriesNonIdempotentRequests)
        // The budget, not the attempt count, ends the retries: even if every wait drew its ceiling's
        // half, 49 waits (about 16 s for the first six, then 15 s each) last far longer than 300 s.
        let halfWaits = (1..<policy.maximumAttempts).map { policy.backoff(beforeRetry: $0, unitRandom: 0.5) }
        #expect(halfWaits.reduce(0, +) > 2 * 300)

        let service = source.serviceConfiguration(maximumConnectionsPerHost: 5, eventHandler: nil)
        #expect(service.retryPolicy == policy && service.slowRequestInterval == 30 && service.requestTimeout == 120)
    }

    @Test func explicitSettingsAreMapped() throws {
        let source = try Self.load(
            """
              timeout_seconds: 20
              retry: { attempts: 7, max_wait_seconds: 2.5, total_seconds: 90 }
              slow_request_seconds: 5
            """
        ).source
        #expect(source.retry == RetryConfiguration(attempts: 7, maximumWaitSeconds: 2.5, totalSeconds: 90))
        let service = source.serviceConfiguration(maximumConnectionsPerHost: 5, eventHandler: nil)
        #expect(service.retryPolicy.maximumAttempts == 7 && service.retryPolicy.maximumBackoff == 2.5)
        #expect(service.retryPolicy.totalTimeBudget == 90 && service.retryPolicy.maximumRetryAfter == 90)
        #expect(service.slowRequestInterval == 5 && service.requestTimeout == 20)
        // Keys left out keep their defaults.
        #expect(try Self.load("  retry: { attempts: 3 }").source.retry.totalSeconds == 300)
    }

    @Test(arguments: [
        ("  retry: { attempts: 0 }", "p.yaml:5:22: error: source.retry.attempts must be between 1 and 1000, got 0"),
        (
            "  retry: { attempts: 1001 }",
            "p.yaml:5:22: error: source.retry.attempts must be between 1 and 1000, got 1001"
        ),
        (
            "  retry: { max_wait_seconds: 0 }",
            "p.yaml:5:30: error: source.retry.max_wait_seconds must be between 0.1 and 3600"
        ),
        (
            "  retry:\n    total_seconds: 86401",
            "p.yaml:6:20: error: source.retry.total_seconds must be between 1 and 86400"
        ),
        ("  slow_request_seconds: 0", "p.yaml:5:25: error: source.slow_request_seconds must be between 1 and 3600"),
    ])
    func outOfRangeValuesArePositioned(source: String, expected: String) {
        ConfigText.expectMistake(Self.yaml(source), expected, kind: .invalidValue)
    }

    @Test func unknownAndMistypedKeysAreErrors() {
        ConfigText.expectMistake(
            Self.yaml("  retry: { attempts: 3, total: 5 }"),
            "p.yaml:5:25: error: unknown key 'total' in source.retry; "
                + "expected one of attempts, max_wait_seconds, total_seconds", kind: .unknownKey)
        let many = Self.failure("  retry: { attempts: many }")
        #expect(many?.description.hasPrefix("p.yaml:5:22: error:") == true, "\(String(describing: many))")
        #expect(many?.exitCode == 78)
        let scalar = Self.failure("  retry: 5")
        #expect(scalar?.description.hasPrefix("p.yaml:5:10: error:") == true, "\(String(describing: scalar))")
    }
}
