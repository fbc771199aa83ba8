import NowData

/// A table's failure to be read from the instance: a ``NowETLError`` naming the table (partition, page,
/// request URL), its NowData error as the cause; what the extraction asks of such a failure is read
/// from that cause.
extension NowETLError {
    /// A table's NowData failure during `step` (`fetching a page`), classified: its code is the
    /// failure's ``NowDataError/classification`` (``Code/init(_:otherwise:)``), the request URL comes
    /// from its context — `table incident, partition 2, page 5: fetching a page: <the NowData error>`.
    public init(
        table: String, during step: String, _ error: NowDataError, partition: Int? = nil, page: Int? = nil,
        file: String = #fileID, line: Int = #line
    ) {
        self.init(
            Code(error),
            step,
            context: Context(table: table, partition: partition, page: page, url: error.context?.url),
            cause: error, file: file, line: line)
    }

    /// A table's paging failure during `step`: a failed request as ``init(table:during:_:partition:page:file:line:)``
    /// (classified, the limiter reads its cause), anything else (a query that does not parse, a sys_id
    /// that breaks the rule, a cursor that does not move) a ``Code/failed`` error with the paging error
    /// as its cause.
    init(table: String, during step: String, paging error: PaginationError, file: String = #fileID, line: Int = #line) {
        if case .fetchFailed(let failure) = error {
            self.init(table: table, during: step, failure, file: file, line: line)
        } else {
            self.init(.failed, table: table, step, cause: error, file: file, line: line)
        }
    }

    /// The NowData failure underneath, when there is one (a refused request's too).
    var nowDataCause: NowDataError? { cause as? NowDataError ?? (cause as? RefusedRequest)?.error }

    /// What a failed page request tells the instance's request limiter: a 429 that NowData gave up
    /// retrying is a throttle, anything else a failure.
    var limiterOutcome: RequestLimiter.Outcome {
        nowDataCause.map { RequestLimiter.Outcome(failure: $0) } ?? .failed
    }

    /// The instance gave up on the page (a cancelled transaction, a body cut after the transport's
    /// retries): the same window with fewer records may succeed.
    var smallerPageMayHelp: Bool {
        switch nowDataCause {
        case .transactionCancelled?, .truncatedResponse?: true
        default: false
        }
    }

    /// HTTP requests the failed step made, its transport's retries included (1 when unknown): a try
    /// that failed still counts in the run's `requests`.
    var requests: Int { max(1, nowDataCause?.context?.attempts ?? 1) }
}
