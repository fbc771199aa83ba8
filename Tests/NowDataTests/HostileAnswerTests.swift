import Foundation
import NowData
import NowSimTesting
import Testing

/// NowData's own checks of what an instance sends (issue 24), against nowsim's hostile faults: the
/// Paginator stops on a cursor that does not advance, a sys_id that breaks the rule never goes into a
/// query, counts that are no counts are errors, and answers are bounded.
@Suite(.timeLimit(.minutes(5))) struct HostileAnswerTests {
    static let arguments = ["--seed", "incident=60", "--user", "admin:admin:admin"]

    static func service(_ sim: NowSimInstance, maximumResponseBytes: Int? = nil) -> NowTableService {
        var configuration = NowServiceConfiguration(
            instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin"),
            requestTimeout: 10, retryPolicy: RetryPolicy(maximumAttempts: 2, initialBackoff: 0.01, maximumBackoff: 0.05)
        )
        if let maximumResponseBytes { configuration.maximumResponseBytes = maximumResponseBytes }
        return NowTableService(configuration: configuration)
    }

    @Test func thePaginatorStopsWhenTheCursorDoesNotAdvance() async throws {
        try await withNowSim(arguments: Self.arguments, faults: ["stuck-cursor"]) { sim in
            let paginator: Paginator<Data> = Self.service(sim).paginator(
                from: "incident", configuration: FetchConfiguration(limit: 10), strategy: .keyset(range: nil))
            _ = try await paginator.next()
            await #expect {
                _ = try await paginator.next()
            } throws: { error in
                guard case PaginationError.cursorDidNotAdvance = error else { return false }
                return true
            }
        }
    }

    @Test func aSysIDThatBreaksTheRuleNeverReachesAQuery() async throws {
        try await withNowSim(arguments: Self.arguments, logRequests: true) { sim in
            let service = Self.service(sim)
            for bad in ["zz^NQsys_idISNOTEMPTY", "a,b", "a\nb", ""] {
                await #expect {
                    _ = try await service.keysetPage(from: "incident", after: bad)
                } throws: { error in
                    guard case PaginationError.invalidSysId = error else { return false }
                    return true
                }
            }
            #expect(!sim.requestLog.contains { $0.contains("/api/now/table/incident") })
            let page = try await service.keysetPage(from: "incident", after: "legacy-import-0001")
            #expect(page.attempts == 1)
        }
    }

    @Test(arguments: ["-1", "-9223372036854775808", "1e3", "99999999999999999999"])
    func aCountThatIsNoCountIsAnError(value: String) async throws {
        try await withNowSim(arguments: Self.arguments, faults: ["count:table=incident,value=\(value)"]) { sim in
            await #expect {
                _ = try await Self.service(sim).count(from: "incident")
            } throws: { error in
                "\(error)".contains("is not a record count")
            }
        }
    }

    @Test(arguments: ["oversize:2MB", "gzip-bomb:64MB", "content-encoding:zstd"])
    func anAnswerPastTheLimitOrInAnUnaskedEncodingIsRefused(fault: String) async throws {
        try await withNowSim(arguments: Self.arguments, faults: [fault + ",table=incident"]) { sim in
            let service = Self.service(sim, maximumResponseBytes: 1 << 20)
            await #expect {
                _ = try await service.records(from: "incident")
            } throws: { error in
                let text = "\(error)"
                return fault.hasPrefix("content-encoding")
                    ? text.contains("not asked for") : text.contains("1048576-byte limit")
            }
        }
    }
}
