import Foundation
import NowData

/// Pages through one sys_id range with keyset paging and sends each page, decoded and transformed,
/// into a ``PageChannel``.
///
/// Each partition has at most one request in flight, so `concurrency` partitions are the per-instance
/// limit of requests in flight; NowData retries 429 and 5xx answers and honours `Retry-After`. Only
/// an empty page ends the range; a short page (rows hidden by ACLs) does not.
struct PartitionExtractor: Sendable {
    let service: NowTableService
    let plan: TablePlan
    let transformer: RecordTransformer
    let decoder: any PageDecoding

    /// Fetches partition `partition` into `channel`, then finishes it (with the error on failure).
    func run(partition: Int, into channel: PageChannel<ExtractedPage>) async {
        do {
            try await extract(partition: partition, into: channel)
            channel.finish()
        } catch {
            channel.finish(throwing: error)
        }
    }

    private func extract(partition: Int, into channel: PageChannel<ExtractedPage>) async throws {
        let configuration = FetchConfiguration(
            filter: plan.filter == EncodedQuery() ? nil : Filter(encodedQuery: plan.filter), limit: plan.pageSize,
            readConfiguration: plan.readConfiguration)
        let paginator = service.paginator(
            from: plan.table, configuration: configuration, strategy: .keyset(range: plan.partitions[partition]))
        var index = 0
        while paginator.hasNext {
            try Task.checkCancellation()
            let body: Data
            do {
                body = try await paginator.next()
            } catch {
                throw pageError(error, partition: partition, page: index)
            }
            let attempts = paginator.lastPage?.attempts ?? 1
            let records: [Record]
            do {
                records = try decoder.records(in: body)
            } catch {
                throw TableRunError(
                    table: plan.table, kind: .other, "cannot decode the page: \(error)", partition: partition,
                    page: index)
            }
            var batch = RowBatch(schema: transformer.schema, capacity: records.count)
            let rejections = transformer.transform(records, into: &batch)
            try await channel.send(
                ExtractedPage(
                    partition: partition, index: index, recordCount: records.count, batch: batch,
                    rejections: rejections, attempts: attempts))
            index += 1
        }
    }

    private func pageError(_ error: PaginationError, partition: Int, page: Int) -> TableRunError {
        switch error {
        case .fetchFailed(let failure):
            return TableRunError(
                table: plan.table, during: "fetching a page", failure, partition: partition, page: page)
        default:
            return TableRunError(
                table: plan.table, kind: .other, "fetching a page: \(error)", partition: partition, page: page)
        }
    }
}
