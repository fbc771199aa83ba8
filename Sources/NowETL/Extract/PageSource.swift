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

    /// Describes a page.
    public init(body: Data, recordCount: Int, lastSysID: SysID?, attempts: Int = 1) {
        self.body = body
        self.recordCount = recordCount
        self.lastSysID = lastSysID
        self.attempts = attempts
    }
}

/// The first stage of a table's pipeline: where pages come from. The instance (``InstancePageSource``)
/// in a run; a scripted source in tests.
public protocol PageSource: Sendable {
    /// The records of `range` after `after` in sys_id order, at most `plan.pageSize` of them.
    ///
    /// - Throws: ``TableRunError`` (or `CancellationError`).
    func page(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> SourcePage
}

/// Pages from a ServiceNow instance through NowData's keyset pages.
public struct InstancePageSource: PageSource {
    /// The client.
    public let service: NowTableService

    /// Pages through `service`.
    public init(service: NowTableService) {
        self.service = service
    }

    public func page(of plan: TablePlan, range: SysIDRange, after: SysID?) async throws -> SourcePage {
        let configuration = FetchConfiguration(
            filter: plan.filter == EncodedQuery() ? nil : Filter(encodedQuery: plan.filter), limit: plan.pageSize,
            readConfiguration: plan.readConfiguration)
        do {
            let page = try await service.keysetPage(
                from: plan.table, configuration: configuration, range: range, after: after)
            return SourcePage(
                body: page.body, recordCount: page.recordCount, lastSysID: page.lastSysId, attempts: page.attempts)
        } catch {
            if Task.isCancelled { throw CancellationError() }
            switch error {
            case .fetchFailed(let failure):
                var error = TableRunError(table: plan.table, during: "fetching a page", failure)
                error.limiterOutcome = RequestLimiter.Outcome(failure: failure)
                throw error
            default:
                throw TableRunError(table: plan.table, kind: .other, "fetching a page: \(error)")
            }
        }
    }
}
