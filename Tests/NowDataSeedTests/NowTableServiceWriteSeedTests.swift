import Foundation
import NowData
import Testing

extension SeedExamples {
    /// Seed "NowTableService-Klasse — iOS" (000): the examples of `init`, `create`, `createRecord`,
    /// `delete`, `deleteRecord`, `update` and `updateRecord`, in their async, completion and (as async)
    /// publisher forms, each as written and run against nowsim (SeedHarness explains the Linux forms).
    @Suite(.serialized, .timeLimit(.minutes(5))) struct NowTableServiceWriteSeedTests {
        struct User: SysIdentifiableModel {
            var sysId: String = ""
            var name: String
        }

        /// The model the delete examples pass as `Incident(sysId: sysId)` (the document does not define it).
        struct Incident: SysIdentifiableModel {
            var sysId: String = ""
        }

        // MARK: - init

        @Test func initMakesAServiceThroughNowSDK() async throws {
            let sim = try await SeedHarness.sim()
            NowSDK.logout()
            #expect(SeedHarness.documentedInit(sim.baseURL.absoluteString) == nil)  // sdkNotConfigured
            NowSDK.configure(with: NowSDKConfiguration(authentication: .basic(username: "admin", password: "admin")))
            // The document's own URL: plain http to a remote host is refused (serviceConfigurationInvalid).
            #expect(SeedHarness.documentedInit("http://sample.service-now.com") == nil)
            let tableService = try #require(SeedHarness.documentedInit(sim.baseURL.absoluteString))
            #expect(tableService.configuration.instanceUrl == sim.baseURL)
            let data = try await tableService.records(from: "incident", configuration: FetchConfiguration(limit: 1))
            #expect(data.convertToRecords().count == 1)
        }

        // MARK: - create

        @Test func createAsync() async throws {
            let service: NowTableService = try await SeedHarness.tableService()
            let user = User(name: "Ash Williams")
            do {
                let result = try await service.create(user, in: "sys_user")
                #expect(!result.sysId.isEmpty && result.name == "Ash Williams")
            } catch {
                Issue.record("create failed: \(error)")  // Correction: the document's `...`.
            }
        }

        @Test func createWithCompletion() async throws {
            let host = ExampleHost(tableService: try await SeedHarness.tableService(), tableName: "sys_user")
            host.createExample(writeOptions: [], fetchConfiguration: FetchConfiguration())
            let sysId = String(decoding: try await host.outcome().get(), as: UTF8.self)
            #expect(sysId.count == 32)
        }

        /// The publisher form (`AnyPublisher<User, NowDataError>`) as async, with the `path` it documents.
        @Test func createPublisherForm() async throws {
            let service: NowTableService = try await SeedHarness.tableService()
            let user = User(name: "Ash Williams")
            let newUser: User = try await service.create(user, in: "sys_user", path: Constants.resultPath)
            /// 'newUser' contains the ServiceNow platform assigned 'sys_id' to use in subsequent update and delete calls.
            #expect(!newUser.sysId.isEmpty)
            // A path that is not in the answer fails to decode, as for model(…).
            await #expect(throws: NowDataError.self) {
                let _: User = try await service.create(user, in: "sys_user", path: "result.user")
            }
        }

        // MARK: - createRecord

        @Test func createRecordAsync() async throws {
            let tableService = try await SeedHarness.tableService()
            let (fields, tableName) = (["short_description": "test description"], "problem")
            let writeOptions: FieldWriteOptions = [.suppressAutoSysField, .treatInputValuesAsDisplayValues]
            let configuration = FieldReadConfiguration(includeFields: ["number", "short_description"])
            do {
                let dataResult: Data = try await tableService.createRecord(
                    with: fields, in: tableName, writeOptions: writeOptions, configuration: configuration)
                let recordResult: NowRecord = dataResult.convertToRecord()
                #expect(recordResult.fields["short_description"]?.value == "test description")
            } catch {
                print("Record creation failed with NowDataError: \(error)")
                throw error
            }
        }

        @Test func createRecordWithCompletion() async throws {
            let host = ExampleHost(tableService: try await SeedHarness.tableService(), tableName: "problem")
            host.createRecordExample()
            let record = try await host.outcome().get().convertToRecord()
            #expect(record.fields["short_description"]?.value == "test description")
            #expect(record.fields["number"]?.value?.hasPrefix("PRB") == true)
        }

        @Test func createRecordPublisherForm() async throws {
            let tableService = try await SeedHarness.tableService()
            let (fields, tableName) = (["short_description": "from the publisher form"], "problem")
            let (writeOptions, readConfiguration) = (FieldWriteOptions(), FieldReadConfiguration())
            do {
                let record = try await tableService.createRecord(
                    with: fields, in: tableName, writeOptions: writeOptions, configuration: readConfiguration
                ).convertToRecord()
                print("Created NowRecord: \(record)")
                #expect(record.fields["short_description"]?.value == "from the publisher form")
            } catch {
                print("Record creation failed with NowDataError: \(error)")
                throw error
            }
        }

        // MARK: - delete, deleteRecord

        @Test func deleteInAllForms() async throws {
            let tableService = try await SeedHarness.tableService()
            let tableName = "sys_user"
            func newUser() async throws -> User {
                try await tableService.create(User(name: SeedNames.next("Del")), in: tableName)
            }

            let model = try await newUser()
            do {
                try await tableService.delete(model, from: tableName)
                print("Deletion successful.")
            } catch {
                print("Deletion failed with NowDataError: \(error)")
                throw error
            }
            try await expectGone(model.sysId, tableService)

            let host = ExampleHost(tableService: tableService, tableName: tableName)
            let second = try await newUser()
            host.deleteExample(sysId: second.sysId)
            _ = try await host.outcome().get()
            try await expectGone(second.sysId, tableService)

            let third = try await newUser()  // the publisher form, as async
            try await tableService.delete(Incident(sysId: third.sysId), from: tableName)
            try await expectGone(third.sysId, tableService)
        }

        @Test func deleteRecordInAllForms() async throws {
            let tableService = try await SeedHarness.tableService()
            let tableName = "sys_user"
            func newSysId() async throws -> String {
                try await tableService.create(User(name: SeedNames.next("DelRec")), in: tableName).sysId
            }

            var sysId = try await newSysId()
            do {
                try await tableService.deleteRecord(sysId: sysId, from: tableName)
                print("Deletion successful.")
            } catch {
                print("Deletion failed with NowDataError: \(error)")
                throw error
            }
            try await expectGone(sysId, tableService)

            sysId = try await newSysId()
            let host = ExampleHost(tableService: tableService, tableName: tableName)
            host.deleteRecordExample(sysId: sysId)
            _ = try await host.outcome().get()
            try await expectGone(sysId, tableService)

            sysId = try await newSysId()
            do {  // the publisher form, as async
                try await tableService.deleteRecord(sysId: sysId, from: tableName)
                print("Record deleted.")
            } catch {
                print("Deletion failed with NowDataError: \(error)")
                throw error
            }
            try await expectGone(sysId, tableService)
        }

        private func expectGone(_ sysId: String, _ service: NowTableService) async throws {
            let error = await #expect(throws: NowDataError.self) {
                _ = try await service.record(with: sysId, from: "sys_user")
            }
            #expect(error?.statusCode == 404)
        }

        // MARK: - update, updateRecord

        @Test func updateAsync() async throws {
            let tableService = try await SeedHarness.tableService()
            func updateUser(user: User) async throws -> User {
                do {
                    let result = try await tableService.update(user, in: "sys_user")
                    return result
                } catch {
                    print("Update failed with NowDataError: \(error)")
                    throw error
                }
            }
            var user = try await tableService.create(User(name: "before"), in: "sys_user")
            user.name = "after"
            #expect(try await updateUser(user: user).name == "after")
        }

        @Test func updateWithCompletionAndPublisherForm() async throws {
            let tableService = try await SeedHarness.tableService()
            let created = try await tableService.create(User(name: "abel"), in: "sys_user")
            let host = ExampleHost(tableService: tableService, tableName: "sys_user")
            host.updateExample(sysId: created.sysId)
            let data = try await host.outcome().get()
            let decoded = try JSONDecoder().decode([String: String].self, from: data)
            #expect(decoded["name"] == "abel" && decoded["sysId"] == created.sysId)

            // The publisher form, as async.
            let user = User(sysId: created.sysId, name: "abel")
            let coder: Coder = .default
            let updatedModel = try await tableService.update(user, in: "sys_user")
            let encoded = try coder.jsonEncoder.encode(updatedModel)
            #expect(try coder.jsonDecoder.decode(User.self, from: encoded).sysId == created.sysId)
        }

        @Test func updateRecordInAllForms() async throws {
            let tableService = try await SeedHarness.tableService()
            let (tableName, writeOptions) = ("problem", FieldWriteOptions())
            let readConfiguration = FieldReadConfiguration(includeFields: ["short_description"])
            let configuration = readConfiguration
            let sysId = try await tableService.createRecord(with: ["short_description": "old"], in: tableName)
                .convertToRecord().sysId

            var fields: [FieldName: FieldValue] = ["short_description": "async"]
            do {
                // Correction: the document omits `sysId: sysId,` (the form it documents takes it first).
                let dataResult: Data = try await tableService.updateRecord(
                    sysId: sysId, in: tableName, with: fields, writeOptions: writeOptions, configuration: configuration)
                let recordResult: NowRecord = dataResult.convertToRecord()
                #expect(recordResult.fields["short_description"]?.value == "async")
            } catch {
                print("Record update failed with NowDataError: \(error)")
                throw error
            }

            let host = ExampleHost(tableService: tableService, tableName: tableName)
            host.updateRecordExample(sysId: sysId, fields: ["short_description": "completion"])
            #expect(try await host.outcome().get().convertToRecord().fields["short_description"]?.value == "completion")

            fields = ["short_description": "publisher"]
            do {  // the publisher form, as async
                let record = try await tableService.updateRecord(
                    sysId: sysId, in: tableName, with: fields, writeOptions: writeOptions,
                    configuration: readConfiguration
                ).convertToRecord()
                print("Record updated: \(record)")
                #expect(record.fields["short_description"]?.value == "publisher")
            } catch {
                print("Update failed with NowDataError: \(error)")
                throw error
            }
        }
    }
}

/// The completion-handler examples, as methods of the app object they are written in.
extension ExampleHost {
    typealias User = SeedExamples.NowTableServiceWriteSeedTests.User
    typealias Incident = SeedExamples.NowTableServiceWriteSeedTests.Incident

    /// `create(_:in:coder:writeOptions:configuration:completion:)`.
    func createExample(writeOptions: FieldWriteOptions, fetchConfiguration: FetchConfiguration) {
        let service: NowTableService = tableService
        let user = User(name: "Ash Williams")
        // Correction: the document passes `Incident(fields: fields)`, a model it never defines, where it made `user`.
        service.create(user, in: tableName, writeOptions: writeOptions, configuration: fetchConfiguration) {
            [weak self] result in
            switch result {
            case .success(let newUser):
                /// 'newUser' contains the platform assigned 'sys_id', use in subsequent 'update' or 'delete' calls.
                self?.publish(data: Data(newUser.sysId.utf8))  // Correction: the document's `...` (also below).
            case .failure(let error):
                self?.publish(result: .failure(error))
            }
        }
    }

    /// `createRecord(with:in:writeOptions:configuration:completion:)`.
    func createRecordExample() {
        let fields = ["short_description": "test description"]
        let writeOptions: FieldWriteOptions = [.suppressAutoSysField, .treatInputValuesAsDisplayValues]
        let readConfiguration = FieldReadConfiguration(includeFields: ["number", "short_description"])

        tableService.createRecord(
            with: fields, in: tableName, writeOptions: writeOptions, configuration: readConfiguration
        ) {
            [weak self] result in
            switch result {
            case .success(let dataResult):
                let recordResult: NowRecord = dataResult.convertToRecord()
                _ = recordResult
                self?.publish(data: dataResult)  // Correction: the test needs the result (also below).
            case .failure(let error):
                print("Record creation failed with NowDataError: \(error)")
                self?.publish(result: .failure(error))
            }
        }
    }

    /// `delete(_:from:completion:)`.
    func deleteExample(sysId: String) {
        tableService.delete(Incident(sysId: sysId), from: tableName) { [weak self] result in
            switch result {
            case .success:
                // Delete successfully
                self?.publish(data: Data())  // Correction: a case needs a statement (also below).
            case .failure(let error):
                // Failed to delete with NowDataError
                self?.publish(result: .failure(error))
            }
        }
    }

    /// `deleteRecord(sysId:from:completion:)`.
    func deleteRecordExample(sysId: String) {
        tableService.deleteRecord(sysId: sysId, from: tableName) { [weak self] result in
            switch result {
            case .success:
                // Delete successfully
                self?.publish(data: Data())  // Correction: a case needs a statement (also below).
            case .failure(let error):
                // Failed to delete with NowDataError
                self?.publish(result: .failure(error))
            }
        }
    }

    /// `update(_:in:coder:writeOptions:configuration:completion:)`, with `coder.jsonEncoder`.
    ///
    /// Correction: the document's sys_id `"12345"` names no record; the example updates a real one.
    func updateExample(sysId: String) {
        let user = User(sysId: sysId, name: "abel")
        let coder: Coder = .default

        tableService.update(user, in: "sys_user") { [weak self] result in
            switch result {
            case .success(let model):
                do {
                    let data = try coder.jsonEncoder.encode(model)
                    self?.publish(data: data)
                } catch {
                    self?.publish(result: .failure(error))
                }
            case .failure(let error):
                // Failed to update with NowDataError
                self?.publish(result: .failure(error))
            }
        }
    }

    /// `updateRecord(sysId:in:with:writeOptions:configuration:completion:)`.
    func updateRecordExample(sysId: String, fields: [FieldName: FieldValue]) {
        let (writeOptions, readConfiguration) = (FieldWriteOptions(), FieldReadConfiguration())
        tableService.updateRecord(
            sysId: sysId, in: tableName, with: fields, writeOptions: writeOptions, configuration: readConfiguration
        ) { [weak self] result in
            switch result {
            case .success(let data):
                self?.publish(data: data)
            case .failure(let error):
                // Failed to update with NowDataError
                self?.publish(result: .failure(error))  // Correction: a case needs a statement.
            }
        }
    }
}
