import Foundation
import NowSimTesting
import Testing

#if canImport(FoundationXML)
    import FoundationXML
#endif

/// `Accept: application/xml` responses and XML request bodies (ref §1.2, §1.5).
@Suite(.timeLimit(.minutes(5))) struct TableAPIXMLTests {
    private func document(_ response: NowSimInstance.Response) throws -> XMLDocument {
        try XMLDocument(data: response.body, options: [])
    }

    private func strings(_ document: XMLDocument, _ xpath: String) throws -> [String] {
        try document.nodes(forXPath: xpath).map { $0.stringValue ?? "" }
    }

    @Test func listsAndRecordsAsXML() async throws {
        let sim = try await SharedNowSim.get()
        let xml = ["Accept": "application/xml"]
        let list = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", "caller_idISNOTEMPTY^ORDERBYnumber"), ("sysparm_limit", "3"),
                ("sysparm_fields", "number,caller_id,short_description"),
            ], headers: xml)
        #expect(list.status == 200)
        #expect(list.header("Content-Type")?.hasPrefix("application/xml") == true)
        let parsed = try document(list)
        #expect(try strings(parsed, "/response/result").count == 3)
        let json = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", "caller_idISNOTEMPTY^ORDERBYnumber"), ("sysparm_limit", "3"),
                ("sysparm_fields", "number,caller_id,short_description"),
            ])
        #expect(try strings(parsed, "/response/result/number") == json.resultList.map { $0["number"] as! String })
        #expect(
            try strings(parsed, "/response/result/short_description")
                == json.resultList.map { $0["short_description"] as! String })
        let links = try strings(parsed, "/response/result/caller_id/link")
        #expect(links.count == 3 && links.allSatisfy { $0.hasPrefix("\(sim.baseURL)/api/now/table/sys_user/") })

        let sysId = try #require(
            (json.resultList.first?["caller_id"] as? [String: String])?["value"])
        let one = try await sim.request(
            "/api/now/table/sys_user/\(sysId)", query: [("sysparm_fields", "name,user_name")], headers: xml)
        #expect(try strings(try document(one), "/response/result/user_name").count == 1)
    }

    @Test func errorsAsXMLAndUnacceptableTypes() async throws {
        let sim = try await SharedNowSim.get()
        let missing = try await sim.request("/api/now/table/u_nothing", headers: ["Accept": "application/xml"])
        #expect(missing.status == 400)
        let parsed = try document(missing)
        #expect(try strings(parsed, "/response/error/message") == ["Invalid table u_nothing"])
        #expect(try strings(parsed, "/response/status") == ["failure"])
        let csv = try await sim.request("/api/now/table/incident", headers: ["Accept": "text/csv"])
        #expect(csv.status == 406)
    }

    @Test func postsAnXMLBody() async throws {
        try await withNowSim(arguments: ["--seed", "incident=1"]) { sim in
            let body =
                "<request><entry><short_description>Fan &amp; noise</short_description><urgency>1</urgency></entry></request>"
            let created = try await sim.request(
                "POST", "/api/now/table/incident", headers: ["Content-Type": "application/xml"], body: Data(body.utf8))
            #expect(created.status == 201)
            #expect(created.resultObject["short_description"] as? String == "Fan & noise")
            #expect(created.resultObject["urgency"] as? String == "1")
            let broken = try await sim.request(
                "POST", "/api/now/table/incident", headers: ["Content-Type": "application/xml"],
                body: Data("<a><b>".utf8))
            #expect(broken.status == 400)
        }
    }
}
