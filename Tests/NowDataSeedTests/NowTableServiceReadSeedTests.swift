import Foundation
import NowData
import Testing

extension SeedExamples {
    /// Seed "NowTableService-Klasse — iOS" (000): the examples of `model`, `paginator`, `record` and
    /// `records`, in their async, completion and (as async) publisher forms, run against nowsim.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct NowTableServiceReadSeedTests {
        struct User: Codable {
            var name: String
        }

        struct SysUser: SysIdentifiableModel {
            var sysId: String = ""
            var name: String
        }

        /// The paginator example's model (the document does not define it); pages of incidents here.
        struct CustomerServiceCase: Decodable {
            var number: String
        }

        // MARK: - model

        @Test func modelAsync() async throws {
            let service: NowTableService = try await SeedHarness.tableService()
            do {
                let result = try await service.model([User].self, from: "sys_user", path: "result")
                print("Fetched \(result.count) users")  // Correction: the document prints `users.count`.
                #expect(result.count >= 20)
            } catch {
                dump(error)
                throw error
            }
            // Correction: the document's sys_id names no nowsim record; the example reads a real one.
            let sysId = try await service.model([SysUser].self, from: "sys_user")[0].sysId
            let result = try await service.model(User.self, with: sysId, from: "sys_user", path: "result")
            #expect(!result.name.isEmpty)
        }

        @Test func modelWithCompletion() async throws {
            let service = try await SeedHarness.tableService()
            let sysId = try await service.model([SysUser].self, from: "sys_user")[0].sysId
            // Correction: the document's first example here is the create example again; its second reads
            // `{ resultin ... }`.
            let user: User = try await withCheckedThrowingContinuation { continuation in
                service.model(User.self, with: sysId, from: "sys_user", path: "result") { result in
                    continuation.resume(with: result)
                }
            }
            #expect(!user.name.isEmpty)
        }

        /// The publisher form (`AnyPublisher<[User], NowDataError>`) as async: the type is inferred.
        @Test func modelPublisherForm() async throws {
            let service: NowTableService = try await SeedHarness.tableService()
            // Correction: the document's `varname: String` is `var name: String`, and its path
            // `user.photos.gps_location` is not in a sys_user answer: that path fails to decode.
            let users: [User] = try await service.model(from: "sys_user", path: "result")
            #expect(!users.isEmpty)
            await #expect(throws: NowDataError.self) {
                let _: [User] = try await service.model(from: "sys_user", path: "user.photos.gps_location")
            }
            let sysId = try await service.model([SysUser].self, from: "sys_user")[0].sysId
            let user: User = try await service.model(with: sysId, from: "sys_user", path: "result")
            #expect(!user.name.isEmpty)
        }

        // MARK: - paginator

        @Test func rawPaginator() async throws {
            let service = try await SeedHarness.tableService()
            let paginator = service.paginator(from: "incident", configuration: FetchConfiguration(limit: 20))
            let page: Data = try await paginator.next()
            #expect(page.convertToRecords().count == 20)
            #expect(paginator.numberOfPages == 3)  // 45 incidents, 20 a page
        }

        @Test func paginatorOfModels() async throws {
            let service: NowTableService = try await SeedHarness.tableService()
            let paginator: Paginator<[User]> = service.paginator(from: "sys_user", path: "result")
            paginator.publisherShouldFinish = true
            let pages = paginator.publisher
            var count = 0
            while paginator.hasNext { try await paginator.next() }
            for await page in pages { count += page.count }
            #expect(count >= 25)
            #expect(paginator.isFinished)
        }

        @Test func paginatorExampleViewModel() async throws {
            let sim = try await SeedHarness.sim()
            _ = try await SeedHarness.tableService()  // configures NowSDK
            let model = CaseListModel()
            let ready = model.initializeTableService(for: sim.baseURL)
            #expect(ready)
            let paginator = try #require(model.paginator)
            let first = try await paginator.first()
            #expect(first.count == 20)
        }

        /// The object the `paginator(from:configuration:)` example is a method of; `makeTableService`,
        /// `subscribeToPaginatorPublisher` and `onReady` are the app's own (not in the document).
        final class CaseListModel {
            static let tableName = "incident"
            let fetchConfiguration = FetchConfiguration(limit: 20)
            var onReady: (CaseListModel) -> Void = { _ in }
            private var subscription: Task<Void, Never>?

            private var tableService: NowTableService?
            // Paginator creation uses type inference to determine the response type.
            private(set) var paginator: Paginator<[CustomerServiceCase]>?

            /// Correction: the document's method returns nothing and runs its `makeTableService` callback
            /// on the caller's terms; here the callback runs before it returns and the result is returned.
            func initializeTableService(for instanceUrl: URL) -> Bool {
                makeTableService(instanceUrl: instanceUrl) { [weak self] result in
                    guard let self = self else { return }

                    switch result {
                    case .success(let tableService):
                        self.tableService = tableService
                        // Create a paginator that iterates over pages of customer support cases. The paginator's response type is
                        // inferred from the paginator's type definition (e.g. `Paginator<[CustomerServiceCase]>`).
                        self.paginator = tableService.paginator(
                            from: Self.tableName, configuration: self.fetchConfiguration)
                        // Subscribe to the paginator's publisher so you are able to receive paged results.
                        self.subscribeToPaginatorPublisher()
                        // Ready to start fetching data, inform the view controller.
                        self.onReady(self)
                    case .failure(let error):
                        debugPrint("Creating table service failed with error: \(error.localizedDescription)")
                        self.tableService = nil
                        self.paginator = nil
                    }
                }
                return paginator != nil
            }

            private func makeTableService(instanceUrl: URL, completion: (Result<NowTableService, any Error>) -> Void) {
                if let service = SeedHarness.documentedInit(instanceUrl.absoluteString) {
                    completion(.success(service))
                } else {
                    completion(.failure(SeedFailure("no service")))
                }
            }

            private func subscribeToPaginatorPublisher() {
                guard let pages = paginator?.publisher else { return }
                subscription = Task { for await page in pages { _ = page.count } }
            }

            deinit { subscription?.cancel() }
        }

        // MARK: - record, records

        @Test func recordInAllForms() async throws {
            let tableService = try await SeedHarness.tableService()
            let sysId = try await tableService.model([SysUser].self, from: "sys_user")[0].sysId

            func fetchTableRecord(
                sysId: String, tableName: String, includeFields: [FieldName] = [FieldName](),
                readOptions: FieldReadConfiguration.Options = []
            ) async throws -> NowRecord {
                let readConfig = FieldReadConfiguration(includeFields: includeFields, options: readOptions)
                do {
                    // Correction: the document passes `configuration: configuration`; it made `readConfig`.
                    let dataResult: Data = try await tableService.record(
                        with: sysId, from: tableName, configuration: readConfig)
                    let recordResult: NowRecord = dataResult.convertToRecord()
                    return recordResult
                } catch {
                    print("Fetch failed with NowDataError: \(error)")
                    throw error
                }
            }
            let record = try await fetchTableRecord(
                sysId: sysId, tableName: "sys_user", includeFields: ["name"], readOptions: [.displayValues])
            #expect(record.fields.keys.sorted() == ["name"])

            let viaCompletion: Data = try await withCheckedThrowingContinuation { continuation in
                tableService.record(with: sysId, from: "sys_user", configuration: FieldReadConfiguration()) {
                    continuation.resume(with: $0)
                }
            }
            #expect(viaCompletion.convertToRecord().sysId == sysId)

            do {  // the publisher form, as async
                let record = try await tableService.record(with: sysId, from: "sys_user").convertToRecord()
                print("Successfully retrieved record: \(record)")
                #expect(record.sysId == sysId)
            } catch {
                print("Record retrieval failed with NowDataError: \(error)")
                throw error
            }
        }

        @Test func recordsInAllForms() async throws {
            let tableService = try await SeedHarness.tableService()

            // Correction: the document's function has `throw error` but is not `async throws`, and its
            // `// return recordResult` becomes a return.
            func fetchTableRecords(
                tableName: String, filterQuery: String,
                includeFields: [FieldName] = [FieldName](), readOptions: FieldReadConfiguration.Options = [],
                limit: Int?
            ) async throws -> [NowRecord] {
                let readConfig = FieldReadConfiguration(includeFields: includeFields, options: readOptions)
                let config = FetchConfiguration(Filter(query: filterQuery), limit, readConfig)
                do {
                    let dataResult: Data = try await tableService.records(from: tableName, configuration: config)
                    let recordResult: [NowRecord] = dataResult.convertToRecords()
                    return recordResult
                } catch {
                    print("Fetch failed with NowDataError: \(error)")
                    throw error
                }
            }
            let records = try await fetchTableRecords(
                tableName: "incident", filterQuery: "ORDERBYnumber", includeFields: ["number"], limit: 7)
            #expect(records.count == 7)

            let host = ExampleHost(tableService: tableService, tableName: "incident")
            host.fetchTableRecords(
                tableName: "incident", filterQuery: "ORDERBYnumber", includeFields: ["number"], limit: 3)
            #expect(try await host.outcome().get().convertToRecords().count == 3)

            do {  // the publisher form, as async
                let records = try await tableService.records(
                    from: "incident", configuration: FetchConfiguration(limit: 2)
                )
                .convertToRecords()
                print("Successfully retrieved records: \(records.count)")
                #expect(records.count == 2)
            } catch {
                print("Record retrieval failed with NowDataError: \(error)")
                throw error
            }
        }
    }
}

extension ExampleHost {
    /// The completion-handler `record`/`records` example (the document shows `records(from:configuration:completion:)`
    /// under both).
    func fetchTableRecords(
        tableName: String, filterQuery: String, includeFields: [FieldName] = [FieldName](),
        readOptions: FieldReadConfiguration.Options = [], limit: Int?
    ) {
        let readConfig = FieldReadConfiguration(includeFields: includeFields, options: readOptions)
        let config = FetchConfiguration(Filter(query: filterQuery), limit, readConfig)
        // Correction: the document passes `fetchConfiguration`; it made `config`.
        tableService.records(from: tableName, configuration: config) { [weak self] result in
            switch result {
            case .success(let dataResult):
                let recordResult: [NowRecord] = dataResult.convertToRecords()
                // Return recordResult
                _ = recordResult
                self?.publish(data: dataResult)  // Correction: the test needs the result (also below).
            case .failure(let error):
                // Failed to fetch record with NowDataError
                self?.publish(result: .failure(error))
            }
        }
    }
}
