import Foundation
import Synchronization

/// Pages through the records of a table, page by page, in either direction.
///
/// Created by ``NowTableService/paginator(from:configuration:)`` and its model form. Navigation methods
/// fetch a page and both return it and publish it to ``publisher``, an `AsyncSequence` of pages that
/// (like the SDK's Combine publisher) finishes only when ``publisherShouldFinish`` is set and the last page
/// was fetched. A failed navigation throws ``PaginationError``.
///
/// ```swift
/// let paginator: Paginator<[User]> = service.paginator(from: "sys_user", path: "result")
/// while paginator.hasNext {
///     let users = try await paginator.next()
/// }
/// ```
///
/// Pages can hold fewer items than ``itemsPerPage`` when ACLs hide rows; that never ends paging.
///
/// Each page's `sysparm_query` is composed from the filter's parsed query
/// (``EncodedQuery/keysetPage(in:after:)``, ``EncodedQuery/offsetPage()``); a filter given as text is
/// parsed once, when the paginator is created. Offset paging (the SDK's) sends text that does not parse
/// (a `javascript:` script such as `gs.getUserID()`, which only the instance can evaluate) as it is,
/// with the `ORDERBYsys_id` tie-breaker appended as for any filter; keyset paging must add sys_id bounds
/// to every `^NQ` group, which needs the parsed query, so there such text fails every navigation with
/// ``PaginationError/invalidQuery(_:)`` before any request.
public final class Paginator<Model: Sendable>: Sendable {
    /// The paging strategies (``PaginationStrategy``).
    public typealias Strategy = PaginationStrategy

    /// The strategy this paginator uses.
    public let strategy: PaginationStrategy
    /// Items requested per page (`sysparm_limit`); 20 unless the fetch configuration sets a limit.
    public let itemsPerPage: Int

    /// The page queries, with the filter parsed once here: they are composed from it, never from text.
    private let request: PageRequest
    private let fetch: PageRequest.Fetch
    private let decode: @Sendable (Data) throws(NowDataError) -> Model
    private let state: Mutex<State>

    private struct State {
        var current: Int?
        var numberOfPages = Int.max
        var busy = false
        var finished = false
        var shouldFinish = false
        var exhausted = false
        var cursors: [SysID?] = [nil]
        var lastPage: PageInfo?
        var nextSubscriber = 0
        var subscribers: [Int: AsyncStream<Model>.Continuation] = [:]
    }

    init(
        strategy: PaginationStrategy, configuration: FetchConfiguration,
        fetch: @escaping PageRequest.Fetch,
        decode: @escaping @Sendable (Data) throws(NowDataError) -> Model
    ) {
        self.strategy = strategy
        self.request = PageRequest(configuration: configuration)
        self.itemsPerPage = request.itemsPerPage
        self.fetch = fetch
        self.decode = decode
        self.state = Mutex(State())
    }

    // MARK: - State

    /// Whether ``next()`` can fetch another page.
    public var hasNext: Bool { state.withLock { Self.hasNext($0, strategy: strategy) } }

    /// Whether ``previous()`` can fetch an earlier page.
    public var hasPrevious: Bool { state.withLock { !$0.finished && ($0.current ?? 0) > 0 } }

    /// Whether a page is being fetched.
    public var isBusy: Bool { state.withLock { $0.busy } }

    /// Whether the paginator finished: ``publisherShouldFinish`` was set and the last page was fetched.
    /// A finished paginator fetches no more pages and ignores ``reset()``.
    public var isFinished: Bool { state.withLock { $0.finished } }

    /// The number of pages: `Int.max` until the instance said (offset: `X-Total-Count`; keyset: once the
    /// empty page was seen), then the real count.
    public var numberOfPages: Int { state.withLock { $0.numberOfPages } }

    /// The zero-based index of the page fetched last (0 before the first fetch).
    public var page: Int { state.withLock { $0.current ?? 0 } }

    /// Facts about the page fetched last (record count, last sys_id, total).
    public var lastPage: PageInfo? { state.withLock { $0.lastPage } }

    /// Whether ``publisher`` finishes after the last page (default `false`).
    public var publisherShouldFinish: Bool {
        get { state.withLock { $0.shouldFinish } }
        set { state.withLock { $0.shouldFinish = newValue } }
    }

    /// A new subscription to the pages this paginator fetches from now on.
    ///
    /// Each access returns an independent sequence that buffers the pages fetched after the access, so
    /// take it before navigating. It finishes when the paginator finishes.
    public var publisher: PaginatorPublisher<Model> {
        let (stream, continuation) = AsyncStream<Model>.makeStream(bufferingPolicy: .unbounded)
        let id: Int? = state.withLock { state in
            guard !state.finished else { return nil }
            let id = state.nextSubscriber
            state.nextSubscriber += 1
            state.subscribers[id] = continuation
            return id
        }
        if let id {
            continuation.onTermination = { [weak self] _ in
                _ = self?.state.withLock { $0.subscribers.removeValue(forKey: id) }
            }
        } else {
            continuation.finish()
        }
        return PaginatorPublisher(stream: stream)
    }

    // MARK: - Navigation

    /// Fetches the first page.
    @discardableResult
    public func first() async throws(PaginationError) -> Model {
        try await navigate(.first)
    }

    /// Fetches the page after the current one (the first page before any fetch).
    /// - Throws: ``PaginationError/noNextPage`` when ``hasNext`` is `false`.
    @discardableResult
    public func next() async throws(PaginationError) -> Model {
        try await navigate(.next)
    }

    /// Fetches the page before the current one.
    @discardableResult
    public func previous() async throws(PaginationError) -> Model {
        try await navigate(.previous)
    }

    /// Fetches the last page (offset paging only; learns the page count first when needed).
    @discardableResult
    public func last() async throws(PaginationError) -> Model {
        try await navigate(.last)
    }

    /// Goes back before the first page without fetching; the next ``next()`` fetches the first page.
    /// Does nothing once the paginator finished.
    public func reset() {
        state.withLock { state in
            guard !state.finished else { return }
            state.current = nil
            state.exhausted = false
            state.cursors = [nil]
            state.numberOfPages = Int.max
            state.lastPage = nil
        }
    }

    private enum Target { case first, next, previous, last }

    private func navigate(_ target: Target) async throws(PaginationError) -> Model {
        let strategy = self.strategy
        if case .keyset = strategy, case .unparsed(_, let error) = request.filter { throw .invalidQuery(error) }
        var index: Int = try state.withLock { state throws(PaginationError) -> Int in
            if state.finished { throw .finished }
            if state.busy { throw .busy }
            let index: Int
            switch target {
            case .first:
                index = 0
            case .next:
                guard Self.hasNext(state, strategy: strategy) else { throw .noNextPage }
                index = state.current.map { $0 + 1 } ?? 0
            case .previous:
                guard let current = state.current, current > 0 else { throw .noPreviousPage }
                index = current - 1
            case .last:
                guard case .offset = strategy else { throw .unsupported("last() with keyset paging") }
                index = state.numberOfPages == Int.max ? -1 : max(0, state.numberOfPages - 1)
            }
            state.busy = true
            return index
        }
        defer { state.withLock { $0.busy = false } }
        if index < 0 {
            // last() before the count is known: fetch the first page to learn it.
            _ = try await fetchPage(0, publish: false)
            index = max(0, state.withLock { $0.numberOfPages } - 1)
        }
        return try await fetchPage(index, publish: true)
    }

    private func fetchPage(_ index: Int, publish: Bool) async throws(PaginationError) -> Model {
        let after = state.withLock { $0.cursors.indices.contains(index) ? $0.cursors[index] : nil }
        let items: [URLQueryItem]
        let keyset: Bool
        switch strategy {
        case .offset: (items, keyset) = (request.offsetItems(page: index), false)
        case .keyset(let range): (items, keyset) = (try request.keysetItems(in: range, after: after), true)
        }
        let answer = try await PageRequest.send(items, keyset: keyset, fetch: fetch)
        if keyset, let after, let last = answer.lastSysId, !(last > after) {
            throw .cursorDidNotAdvance(last: SysIDRule.escaped(last), after: SysIDRule.escaped(after))
        }
        let response = answer.response
        let count = answer.recordCount
        let model: Model
        do {
            model = try decode(response.body)
        } catch {
            throw .fetchFailed(error)
        }
        let totalCount = response.header("X-Total-Count").flatMap { InstanceCount.parse($0) }
        let hasLinkNext = response.header("Link")?.contains("rel=\"next\"") ?? false
        let strategy = self.strategy
        let itemsPerPage = self.itemsPerPage
        let finishing: [AsyncStream<Model>.Continuation] = state.withLock { state in
            state.current = index
            state.lastPage = PageInfo(
                index: index, recordCount: count, lastSysId: answer.lastSysId, totalCount: totalCount,
                attempts: response.attempts)
            switch strategy {
            case .offset:
                if let totalCount {
                    state.numberOfPages = max(1, (totalCount + itemsPerPage - 1) / itemsPerPage)
                } else if count == 0 || (!hasLinkNext && response.header("Link") != nil) {
                    state.numberOfPages = index + 1
                }
            case .keyset:
                if count == 0 {
                    state.exhausted = true
                    state.numberOfPages = index + 1
                } else {
                    if state.cursors.count <= index + 1 {
                        state.cursors.append(
                            contentsOf: [SysID?](repeating: nil, count: index + 2 - state.cursors.count))
                    }
                    state.cursors[index + 1] = answer.lastSysId
                }
            }
            guard publish else { return [] }
            for continuation in state.subscribers.values { continuation.yield(model) }
            if state.shouldFinish, !Self.hasNext(state, strategy: strategy) {
                state.finished = true
                let all = Array(state.subscribers.values)
                state.subscribers.removeAll()
                return all
            }
            return []
        }
        for continuation in finishing { continuation.finish() }
        return model
    }

    private static func hasNext(_ state: State, strategy: PaginationStrategy) -> Bool {
        if state.finished { return false }
        switch strategy {
        case .offset:
            return (state.current.map { $0 + 1 } ?? 0) < state.numberOfPages
        case .keyset:
            return !state.exhausted
        }
    }
}

/// The pages a ``Paginator`` fetches, as an `AsyncSequence` (the SDK's Combine publisher).
public struct PaginatorPublisher<Model: Sendable>: AsyncSequence, Sendable {
    /// The page type.
    public typealias Element = Model

    let stream: AsyncStream<Model>

    /// Creates the iterator; iterate once.
    public func makeAsyncIterator() -> AsyncStream<Model>.Iterator { stream.makeAsyncIterator() }
}
