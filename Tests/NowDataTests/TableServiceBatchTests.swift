import Foundation
import NowSimTesting
import Testing

@testable import NowData

/// ``NowTableService/batch(_:)`` against a real nowsim: Table API writes as batch items, each item's own
/// status, and system fields kept under `sysparm_suppress_auto_sys_field`.
@Suite(.timeLimit(.minutes(3))) struct TableServiceBatchTests {
    @Test func writeItemsRunWithTheirOwnStatusesAndKeepTheirSysFields() async throws {
        try await withNowSim(arguments: ["--user", "admin:admin:admin"]) { server in
            let service = NowTableService(
                configuration: NowServiceConfiguration(
                    instanceURL: server.baseURL, authentication: .basic(username: "admin", password: "admin")))
            let kept = "0123456789abcdef0123456789abcdef"
            let fields: [FieldName: FieldValue] = [
                "sys_id": FieldValue(kept), "short_description": "from a batch, \"quoted\"\nand two lines",
                "sys_created_on": "2020-01-02 03:04:05", "sys_created_by": "someone", "sys_mod_count": "7",
            ]
            let insert = try service.batchWriteItem(
                id: "a", table: "incident", fields: fields, writeOptions: .suppressAutoSysField,
                configuration: FieldReadConfiguration(includeFields: ["sys_id"]))
            #expect(insert.method == .post)
            #expect(insert.url == "/api/now/table/incident?sysparm_fields=sys_id&sysparm_suppress_auto_sys_field=true")
            let missing = try service.batchWriteItem(
                id: "b", table: "incident", sysId: "ffffffffffffffffffffffffffffffff",
                fields: ["short_description": "x"])
            #expect(missing.method == .put)
            let response = try await service.batch([insert, missing])
            #expect(response.unserviced.isEmpty)
            #expect(response.serviced.map(\.id) == ["a", "b"])
            #expect(response.serviced.map(\.statusCode) == [201, 404])
            let body = try #require(response.serviced.first?.body)
            let echoed = try #require(try JSONSerialization.jsonObject(with: body) as? [String: [String: String]])
            #expect(echoed["result"]?["sys_id"] == kept)

            let stored = try await server.request(
                "/api/now/table/incident/\(kept)",
                query: [("sysparm_fields", "short_description,sys_created_on,sys_created_by,sys_mod_count")])
            #expect(
                stored.resultObject as? [String: String] == [
                    "short_description": "from a batch, \"quoted\"\nand two lines",
                    "sys_created_on": "2020-01-02 03:04:05", "sys_created_by": "someone", "sys_mod_count": "7",
                ])
        }
    }
}
