import Foundation
import NowData
import Testing

extension SeedExamples {
    /// Seed "Arbeiten Sie mit Codierern und codierbaren Modellen" (003): the custom `Coder` example, used to
    /// read and write Table API date-times against nowsim.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct CoderSeedTests {
        struct Opened: Codable {
            var number: String
            var openedAt: Date

            enum CodingKeys: String, CodingKey {
                case number
                case openedAt = "opened_at"
            }
        }

        @Test func customCoderReadsTableAPIDates() async throws {
            let myEncoder = JSONEncoder()
            myEncoder.dateEncodingStrategy = .formatted(.nonISO8601UTC)
            let myDecoder = JSONDecoder()
            myDecoder.dateDecodingStrategy = .formatted(.nonISO8601UTC)

            let myCoder: Coder = .custom(myEncoder, myDecoder)

            let service = try await SeedHarness.tableService()
            let configuration = FetchConfiguration(
                limit: 3, readConfiguration: FieldReadConfiguration(includeFields: ["number", "opened_at"]))
            let incidents: [Opened] = try await service.model(
                from: "incident", coder: myCoder, configuration: configuration)
            #expect(incidents.count == 3)
            let text = String(decoding: try myCoder.jsonEncoder.encode(incidents[0]), as: UTF8.self)
            let raw = try await service.records(from: "incident", configuration: configuration).convertToRecords()
            let openedAt = try #require(raw[0].fields["opened_at"]?.value)
            #expect(text.contains(#""opened_at":"\#(openedAt)""#))
            #expect(myCoder.jsonDecoder === myDecoder && Coder.default.jsonEncoder === Coder.default.encoder)
        }
    }
}
