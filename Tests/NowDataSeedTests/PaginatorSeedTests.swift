import Foundation
import NowData
import Testing

extension SeedExamples {
    /// Seed "Paginator-API — iOS" (002, and 004, the same document): the properties and the `first()`,
    /// `last()`, `next()`, `previous()` and `reset()` examples, run against nowsim's 45 incidents.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct PaginatorSeedTests {
        struct Incident: Codable, JSONRepresentable {
            var number: String
        }

        @Test func viewModelOverRawPages() async throws {
            let service = try await SeedHarness.tableService()
            let paginator = service.paginator(from: "incident", configuration: FetchConfiguration(limit: 20))
            let model = await PaginatorTestViewModel(paginator: paginator)
            await model.first()
            let text = try await model.nextResult().get()
            #expect(Data(text.utf8).convertToRecords().count == 20)
        }

        @Test func viewModelNavigatesPagesOfModels() async throws {
            let service = try await SeedHarness.tableService()
            let configuration = FetchConfiguration(filter: Filter(query: "ORDERBYnumber"), limit: 20)
            let paginator: Paginator<[Incident]> = service.paginator(from: "incident", configuration: configuration)
            #expect(paginator.itemsPerPage == 20 && paginator.numberOfPages == Int.max && paginator.page == 0)
            #expect(!paginator.isBusy && !paginator.isFinished && !paginator.publisherShouldFinish)
            let model = await PaginatorTestViewModel(paginator: paginator)

            await model.first()
            let first = try await model.nextResult().get()
            #expect(first.hasPrefix("[{\"number\":\"INC"))
            #expect(paginator.numberOfPages == 3 && paginator.hasNext && !paginator.hasPrevious)

            await model.next()
            _ = try await model.nextResult().get()
            #expect(paginator.page == 1 && paginator.hasPrevious)

            await model.last()
            let last = try await model.nextResult().get()
            #expect(paginator.page == 2 && !paginator.hasNext)
            #expect(try JSONDecoder().decode([Incident].self, from: Data(last.utf8)).count == 5)

            await model.next()  // no next page: PaginationError
            await #expect(throws: PaginationError.self) { try await model.nextResult().get() }

            await model.previous()
            _ = try await model.nextResult().get()
            #expect(paginator.page == 1)

            await model.reset()
            #expect(await model.result == nil)
            #expect(paginator.page == 0 && paginator.numberOfPages == Int.max && !paginator.hasPrevious)
            await model.previous()  // nothing before the first page: PaginationError
            await #expect(throws: PaginationError.self) { try await model.nextResult().get() }
        }

        @Test func publisherShouldFinish() async throws {
            let service = try await SeedHarness.tableService()
            let paginator = service.paginator(from: "incident", configuration: FetchConfiguration(limit: 20))
            paginator.publisherShouldFinish = true
            let pages = paginator.publisher
            while paginator.hasNext { try await paginator.next() }
            var count = 0
            for await page in pages { count += page.convertToRecords().count }
            #expect(count == 45 && paginator.isFinished)
            await #expect(throws: PaginationError.self) { try await paginator.first() }
        }
    }
}

/// The documents' view model in its Linux form: no Combine, so no `ObservableObject`, `@Published` or
/// `AnyCancellable`; `.receive(on: DispatchQueue.main)` becomes `@MainActor`, the subscription a task
/// iterating `paginator.publisher`, and `try paginator.first()` (and the others) `try await`.
@MainActor final class PaginatorTestViewModel<T: JSONRepresentable> {
    var result: Result<String, Error>?
    private let paginator: Paginator<T>
    private var subscription: Task<Void, Never>?

    init(paginator: Paginator<T>) {
        self.paginator = paginator
        subscribeToPaginator()
    }

    private func subscribeToPaginator() {
        let pages = paginator.publisher
        subscription = Task { [weak self] in
            for await jsonRepresentable in pages {
                self?.result = .success(jsonRepresentable.jsonDescription)
            }
        }
    }

    func first() async {
        result = nil
        do {
            try await paginator.first()
        } catch {
            self.result = .failure(error)
        }
    }

    func last() async {
        result = nil
        do {
            try await paginator.last()
        } catch {
            self.result = .failure(error)
        }
    }

    func next() async {
        result = nil
        do {
            try await paginator.next()
        } catch {
            self.result = .failure(error)
        }
    }

    func previous() async {
        result = nil
        do {
            try await paginator.previous()
        } catch {
            self.result = .failure(error)
        }
    }

    func reset() {
        result = nil
        paginator.reset()
    }

    /// Waits for the page (published to the subscription) or the error of the last navigation.
    func nextResult() async throws -> Result<String, Error> {
        while result == nil { try await Task.sleep(for: .milliseconds(2)) }
        return result ?? .failure(SeedFailure("no result"))
    }

    isolated deinit { subscription?.cancel() }
}
