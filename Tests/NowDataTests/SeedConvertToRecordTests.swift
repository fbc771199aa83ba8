import Foundation
import NowData
import NowSimTesting
import Testing

/// The `createRecord` examples of the SDK documentation (seed 000), as written there: the async form and
/// the completion form, each turning the returned data into a ``NowRecord`` with `convertToRecord()`
/// without `try`.
@Suite(.serialized, .timeLimit(.minutes(3))) struct SeedConvertToRecordTests {
    let server: NowSimInstance

    init() async throws {
        server = try await SharedNowSim.get()
    }

    @Test func asyncCreateRecordExampleCompilesAndRunsAsWritten() async throws {
        let example = SeedCreateRecordExample(service: makeService())
        let created = try #require(await example.createAsync())
        #expect(created.sysId.count == 32)
        #expect(created["short_description"]?.value == "test description")
        try await example.tableService.deleteRecord(sysId: created.sysId, from: example.tableName)
    }

    @Test func completionCreateRecordExampleCompilesAndRunsAsWritten() async throws {
        let example = SeedCreateRecordExample(service: makeService())
        let created = await example.createWithCompletion()
        // The example reads back only number and short_description, so the record has no sys_id.
        #expect(created.fields.keys.sorted() == ["number", "short_description"])
        #expect(created["short_description"]?.value == "test description")
        let number = try #require(created["number"]?.value)
        #expect(number.hasPrefix("PRB"))
        let stored = try await example.tableService.records(
            from: example.tableName,
            configuration: FetchConfiguration(
                filter: Filter(query: "number=\(number)"),
                readConfiguration: FieldReadConfiguration(includeFields: ["sys_id", "short_description"])))
        let records = try stored.decodeRecords()
        #expect(records.count == 1)
        #expect(records.first?["short_description"]?.value == "test description")
        for record in records {
            try await example.tableService.deleteRecord(sysId: record.sysId, from: example.tableName)
        }
    }

    /// `convertToRecord()` does not throw: a body without a record gives an empty record, and
    /// `decodeRecord()` gives the reason.
    @Test func convertToRecordNeverThrowsAndDecodeRecordSaysWhy() {
        let notARecord = Data(#"{"error":{"message":"No Record found"}}"#.utf8)
        #expect(notARecord.convertToRecord().sysId.isEmpty)
        #expect(notARecord.convertToRecord().fields.isEmpty)
        #expect(notARecord.convertToRecords().isEmpty)
        #expect(throws: NowDataError.self) { try notARecord.decodeRecord() }
        #expect(throws: NowDataError.self) { try notARecord.decodeRecords() }

        let list = Data(#"{"result":[{"sys_id":"a1","number":"PRB1"},{"sys_id":"b2"}]}"#.utf8)
        #expect(list.convertToRecord().sysId == "a1")
        #expect(list.convertToRecords().map(\.sysId) == ["a1", "b2"])
        #expect(list.convertToRecords() == (try? list.decodeRecords()))
    }

    func makeService() -> NowTableService {
        NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin")))
    }
}

/// The seed's two `createRecord` examples inside the smallest scaffolding they need (`tableService`,
/// `fields`, `tableName`, `writeOptions`, `configuration`, a class for `[weak self]`); the statements
/// between the markers are the documentation's, character for character, apart from indentation and the
/// two lines that hand the result to the test.
final class SeedCreateRecordExample: Sendable {
    let tableService: NowTableService
    let tableName = "problem"
    let fields: [FieldName: FieldValue] = ["short_description": "test description"]
    let writeOptions: FieldWriteOptions? = nil
    let configuration: FieldReadConfiguration? = nil

    init(service: NowTableService) {
        tableService = service
    }

    // swift-format-ignore
    func createAsync() async -> NowRecord? {
        var handedOver: NowRecord?
        // Seed 000, "NowTableService -- createRecord(…) asynchrone Würfe":
        do {
            let dataResult: Data = try await tableService.createRecord(with: fields, in: tableName, writeOptions: writeOptions, configuration: configuration)
            let recordResult: NowRecord = dataResult.convertToRecord()
            handedOver = recordResult
        } catch {
            print("Record creation failed with NowDataError: \(error)")
        }
        return handedOver
    }

    // swift-format-ignore
    func createWithCompletion() async -> NowRecord {
        await withCheckedContinuation { (handOver: CheckedContinuation<NowRecord, Never>) in
            // Seed 000, "NowTableService - createRecord(…, Abschluss: …)":
            let fields = ["short_description" : "test description"]
            let writeOptions: FieldWriteOptions = [.suppressAutoSysField, .treatInputValuesAsDisplayValues]
            let readConfiguration = FieldReadConfiguration(includeFields: ["number", "short_description"])

            tableService.createRecord(with: fields, in: tableName, writeOptions: writeOptions, configuration: readConfiguration) { [weak self] result in
              switch result {
                case .success(let dataResult):
                  let recordResult: NowRecord = dataResult.convertToRecord()
                  _ = self
                  handOver.resume(returning: recordResult)
                case .failure(let error):
                   print("Record creation failed with NowDataError: \(error)")
                   handOver.resume(returning: NowRecord(sysId: "", fields: [:]))
              }
            }
        }
    }
}
