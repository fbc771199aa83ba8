import Foundation
import NowQuery
import NowSimTesting
import Testing

/// `sys_updated_on`, `sys_updated_by` and `sys_mod_count` kept on every update, through the Table API
/// and the Batch API, and left to the caller with `sysparm_suppress_auto_sys_field=true` (ref §2.4, §5);
/// each test uses its own nowsim, since it writes.
@Suite(.timeLimit(.minutes(5))) struct UpdateSysFieldsTests {
    let sim: NowSimInstance
    init() async throws {
        sim = try await NowSimInstance.start(arguments: [
            "--seed", "incident=150", "--seed-value", "9", "--user", "admin:admin:admin", "--user", "agent:pw:itil",
        ])
    }

    /// The current time in the Table API's UTC format, as nowsim's clock (the same machine's) reads it.
    private static func now() -> String { TableAPIDateFormat.string(from: Date()) }

    /// The system fields of `count` incidents in sys_id order.
    private func incidents(_ count: Int, query: String = "ORDERBYsys_id") async throws -> [[String: String]] {
        let list = try await sim.request(
            "/api/now/table/incident",
            query: [
                ("sysparm_query", query), ("sysparm_limit", String(count)),
                ("sysparm_fields", "sys_id,sys_updated_on,sys_updated_by,sys_mod_count,short_description"),
            ])
        #expect(list.status == 200)
        return list.resultList.map { row in row.compactMapValues { $0 as? String } }
    }

    private func read(_ sysId: String) async throws -> [String: String] {
        let response = try await sim.request("/api/now/table/incident/\(sysId)")
        #expect(response.status == 200)
        return response.resultObject.compactMapValues { $0 as? String }
    }

    /// Runs `items` (id, method, url, JSON body) in one Batch API call as `user`; the status per id.
    private func batch(_ items: [(String, String, String, String)], user: String = "admin", password: String = "admin")
        async throws -> [String: Int]
    {
        let requests = items.map { item in
            let body = Data(item.3.utf8).base64EncodedString()
            return #"{"id":"\#(item.0)","method":"\#(item.1)","url":"\#(item.2)","body":"\#(body)","#
                + #""headers":[{"name":"Content-Type","value":"application/json"},{"name":"Accept","value":"application/json"}]}"#
        }
        let body = #"{"batch_request_id":"updates","rest_requests":[\#(requests.joined(separator: ","))]}"#
        let response = try await sim.request(
            "POST", "/api/now/v1/batch", body: Data(body.utf8), user: user, password: password)
        #expect(response.status == 200)
        let object = try #require(response.json as? [String: Any])
        #expect((object["unserviced_requests"] as? [Any])?.isEmpty ?? true)
        let served = try #require(object["serviced_requests"] as? [[String: Any]])
        var statuses: [String: Int] = [:]
        for entry in served {
            if let id = entry["id"] as? String { statuses[id] = entry["status_code"] as? Int }
        }
        return statuses
    }

    @Test func tableAPIUpdatesBumpTheModCountAndStampTheTime() async throws {
        let record = try #require(try await incidents(1).first)
        let sysId = try #require(record["sys_id"])
        let count = try #require(record["sys_mod_count"].flatMap { Int($0) })
        let seededOn = try #require(record["sys_updated_on"])
        let before = Self.now()
        // Seeded records were last updated in the past, so the new stamp is visibly nowsim's clock.
        #expect(seededOn < before)
        var expected = count
        for (method, user, password) in [("PATCH", "admin", "admin"), ("PUT", "agent", "pw"), ("PATCH", "agent", "pw")]
        {
            // Without suppression, system fields in the body are ignored: the platform maintains them.
            let response = try await sim.request(
                method, "/api/now/table/incident/\(sysId)",
                body: Data(
                    #"{"short_description":"\#(method) by \#(user)","sys_updated_on":"2001-01-01 00:00:00","sys_mod_count":"99","sys_updated_by":"mallory"}"#
                        .utf8),
                user: user, password: password)
            let after = Self.now()
            #expect(response.status == 200)
            expected += 1
            let echoed = response.resultObject.compactMapValues { $0 as? String }
            #expect(echoed["sys_mod_count"] == String(expected))
            let stored = try await read(sysId)
            #expect(stored["sys_mod_count"] == String(expected), "\(method)")
            #expect(stored["sys_updated_by"] == user)
            #expect(stored["short_description"] == "\(method) by \(user)")
            let updatedOn = try #require(stored["sys_updated_on"])
            #expect(before <= updatedOn && updatedOn <= after, "\(before) … \(updatedOn) … \(after)")
        }
        // A failed update (no such record) changes nothing.
        let missing = try await sim.request(
            "PATCH", "/api/now/table/incident/0123456789abcdef0123456789abcdef",
            body: Data(#"{"short_description":"x"}"#.utf8))
        #expect(missing.status == 404)
        #expect(try await read(sysId)["sys_mod_count"] == String(expected))
    }

    @Test func batchUpdatesBumpTheModCountAndStampTheTime() async throws {
        let records = try await incidents(3)
        #expect(records.count == 3)
        let ids = records.compactMap { $0["sys_id"] }
        let counts = records.compactMap { $0["sys_mod_count"].flatMap { Int($0) } }
        let before = Self.now()
        let statuses = try await batch(
            [
                ("p0", "PATCH", "/api/now/table/incident/\(ids[0])", #"{"short_description":"batch patch"}"#),
                ("u1", "PUT", "/api/now/table/incident/\(ids[1])", #"{"short_description":"batch put"}"#),
                ("p1", "PATCH", "/api/now/v2/table/incident/\(ids[1])", #"{"urgency":"1"}"#),
                (
                    "p2", "PATCH", "/api/now/table/task/\(ids[2])",
                    #"{"sys_mod_count":"99","sys_updated_on":"2001-01-01 00:00:00"}"#
                ),
            ], user: "agent", password: "pw")
        let after = Self.now()
        #expect(statuses == ["p0": 200, "u1": 200, "p1": 200, "p2": 200])
        for (index, bumps) in [(0, 1), (1, 2), (2, 1)] {
            let stored = try await read(ids[index])
            #expect(stored["sys_mod_count"] == String(counts[index] + bumps), "record \(index)")
            #expect(stored["sys_updated_by"] == "agent")
            let updatedOn = try #require(stored["sys_updated_on"])
            #expect(before <= updatedOn && updatedOn <= after, "\(before) … \(updatedOn) … \(after)")
        }
        #expect(try await read(ids[0])["short_description"] == "batch patch")
        #expect(try await read(ids[1])["short_description"] == "batch put")
        #expect(try await read(ids[1])["urgency"] == "1")
    }

    @Test func suppressionLetsTheCallerSetTheUpdateTime() async throws {
        let stamp = "2026-12-01 10:00:00"
        // Through the Table API: the caller's sys_updated_on and sys_updated_by stick, and the
        // platform does not count the update.
        let first = try #require(try await incidents(1).first)
        let firstId = try #require(first["sys_id"])
        let response = try await sim.request(
            "PATCH", "/api/now/table/incident/\(firstId)",
            query: [("sysparm_suppress_auto_sys_field", "true")],
            body: Data(
                #"{"short_description":"backdated","sys_updated_on":"\#(stamp)","sys_updated_by":"loader"}"#.utf8))
        #expect(response.status == 200)
        let stored = try await read(firstId)
        #expect(stored["sys_updated_on"] == stamp)
        #expect(stored["sys_updated_by"] == "loader")
        #expect(stored["sys_mod_count"] == first["sys_mod_count"])
        #expect(stored["short_description"] == "backdated")

        // Through the Batch API: a hundred more rows share that one second.
        let others = try await incidents(101, query: "sys_id>\(firstId)^ORDERBYsys_id")
        #expect(others.count == 101)
        let items = others.enumerated().map { index, record in
            (
                "s\(index)", "PATCH",
                "/api/now/table/incident/\(record["sys_id"] ?? "")?sysparm_suppress_auto_sys_field=true",
                #"{"sys_updated_on":"\#(stamp)"}"#
            )
        }
        let statuses = try await batch(items)
        #expect(statuses.count == 101 && statuses.values.allSatisfy { $0 == 200 })
        let sharing = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "sys_updated_on=\(stamp)"), ("sysparm_limit", "1"), ("sysparm_fields", "sys_id")])
        #expect(sharing.header("X-Total-Count") == "102")
        // Their mod counts were left alone.
        let after = try await incidents(101, query: "sys_id>\(firstId)^ORDERBYsys_id")
        #expect(after.map { $0["sys_mod_count"] } == others.map { $0["sys_mod_count"] })

        // Without the parameter the same body is ignored for the system fields.
        let before = Self.now()
        let normal = try await sim.request(
            "PATCH", "/api/now/table/incident/\(firstId)", body: Data(#"{"sys_updated_on":"\#(stamp)"}"#.utf8))
        #expect(normal.status == 200)
        let bumped = try await read(firstId)
        #expect(bumped["sys_updated_on"].map { $0 >= before } == true, "\(before) … \(bumped)")
        #expect(bumped["sys_mod_count"] == String((Int(first["sys_mod_count"] ?? "") ?? -10) + 1))
    }
}
