import Foundation
import NowData
import Testing

/// ``NowTableService/keysetPage(from:configuration:range:after:)`` against nowsim's `incident`: pages
/// chained by the caller give what the ``Paginator`` gives.
extension NowSimIntegrationTests {
    static let keysetFields = FieldReadConfiguration(includeFields: ["sys_id", "number"])

    /// Every page of `range` from `after` on, chained through ``KeysetPage/lastSysId`` until the empty page.
    func keysetPages(
        _ service: NowTableService, configuration: FetchConfiguration, range: SysIDRange? = nil, after: SysID? = nil
    ) async throws -> [KeysetPage] {
        var pages: [KeysetPage] = []
        var cursor = after
        while true {
            let page = try await service.keysetPage(
                from: "incident", configuration: configuration, range: range, after: cursor)
            pages.append(page)
            guard let last = page.lastSysId else { return pages }
            cursor = last
        }
    }

    @Test func keysetPagesChainedByTheCallerGiveThePaginatorsRows() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(
            filter: Filter(query: "active=true^ORDERBYnumber"), limit: 25, readConfiguration: Self.keysetFields)
        for range in [nil] + SysIDRange.partitions(3) {
            let paginator: Paginator<Data> = service.paginator(
                from: "incident", configuration: configuration, strategy: .keyset(range: range))
            var expected: [String] = []
            while paginator.hasNext { expected += try await paginator.next().decodeRecords().map(\.sysId) }

            let pages = try await keysetPages(service, configuration: configuration, range: range)
            var seen: [String] = []
            for page in pages {
                let ids = try page.body.decodeRecords().map(\.sysId)
                #expect(ids.count == page.recordCount && ids.count <= 25)
                #expect(page.lastSysId == ids.last, "the cursor is the page's greatest sys_id")
                seen += ids
            }
            #expect(!expected.isEmpty && seen == expected, "range \(String(describing: range))")
            #expect(pages.count == paginator.numberOfPages)
            #expect(pages.last?.recordCount == 0 && pages.last?.lastSysId == nil)
            #expect(pages.allSatisfy { $0.attempts == 1 })
        }
    }

    @Test func keysetPageAfterACursorSkipsUpToIt() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(limit: 40, readConfiguration: Self.keysetFields)
        let all = try await keysetPages(service, configuration: configuration).flatMap {
            try $0.body.decodeRecords().map(\.sysId)
        }
        #expect(all.count == Self.incidentCount && all == all.sorted())

        let resumed = try await keysetPages(service, configuration: configuration, after: all[99]).flatMap {
            try $0.body.decodeRecords().map(\.sysId)
        }
        #expect(resumed == Array(all[100...]))

        // A cursor between two sys_ids: the page starts at the next one that exists.
        let between = all[149] + "0"
        let page = try await service.keysetPage(from: "incident", configuration: configuration, after: between)
        #expect(try page.body.decodeRecords().first?.sysId == all[150])

        let end = try await service.keysetPage(from: "incident", configuration: configuration, after: all[299])
        #expect(end.recordCount == 0 && end.lastSysId == nil)
        #expect(try end.body.decodeRecords().isEmpty)
    }

    @Test func keysetPageStaysInItsRange() async throws {
        let service = makeService()
        let configuration = FetchConfiguration(limit: 1000, readConfiguration: Self.keysetFields)
        let all = try await service.keysetPage(from: "incident", configuration: configuration).body
            .decodeRecords().map(\.sysId)
        try #require(all.count == Self.incidentCount)

        let range = SysIDRange(lowerBound: all[50], upperBound: all[80])
        let inRange = try await service.keysetPage(from: "incident", configuration: configuration, range: range)
        #expect(try inRange.body.decodeRecords().map(\.sysId) == Array(all[50..<80]))
        #expect(inRange.lastSysId == all[79])

        // The upper bound shrinks between pages (work stealing): the next page honours the new bound.
        let small = FetchConfiguration(limit: 10, readConfiguration: Self.keysetFields)
        let first = try await service.keysetPage(from: "incident", configuration: small, range: range)
        #expect(try first.body.decodeRecords().map(\.sysId) == Array(all[50..<60]))
        let stolen = SysIDRange(lowerBound: all[50], upperBound: all[65])
        let rest = try await keysetPages(service, configuration: small, range: stolen, after: first.lastSysId)
            .flatMap { try $0.body.decodeRecords().map(\.sysId) }
        #expect(rest == Array(all[60..<65]))

        let open = SysIDRange(lowerBound: all[290])
        let tail = try await keysetPages(service, configuration: small, range: open).flatMap {
            try $0.body.decodeRecords().map(\.sysId)
        }
        #expect(tail == Array(all[290...]))
    }
}
