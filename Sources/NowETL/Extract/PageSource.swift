import Foundation
import NowData

/// A keyset page as the source delivers it: the raw `{"result": […]}` body and what the source read
/// from it.
public struct SourcePage: Sendable {
    /// The response body.
    public var body: Data
    /// Records in the page.
    public var recordCount: Int
    /// The largest sys_id in the page (the cursor for the next one); `nil` for an empty page.
    public var lastSysID: SysID?
    /// HTTP requests it took (retries included).
    public var attempts: Int
    /// The records, when the source decoded the body while validating it
    /// (``PageSource/page(of:_:decoder:)``); `nil` when the caller decodes ``body``.
    public var records: [Record]?
    /// The instance's count of the window's range after its cursor (before ACLs, whatever the limit and
    /// offset), when the window asked for it (``PageWindow/counts``) and the answer carried a record
    /// count; `nil` otherwise.
    public var totalCount: Int?

    /// Describes a page.
    public init(
        body: Data, recordCount: Int, lastSysID: SysID?, attempts: Int = 1, records: [Record]? = nil,
        totalCount: Int? = nil
    ) {
        self.body = body
        self.recordCount = recordCount
        self.lastSysID = lastSysID
        self.attempts = attempts
        self.records = records
        self.totalCount = totalCount
    }
}

/// The first stage of a table's pipeline: where pages come from. The instance (``InstancePageSource``)
/// in a run; a scripted source in tests.
public protocol PageSource: Sendable {
    /// The records of `window` in sys_id order, at most `window.limit` of them; fewer (none, even)
    /// when records are hidden from the reader.
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`).
    func page(of plan: TablePlan, _ window: PageWindow) async throws -> SourcePage

    /// The page of `window`, its records decoded by `decoder` in the pass that validates the body where
    /// the source can (``SourcePage/records``); the default fetches ``page(of:_:)`` and leaves the
    /// decoding to the caller.
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`).
    func page(of plan: TablePlan, _ window: PageWindow, decoder: any PageDecoding) async throws -> SourcePage

    /// How many records of `range` after `after` match the plan's filter, counted as the instance
    /// counts: before ACLs, hidden records included.
    ///
    /// - Throws: ``NowETLError`` naming the table (or `CancellationError`).
    func count(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> KeysetCount
}

extension PageSource {
    /// ``page(of:_:)``, its body left for the caller to decode.
    public func page(of plan: TablePlan, _ window: PageWindow, decoder: any PageDecoding) async throws -> SourcePage {
        try await page(of: plan, window)
    }
}

/// Pages from a ServiceNow instance through NowData's keyset pages and counts.
public struct InstancePageSource: PageSource {
    /// The client.
    public let service: NowTableService

    /// Pages through `service`.
    public init(service: NowTableService) {
        self.service = service
    }

    public func page(of plan: TablePlan, _ window: PageWindow) async throws -> SourcePage {
        do {
            let page = try await service.keysetPage(
                from: plan.table, configuration: configuration(plan, limit: window.limit), range: window.range,
                after: window.after, skipping: window.offset, counting: window.counts)
            return SourcePage(
                body: page.body, recordCount: page.recordCount, lastSysID: page.lastSysId, attempts: page.attempts,
                totalCount: page.totalCount)
        } catch {
            throw failure(error, plan: plan, during: "fetching a page")
        }
    }

    /// The page of `window`, validated and decoded in one pass by `decoder` (NowData's own scan of the
    /// body stands in where the decoder declines it: ``PageDecoding/keysetPageRead(of:)``).
    public func page(of plan: TablePlan, _ window: PageWindow, decoder: any PageDecoding) async throws -> SourcePage {
        do {
            let read = try await service.keysetPage(
                from: plan.table, configuration: configuration(plan, limit: window.limit), range: window.range,
                after: window.after, skipping: window.offset, counting: window.counts,
                reader: DecodingPageReader(decoder: decoder))
            return SourcePage(
                body: read.page.body, recordCount: read.page.recordCount, lastSysID: read.page.lastSysId,
                attempts: read.page.attempts, records: read.content, totalCount: read.page.totalCount)
        } catch {
            throw failure(error, plan: plan, during: "fetching a page")
        }
    }

    public func count(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> KeysetCount {
        do {
            return try await service.keysetCount(
                from: plan.table, configuration: configuration(plan, limit: plan.pageSize), range: range, after: after)
        } catch {
            throw failure(error, plan: plan, during: "counting the records left in a range (Aggregate API)")
        }
    }

    private func configuration(_ plan: TablePlan, limit: Int) -> FetchConfiguration {
        FetchConfiguration(
            filter: plan.filter == EncodedQuery() ? nil : Filter(encodedQuery: plan.filter), limit: limit,
            readConfiguration: plan.readConfiguration)
    }

    private func failure(_ error: PaginationError, plan: TablePlan, during step: String) -> any Error {
        if Task.isCancelled { return CancellationError() }
        // The limiter's outcome and whether a smaller page may help are read from the cause.
        return NowETLError(table: plan.table, during: step, paging: error)
    }
}

/// A page decoder as NowData's keyset page reader.
private struct DecodingPageReader: KeysetPageReading {
    let decoder: any PageDecoding

    func read(_ body: Data) -> KeysetPageRead<[Record]>? {
        decoder.keysetPageRead(of: body)
    }
}
