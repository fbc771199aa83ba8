import Foundation
import NowData
import Testing

@testable import NowData

/// The instance's clock from its `Date` header.
extension NowSimIntegrationTests {
    @Test func theInstanceDateComesFromTheDateHeader() async throws {
        let service = NowTableService(
            configuration: NowServiceConfiguration(
                instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin")))
        let before = Date().timeIntervalSince1970.rounded(.down)
        let instance = try #require(try await service.instanceDate(of: "incident"))
        let after = Date().timeIntervalSince1970
        // nowsim runs on this machine's clock; the header has whole seconds.
        #expect(instance.timeIntervalSince1970 >= before && instance.timeIntervalSince1970 <= after)
    }

    @Test func httpDatesParseInTheFixedFormOnly() throws {
        let date = try #require(NowTableService.httpDate("Tue, 01 Dec 2026 18:53:21 GMT"))
        #expect(date.timeIntervalSince1970 == 1_796_151_201)
        for text in [
            "", "Tue, 01 Dec 2026 18:53:21", "Tue, 01 Dec 2026 18:53:21 UTC", "Tue, 32 Dec 2026 18:53:21 GMT",
            "Tue, 31 Feb 2026 18:53:21 GMT", "Tuesday, 01-Dec-26 18:53:21 GMT", "Tue, 01 Dez 2026 18:53:21 GMT",
            "Tue, 01 Dec 2026 24:00:00 GMT",
        ] {
            #expect(NowTableService.httpDate(text) == nil, "\(text)")
        }
    }
}
