import Foundation
import NowData
import NowSimTesting
import Testing

/// ``NowTableService/keysetCount(from:configuration:range:after:)`` and
/// ``NowTableService/keysetPage(from:configuration:range:after:skipping:counting:)`` against a nowsim hiding runs
/// of records longer than a page: the count includes the hidden records, and windows at offsets from
/// the same cursor reach the visible records after an empty keyset page.
@Suite(.timeLimit(.minutes(5))) struct KeysetWindowTests {
    @Test func anEmptyKeysetPageIsSteppedOverByOffsetAndTheCountIncludesHiddenRecords() async throws {
        try await withNowSim(arguments: [
            "--seed", "incident=300", "--seed-value", "5", "--fault", "acl-hide:fraction=0.5,run=25,table=incident",
        ]) { sim in
            let service = NowTableService(
                configuration: NowServiceConfiguration(
                    instanceURL: sim.baseURL, authentication: .basic(username: "admin", password: "admin")))
            let configuration = FetchConfiguration(
                limit: 10, readConfiguration: FieldReadConfiguration(includeFields: ["number"]))
            let range = SysIDRange(lowerBound: nil, upperBound: nil)
            let all = try await service.keysetCount(from: "incident", configuration: configuration, range: range)
            #expect(all.count == 300, "counted before ACLs")
            #expect(all.attempts == 1)

            // Walk by keyset; at an empty page, step by offset from the same cursor.
            var cursor: SysID?
            var seen: [String] = []
            var stepped = 0
            var requests = 0
            while requests < 200 {
                requests += 1
                var page = try await service.keysetPage(
                    from: "incident", configuration: configuration, range: range, after: cursor)
                if page.recordCount == 0 {
                    let left = try await service.keysetCount(
                        from: "incident", configuration: configuration, range: range, after: cursor)
                    if left.count == 0 { break }
                    var offset = 10
                    while page.recordCount == 0 && offset < left.count {
                        page = try await service.keysetPage(
                            from: "incident", configuration: configuration, range: range, after: cursor,
                            skipping: offset)
                        offset += 10
                        stepped += 1
                    }
                    if page.recordCount == 0 { break }
                }
                seen += try page.body.decodeRecords().map(\.sysId)
                cursor = page.lastSysId
            }
            #expect(stepped > 0, "runs of 25 empty whole pages of 10")
            let visible = try await service.records(
                from: "incident", configuration: FetchConfiguration(limit: 10_000))
            let expected = try visible.decodeRecords().map(\.sysId).sorted()
            #expect(seen == expected, "every visible record once, in sys_id order")
            #expect(expected.count < 300 && expected.count > 0)
        }
    }
}
