import Foundation

extension NowTableService {
    /// Fetches a keyset window as ``keysetPage(from:configuration:range:after:skipping:counting:)`` does, with
    /// `reader` validating and reading the body in one pass in place of NowData's own scan.
    ///
    /// A body the reader declines (``KeysetPageReading/read(_:)`` returns `nil`) is scanned and
    /// handled as without a reader: retried when cut, ``NowDataError/transactionCancelled(_:)`` when the
    /// instance's quota cancelled it, and so on; the page then comes back without content when it
    /// passes that scan after all (a body the reader cannot vouch for but that is complete, such as one
    /// holding invalid UTF-8), and the caller decodes ``KeysetPage/body`` itself.
    /// - Parameters:
    ///   - offset: records (counted before ACLs) to skip after `after`; 0 (the default) is the keyset
    ///     page itself.
    ///   - counting: ask for ``KeysetPage/totalCount`` too, as
    ///     ``keysetPage(from:configuration:range:after:skipping:counting:)`` does.
    ///   - reader: reads each response body (each attempt's, when a request is retried).
    /// - Throws: as ``keysetPage(from:configuration:range:after:skipping:counting:)``.
    public func keysetPage<Reader: KeysetPageReading>(
        from tableName: String, configuration: FetchConfiguration? = nil, range: SysIDRange? = nil,
        after: SysID? = nil, skipping offset: Int = 0, counting: Bool = false, reader: Reader
    ) async throws(PaginationError) -> ReadKeysetPage<Reader.Content> {
        let request = PageRequest(configuration: configuration ?? FetchConfiguration())
        let items = try request.keysetItems(in: range, after: after, offset: max(0, offset), counting: counting)
        let bodyReader: @Sendable (Data) -> ResponseBodyRead? = { body in
            reader.read(body).map { read in
                ResponseBodyRead(
                    scan: .completeArray(count: read.recordCount, maxSysId: read.lastSysId), content: read.content)
            }
        }
        let answer = try await PageRequest.send(
            items, keyset: true, fetch: pageFetch(tableName: tableName, bodyReader: bodyReader))
        let page = KeysetPage(
            body: answer.response.body, recordCount: answer.recordCount, lastSysId: answer.lastSysId,
            attempts: answer.response.attempts,
            totalCount: counting ? answer.totalCount : nil)
        return ReadKeysetPage(page: page, content: answer.response.content as? Reader.Content)
    }
}
