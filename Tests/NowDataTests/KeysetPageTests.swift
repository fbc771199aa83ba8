import Foundation
import Testing

@testable import NowData

/// ``NowTableService/keysetPage(from:configuration:range:after:)`` sends the requests a keyset
/// ``Paginator`` sends and fails the same way; its results against real pages are in
/// `NowSimIntegrationTests+KeysetPage.swift`.
@Suite(.timeLimit(.minutes(5))) struct KeysetPageTests {
    static let ids = ["0a" + String(repeating: "0", count: 30), "0b" + String(repeating: "0", count: 30)]

    /// Both rows for a first page, none after a cursor.
    static func twoRowsThenEmpty(_ request: ScriptedHTTPServer.Request) -> ScriptedHTTPServer.Response {
        let afterCursor = (request.query["sysparm_query"] ?? "").contains("sys_id>0")
        let rows = afterCursor ? [] : ids.map { #"{"sys_id":"\#($0)","number":"INC"}"# }
        return .json(200, #"{"result":["# + rows.joined(separator: ",") + "]}")
    }

    @Test func requestsAreThePaginatorsRequests() async throws {
        let server = try ScriptedHTTPServer { Self.twoRowsThenEmpty($0) }
        let service = TestService.make(server)
        let configuration = FetchConfiguration(
            filter: Filter(query: "active=true^ORDERBYnumber^NQpriority=1", queryCategory: "list"), limit: 7,
            readConfiguration: FieldReadConfiguration(includeFields: ["number"], options: .excludeReferenceLink))
        let range = SysIDRange(lowerBound: "0000", upperBound: "8000")

        let paginator = service.paginator(
            from: "incident", configuration: configuration, strategy: .keyset(range: range))
        while paginator.hasNext { try await paginator.next() }
        var pages: [KeysetPage] = []
        var after: SysID?
        repeat {
            let page = try await service.keysetPage(
                from: "incident", configuration: configuration, range: range, after: after)
            pages.append(page)
            after = page.lastSysId
        } while after != nil

        let requests = server.requests
        try #require(requests.count == 4)
        #expect(requests[2].target == requests[0].target, "first pages: the same URL")
        #expect(requests[3].target == requests[1].target, "pages after the cursor: the same URL")
        #expect(requests[1].query["sysparm_query"]?.contains("sys_id>\(Self.ids[1])") == true)
        #expect(requests[0].query["sysparm_fields"] == "number,sys_id")
        #expect(pages.map(\.recordCount) == [2, 0])
        #expect(pages.map(\.lastSysId) == [Self.ids[1], nil])
        #expect(pages.allSatisfy { $0.attempts == 1 })
        #expect(try pages[0].body.decodeRecords().map(\.sysId) == Self.ids)
    }

    @Test func unparsableFilterTextFailsBeforeAnyRequest() async throws {
        let server = try ScriptedHTTPServer { Self.twoRowsThenEmpty($0) }
        let expected = try #require(throws: EncodedQueryError.self) { try EncodedQuery(parsing: "priorityXX2") }
        await TestService.expectInvalidQuery(expected) { () async throws(PaginationError) in
            _ = try await TestService.make(server).keysetPage(
                from: "incident", configuration: FetchConfiguration(filter: Filter(query: "priorityXX2")))
        }
        #expect(server.requests.isEmpty)
    }

    @Test func rowsWithoutSysIdAreAnError() async throws {
        let server = try ScriptedHTTPServer(script: [.json(200, #"{"result":[{"number":"INC1"}]}"#)])
        await #expect {
            try await TestService.make(server).keysetPage(from: "incident")
        } throws: { error in
            if case PaginationError.missingSysId = error { return true }
            return false
        }
    }

    @Test func failedFetchIsAPaginationError() async throws {
        let server = try ScriptedHTTPServer(script: [
            .json(403, TestService.envelope("Insufficient rights to query records", nil))
        ])
        await #expect {
            try await TestService.make(server).keysetPage(from: "incident")
        } throws: { error in
            if case PaginationError.fetchFailed(.badResponse(403, let context)) = error {
                return context.message == "Insufficient rights to query records"
            }
            return false
        }
    }

    /// A reader that leaves every body to NowData's own scan.
    struct DecliningReader: KeysetPageReading {
        func read(_ body: Data) -> KeysetPageRead<Int>? { nil }
    }

    /// `counting: true` drops `sysparm_no_count` (and nothing else) and reads `X-Total-Count` as a record
    /// count where it enters: a value that is not one (absent, negative, not a number, beyond
    /// ``InstanceCount/maximum``) reads as no count; without `counting` the header is not read.
    @Test(
        arguments: [
            ("42", 42), ("0", 0), ("", nil), ("-1", nil), ("abc", nil), ("1e400", nil), ("99999999999999999999", nil),
            ("1000000000001", nil),
        ] as [(String, Int?)])
    func aCountingPageReadsXTotalCountAsARecordCount(header: String, expected: Int?) async throws {
        let server = try ScriptedHTTPServer { request in
            let rows = Self.ids.map { #"{"sys_id":"\#($0)"}"# }.joined(separator: ",")
            return .json(200, #"{"result":["# + rows + "]}", headers: [("X-Total-Count", header)])
        }
        let service = TestService.make(server)
        let configuration = FetchConfiguration(filter: Filter(query: "active=true"), limit: 7)
        let range = SysIDRange(upperBound: "8000")
        let counted = try await service.keysetPage(
            from: "incident", configuration: configuration, range: range, skipping: 3, counting: true)
        #expect(counted.totalCount == expected && counted.recordCount == 2)
        let read = try await service.keysetPage(
            from: "incident", configuration: configuration, range: range, counting: true,
            reader: DecliningReader())
        #expect(read.page.totalCount == expected)
        let plain = try await service.keysetPage(
            from: "incident", configuration: configuration, range: range, skipping: 0)
        #expect(plain.totalCount == nil)
        let requests = server.requests
        try #require(requests.count == 3)
        #expect(requests[0].query["sysparm_no_count"] == nil && requests[0].query["sysparm_offset"] == "3")
        #expect(requests[1].query["sysparm_no_count"] == nil)
        #expect(requests[2].query["sysparm_no_count"] == "true")
        #expect(requests[0].query["sysparm_query"] == requests[2].query["sysparm_query"])
        #expect(
            requests[0].query["sysparm_limit"] == "7"
                && requests[0].query["sysparm_suppress_pagination_header"] == "true")
    }

    /// A user the Aggregate API refuses is counted through the Table API's `X-Total-Count` (the
    /// Aggregate API's REST ACL can be active while the table's is not); other failures stand.
    @Test func aRefusedAggregateCountFallsBackToTheTableAPIsTotal() async throws {
        let server = try ScriptedHTTPServer { request in
            if request.path.contains("/stats/") {
                return .json(403, TestService.envelope("User Not Authorized", "Not authorized"))
            }
            return .json(200, #"{"result":[]}"#, headers: [("X-Total-Count", "42")])
        }
        let configuration = FetchConfiguration(filter: Filter(query: "active=true"), limit: 7)
        let counted = try await TestService.make(server).keysetCount(
            from: "incident", configuration: configuration, range: SysIDRange(upperBound: "8000"),
            after: Self.ids[0])
        #expect(counted == KeysetCount(count: 42, attempts: 2))
        let requests = server.requests
        try #require(requests.count == 2)
        #expect(requests[0].path.hasSuffix("/api/now/stats/incident"))
        #expect(requests[0].query["sysparm_count"] == "true")
        #expect(requests[1].path.hasSuffix("/api/now/table/incident"))
        #expect(requests[1].query["sysparm_limit"] == "1")
        #expect(requests[1].query["sysparm_no_count"] == nil, "the total must be counted")
        for request in requests {
            #expect(request.query["sysparm_query"] == "active=true^sys_id<8000^sys_id>\(Self.ids[0])")
        }

        let failing = try ScriptedHTTPServer(script: [.json(400, TestService.envelope("Bad request", nil))])
        await #expect {
            try await TestService.make(failing).keysetCount(from: "incident")
        } throws: { error in
            if case PaginationError.fetchFailed(.badResponse(400, _)) = error { return true }
            return false
        }
    }
}
