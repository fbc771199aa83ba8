import Foundation
import NowData
import Testing

extension SeedExamples {
    /// Seed "NowTableService-Klasse — iOS" (000), the `NowDataError` list every method documents: each case
    /// made in its documented form, and the documented `badResponse(statusCode:)` as nowsim produces it.
    @Suite(.serialized, .timeLimit(.minutes(5))) struct NowDataErrorSeedTests {
        struct Failure: Error {}

        @Test func everyDocumentedCaseConstructs() {
            let decoding = DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "x"))
            let encoding = EncodingError.invalidValue(0, .init(codingPath: [], debugDescription: "x"))
            let errors: [NowDataError] = [
                .accessToken(.accessTokenRetrievalFailed),
                .accessToken(.userSessionError(Failure())),
                .attachmentValidation,
                .badResponse(statusCode: 404),
                .cannotDecodeModel(decoding),
                .cannotDecodeProperty(type: Int.self, from: "four"),
                .cannotEncodeModel(encoding),
                .cannotParseResponse,
                .invalidURL,
                .missingAttachmentMetadata,
                .missingServiceConfiguration,
                .missingSysID,
                .network(.genericError("text")),
                .network(.operationCanceled),
                .network(.serviceDisabled),
                .network(.serverError(Failure())),
                .network(.systemError(Failure())),
            ]
            for error in errors {
                switch error {
                case .badResponse(let statusCode, _):
                    #expect(statusCode == 404)
                    #expect("\(error)" == "HTTP 404 for an unrecorded request")
                case .cannotDecodeProperty(let type, let from):
                    #expect(type == Int.self && from == "four")
                default:
                    #expect(!"\(error)".isEmpty)
                }
            }
            #expect(errors[3].statusCode == 404)
        }

        @Test func badResponseFromTheInstance() async throws {
            let service = try await SeedHarness.tableService()
            do {
                _ = try await service.record(with: "00000000000000000000000000000000", from: "incident")
                Issue.record("a missing record was found")
            } catch {
                guard case .badResponse(statusCode: 404, let context) = error else {
                    Issue.record("expected badResponse(statusCode: 404), got \(error)")
                    return
                }
                #expect(context.table == "incident" && error.statusCode == 404)
            }
        }
    }
}
