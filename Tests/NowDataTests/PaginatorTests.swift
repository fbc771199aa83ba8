import Foundation
import Testing

@testable import NowData

private struct Row: Decodable, Sendable, Equatable {
    // swift-format-ignore: AlwaysUseLowerCamelCase
    // The JSON key on purpose: nested sys_id keys must stay untouched.
    var sys_id: String
}

/// A table of sys_ids served with offset or keyset semantics; every `hideEvery`-th row of a page is
/// dropped after the limit, as ACLs do.
private final class FakeTable: @unchecked Sendable {
    let ids: [String]
    let hideEvery: Int?
    let sendTotal: Bool

    init(count: Int, hideEvery: Int? = nil, sendTotal: Bool = true) {
        ids = (0..<count).map { String(format: "%032x", $0 * 7919 % 65_521 + 1) }.sorted()
        self.hideEvery = hideEvery
        self.sendTotal = sendTotal
    }

    func handle(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response {
        let query = request.query
        let limit = Int(query["sysparm_limit"] ?? "10000")!
        var rows = ids
        for segment in (query["sysparm_query"] ?? "").split(separator: "^") {
            if segment.hasPrefix("sys_id>=") {
                let bound = String(segment.dropFirst(8))
                rows = rows.filter { $0 >= bound }
            } else if segment.hasPrefix("sys_id<") {
                let bound = String(segment.dropFirst(7))
                rows = rows.filter { $0 < bound }
            } else if segment.hasPrefix("sys_id>") {
                let bound = String(segment.dropFirst(7))
                rows = rows.filter { $0 > bound }
            }
        }
        let total = rows.count
        let offset = Int(query["sysparm_offset"] ?? "0")!
        var page = Array(rows.dropFirst(offset).prefix(limit))
        if let hideEvery { page = page.enumerated().filter { ($0.offset + 1) % hideEvery != 0 }.map(\.element) }
        let body = #"{"result":["# + page.map { #"{"sys_id":"\#($0)"}"# }.joined(separator: ",") + "]}"
        return .json(200, body, headers: sendTotal ? [("X-Total-Count", String(total))] : [])
    }
}

@Suite(.timeLimit(.minutes(5))) struct PaginatorTests {
    @Test func offsetPagingFollowsTheSDK() async throws {
        let table = FakeTable(count: 45, hideEvery: 4)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let service = TestService.make(server)
        let paginator: Paginator<[Row]> = service.paginator(from: "incident", path: "result")
        #expect(paginator.itemsPerPage == 20)
        #expect(paginator.numberOfPages == Int.max)
        #expect(paginator.hasNext && !paginator.hasPrevious && !paginator.isBusy && !paginator.isFinished)
        #expect(paginator.publisherShouldFinish == false)

        var seen: [String] = []
        while paginator.hasNext { seen += try await paginator.next().map(\.sys_id) }
        #expect(paginator.numberOfPages == 3)
        #expect(paginator.page == 2)
        #expect(seen.count == 45 - 11, "short pages (ACL) do not end paging")
        await #expect(throws: PaginationError.self) { try await paginator.next() }

        let previous = try await paginator.previous()
        #expect(previous.count == 15 && paginator.page == 1)
        let first = try await paginator.first()
        #expect(first.first?.sys_id == table.ids[0] && !paginator.hasPrevious)

        let offsets = server.requests.map { $0.query["sysparm_offset"]! }
        #expect(offsets == ["0", "20", "40", "20", "0"])
        #expect(
            server.requests.allSatisfy {
                $0.query["sysparm_limit"] == "20" && $0.query["sysparm_query"] == "ORDERBYsys_id"
            })
    }

    @Test func lastLearnsTheCountFirst() async throws {
        let table = FakeTable(count: 45)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator = TestService.make(server).paginator(
            from: "incident", configuration: FetchConfiguration(filter: Filter(query: "active=true"), limit: 10))
        let page = try await paginator.last()
        #expect(try page.decodeRecords().count == 5)
        #expect(paginator.page == 4 && paginator.numberOfPages == 5 && !paginator.hasNext && paginator.hasPrevious)
        #expect(server.requests.map { $0.query["sysparm_offset"]! } == ["0", "40"])
        #expect(server.requests[0].query["sysparm_query"] == "active=true^ORDERBYsys_id")
    }

    @Test func resetGoesBackWithoutFetching() async throws {
        let table = FakeTable(count: 30)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator: Paginator<[Row]> = TestService.make(server).paginator(from: "incident")
        try await paginator.next()
        try await paginator.next()
        paginator.reset()
        #expect(server.requests.count == 2 && paginator.page == 0 && paginator.hasNext)
        let again = try await paginator.next()
        #expect(again.first?.sys_id == table.ids[0])
    }

    @Test func keysetPagingWalksARangeUntilAnEmptyPage() async throws {
        let table = FakeTable(count: 100, hideEvery: 3, sendTotal: false)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let range = SysIDRange(lowerBound: table.ids[10], upperBound: table.ids[90])
        let paginator: Paginator<[Row]> = TestService.make(server).paginator(
            from: "incident",
            configuration: FetchConfiguration(filter: Filter(query: "active=true^ORDERBYnumber"), limit: 9),
            strategy: .keyset(range: range))
        var rows: [String] = []
        while paginator.hasNext { rows += try await paginator.next().map(\.sys_id) }
        let expected = Array(table.ids[10..<90])
        // Every third row of each page is hidden; the cursor still moves past it because of the greatest visible id.
        #expect(Set(rows).isSubset(of: Set(expected)))
        #expect(rows == rows.sorted())
        #expect(paginator.lastPage?.recordCount == 0)
        #expect(paginator.numberOfPages == server.requests.count)
        let queries = server.requests.map { $0.query["sysparm_query"]! }
        #expect(queries[0] == "active=true^sys_id>=\(table.ids[10])^sys_id<\(table.ids[90])^ORDERBYsys_id")
        #expect(queries[1].hasPrefix("active=true^sys_id>=\(table.ids[10])^sys_id<\(table.ids[90])^sys_id>"))
        #expect(
            server.requests.allSatisfy {
                $0.query["sysparm_offset"] == nil && $0.query["sysparm_no_count"] == "true"
                    && $0.query["sysparm_suppress_pagination_header"] == "true"
            })
        await #expect(throws: PaginationError.self) { try await paginator.last() }
    }

    @Test func keysetShortPagesDoNotEndTheRange() async throws {
        // Pages of 5 where ACLs hide 4 of 5 rows: every page is short, none is empty until the end.
        let table = FakeTable(count: 23, hideEvery: 1, sendTotal: false)
        let acl = FakeTable(count: 23, hideEvery: nil, sendTotal: false)
        let server = try ScriptedHTTPServer { request in
            var response = acl.handle(request)
            let all = try! JSONSerialization.jsonObject(with: response.body) as! [String: [[String: String]]]
            let kept = Array((all["result"] ?? []).suffix(1))
            response.body = try! JSONSerialization.data(withJSONObject: ["result": kept])
            return response
        }
        _ = table
        let paginator = TestService.make(server).paginator(
            from: "incident", configuration: FetchConfiguration(limit: 5), strategy: .keyset())
        var count = 0
        while paginator.hasNext { count += try await paginator.next().decodeRecords().count }
        #expect(count == 5, "one visible row per page of five: 23 rows → 5 pages with a row, then an empty page")
        #expect(server.requests.count == 6)
    }

    @Test func keysetPreviousReusesCursors() async throws {
        let table = FakeTable(count: 25, sendTotal: false)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator: Paginator<[Row]> = TestService.make(server).paginator(
            from: "incident", configuration: FetchConfiguration(limit: 10), strategy: .keyset())
        let first = try await paginator.next()
        let second = try await paginator.next()
        let back = try await paginator.previous()
        #expect(back == first && second.first?.sys_id == table.ids[10])
    }

    @Test func keysetAddsSysIdToFieldList() async throws {
        let table = FakeTable(count: 3, sendTotal: false)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator = TestService.make(server).paginator(
            from: "incident",
            configuration: FetchConfiguration(
                limit: 10, readConfiguration: FieldReadConfiguration(includeFields: ["number"])),
            strategy: .keyset())
        try await paginator.next()
        #expect(server.requests[0].query["sysparm_fields"] == "number,sys_id")
    }

    @Test func keysetRowsWithoutSysIdAreAnError() async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, #"{"result":[{"number":"INC1"}]}"#)])
        let paginator = TestService.make(server).paginator(from: "incident", configuration: nil, strategy: .keyset())
        await #expect {
            try await paginator.next()
        } throws: { error in
            if case PaginationError.missingSysId = error { return true }
            return false
        }
    }

    @Test func publisherDeliversPagesAndFinishesWhenAsked() async throws {
        let table = FakeTable(count: 25)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator: Paginator<[Row]> = TestService.make(server).paginator(
            from: "incident", configuration: FetchConfiguration(limit: 10))
        paginator.publisherShouldFinish = true
        let pages = paginator.publisher
        let collector = Task {
            var sizes: [Int] = []
            for await page in pages { sizes.append(page.count) }
            return sizes
        }
        while paginator.hasNext { try await paginator.next() }
        #expect(await collector.value == [10, 10, 5])
        #expect(paginator.isFinished)
        await #expect(throws: PaginationError.self) { try await paginator.first() }
        paginator.reset()
        #expect(paginator.isFinished && paginator.page == 2)
    }

    @Test func publisherDoesNotFinishByDefault() async throws {
        let table = FakeTable(count: 5)
        let server = try ScriptedHTTPServer { table.handle($0) }
        let paginator: Paginator<[Row]> = TestService.make(server).paginator(from: "incident")
        try await paginator.next()
        #expect(!paginator.hasNext && !paginator.isFinished)
        try await paginator.first()
    }

    @Test func failedFetchIsAPaginationError() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(403, TestService.envelope("Insufficient rights to query records", nil))
        ])
        let paginator = TestService.make(server).paginator(from: "incident")
        await #expect {
            try await paginator.next()
        } throws: { error in
            if case PaginationError.fetchFailed(.badResponse(403, let context)) = error {
                return context.message == "Insufficient rights to query records"
            }
            return false
        }
        #expect(!paginator.isBusy && paginator.hasNext)
    }

    @Test func concurrentNavigationIsBusy() async throws {
        let server = try ScriptedHTTPServer(script: [.init(status: 200, body: Data(#"{"result":[]}"#.utf8), delay: 0.5)]
        )
        let paginator = TestService.make(server).paginator(from: "incident")
        let first = Task { try await paginator.next() }
        try await Task.sleep(nanoseconds: 150_000_000)
        #expect(paginator.isBusy)
        await #expect {
            try await paginator.next()
        } throws: { error in
            if case PaginationError.busy = error { return true }
            return false
        }
        _ = try await first.value
    }

    @Test func partitionsCoverTheKeySpace() {
        let parts = SysIDRange.partitions(4)
        #expect(
            parts == [
                SysIDRange(lowerBound: nil, upperBound: "4000"), SysIDRange(lowerBound: "4000", upperBound: "8000"),
                SysIDRange(lowerBound: "8000", upperBound: "c000"), SysIDRange(lowerBound: "c000", upperBound: nil),
            ])
        #expect(SysIDRange.partitions(1) == [SysIDRange()])
    }
}
