import Foundation
import NowData
import Synchronization
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Page queries composed from the parsed filter (`EncodedQuery.keysetPage(in:after:)`, `offsetPage()`).
@Suite(.timeLimit(.minutes(5))) struct KeysetQueryTests {
    private static let range = SysIDRange(lowerBound: "4000", upperBound: "8000")

    @Test func everyNQGroupGetsTheBounds() throws {
        let query = try EncodedQuery(parsing: "active=true^priority<=2^NQstate=6^ORstate=7")
        let page = query.keysetPage(in: Self.range, after: "4abc")
        #expect(page.groups.count == 2)
        for group in page.groups {
            #expect(
                Array(group.terms.suffix(3).map(\.conditions[0].description)) == [
                    "sys_id>=4000", "sys_id<8000", "sys_id>4abc",
                ])
        }
        #expect(
            page.description
                == "active=true^priority<=2^sys_id>=4000^sys_id<8000^sys_id>4abc"
                + "^NQstate=6^ORstate=7^sys_id>=4000^sys_id<8000^sys_id>4abc^ORDERBYsys_id")
    }

    @Test func sortsAndTheEndMarkerAreReplacedBySysIDOrder() throws {
        let query = try EncodedQuery(parsing: "ORDERBYDESCnumber^active=true^EQ^ORDERBYpriority")
        let page = query.keysetPage()
        #expect(page.orderBy == [EncodedQuery.Sort(field: "sys_id")])
        #expect(!page.hasEndMarker)
        #expect(page.description == "active=true^ORDERBYsys_id")
    }

    @Test func boundsAloneWithoutConditions() {
        #expect(EncodedQuery().keysetPage().description == "ORDERBYsys_id")
        #expect(
            EncodedQuery().keysetPage(in: SysIDRange(upperBound: "8000")).description == "sys_id<8000^ORDERBYsys_id")
        let hollow = EncodedQuery(groups: [EncodedQuery.Group(terms: [])])
        #expect(hollow.keysetPage(after: "ab").description == "sys_id>ab^ORDERBYsys_id")
    }

    @Test func composedPagesParseBackToThemselves() throws {
        let query = try EncodedQuery(parsing: "a=1^ORb=2^NQc=3^EQ^ORDERBYDESCx")
        for page in [query.keysetPage(in: Self.range, after: "5"), query.offsetPage()] {
            #expect(try EncodedQuery(parsing: page.description) == page)
        }
    }

    @Test func offsetPagesKeepTheirSortsAndAddATieBreaker() throws {
        let query = try EncodedQuery(parsing: "a=1^ORDERBYnumber")
        #expect(query.offsetPage().orderBy.map(\.description) == ["ORDERBYnumber", "ORDERBYsys_id"])
        let descending = try EncodedQuery(parsing: "a=1^ORDERBYDESCsys_id")
        #expect(descending.offsetPage() == descending)
    }

    /// Keyset paging over filter text that does not parse fails every navigation with its parse error,
    /// and nothing is sent.
    @Test(arguments: [PaginationStrategy.keyset(range: nil), .keyset(range: SysIDRange(lowerBound: "4000"))])
    func unparsableFilterTextFailsKeysetPagingBeforeAnyRequest(strategy: PaginationStrategy) async throws {
        let core = RecordingCore()
        let paginator = try core.paginator(filter: "priorityXX2", strategy: strategy)
        let expected = try #require(throws: EncodedQueryError.self) { try EncodedQuery(parsing: "priorityXX2") }
        for _ in 0..<2 {
            await TestService.expectInvalidQuery(expected) { () async throws(PaginationError) in
                _ = try await paginator.next()
            }
        }
        #expect(core.count == 0)
        #expect(!paginator.isBusy)
    }

    /// Offset paging, the SDK's own, sends filter text the parser cannot read (a script only the instance
    /// evaluates) as it was given, with the sys_id tie-breaker appended as for any filter.
    @Test(arguments: [
        (
            "assigned_to=javascript:gs.getUserID()^active=true",
            "assigned_to=javascript:gs.getUserID()^active=true^ORDERBYsys_id"
        ),
        ("assigned_to=javascript:gs.getUserID()^ORDERBYsys_id", "assigned_to=javascript:gs.getUserID()^ORDERBYsys_id"),
    ])
    func offsetPagingSendsUnparsableFilterTextAsItIs(text: String, sent: String) async throws {
        #expect(throws: EncodedQueryError.self) { try EncodedQuery(parsing: text) }
        let core = RecordingCore()
        let paginator = try core.paginator(filter: text, strategy: .offset)
        do throws(PaginationError) {
            _ = try await paginator.next()
            Issue.record("the recording core answers no request")
        } catch {
            guard case .fetchFailed = error else {
                Issue.record("unexpected error \(error)")
                return
            }
        }
        let url = try #require(core.urls.first)
        let query = URLComponents(url: url, resolvingAgainstBaseURL: false)?.queryItems?
            .first { $0.name == "sysparm_query" }?.value
        #expect(query == sent)
    }
}

/// A core service that counts requests and answers none of them.
private final class RecordingCore: NowCoreServiceProviding {
    private let requests = Mutex<[URL]>([])

    var count: Int { requests.withLock { $0.count } }
    var urls: [URL] { requests.withLock { $0 } }

    /// A paginator over `incident` with the raw `filter`, whose requests come here.
    func paginator(filter: String, strategy: PaginationStrategy) throws -> Paginator<Data> {
        let configuration = NowServiceConfiguration(
            instanceURL: try #require(URL(string: "http://127.0.0.1:9")),
            authentication: .basic(username: "a", password: "b"),
            allowsInsecureHTTP: true)
        return NowTableService(configuration: configuration, coreServiceProvider: self).paginator(
            from: "incident", configuration: FetchConfiguration(filter: Filter(query: filter)), strategy: strategy)
    }

    func data(for request: URLRequest) async throws -> (Data, URLResponse) {
        requests.withLock { $0.append(request.url ?? URL(fileURLWithPath: "/")) }
        throw URLError(.cannotConnectToHost)
    }
}
