import Foundation
import NowSimTesting
import Testing

@testable import NowETL

/// What the incremental tests do to a nowsim's incidents between (and during) runs, and how they read
/// the table and the runs' outputs back.
struct IncidentTable {
    let sim: NowSimInstance

    /// The fields compared between the table and the union of the runs.
    static let fields = ["number", "short_description", "sys_updated_on"]

    /// Every incident: sys_id → the compared fields, read by keyset pages straight from the Table API.
    func contents() async throws -> [String: [String: String]] {
        try await SimRecords.fields(sim, "incident", Self.fields)
    }

    /// sys_ids of every incident, in sys_id order.
    func sysIDs() async throws -> [String] {
        try await contents().keys.sorted()
    }

    /// PATCHes `short_description` of each record (nowsim stamps sys_updated_on and sys_mod_count).
    func update(_ sysIDs: [String], text: String) async throws {
        for sysID in sysIDs {
            let body = try JSONSerialization.data(withJSONObject: ["short_description": "\(text) \(sysID.prefix(6))"])
            let response = try await sim.request("PATCH", "/api/now/table/incident/\(sysID)", body: body)
            try #require(response.status == 200, "PATCH \(sysID): \(response.status)")
        }
    }

    /// PATCHes `fields` of each record.
    func patch(_ sysIDs: [String], _ fields: [String: String]) async throws {
        for sysID in sysIDs {
            let body = try JSONSerialization.data(withJSONObject: fields)
            let response = try await sim.request("PATCH", "/api/now/table/incident/\(sysID)", body: body)
            try #require(response.status == 200, "PATCH \(sysID): \(response.status)")
        }
    }

    /// Updates every record in one Batch API call, each to `short_description` and — with
    /// `sysparm_suppress_auto_sys_field=true` — to exactly `updatedOn`: hundreds of rows in one second.
    func updateInOneSecond(_ sysIDs: [String], text: String, updatedOn: String) async throws {
        var items: [[String: Any]] = []
        for (index, sysID) in sysIDs.enumerated() {
            let body = try JSONSerialization.data(withJSONObject: [
                "short_description": "\(text) \(sysID.prefix(6))", "sys_updated_on": updatedOn,
            ])
            items.append([
                "id": String(index), "method": "PATCH",
                "url": "/api/now/table/incident/\(sysID)?sysparm_suppress_auto_sys_field=true",
                "headers": [
                    ["name": "Content-Type", "value": "application/json"],
                    ["name": "Accept", "value": "application/json"],
                ],
                "body": body.base64EncodedString(),
            ])
        }
        let request = try JSONSerialization.data(withJSONObject: ["batch_request_id": "b", "rest_requests": items])
        let response = try await sim.request("POST", "/api/now/v1/batch", body: request)
        try #require(response.status == 200, "batch: \(response.status)")
        let serviced = (response.json as? [String: Any])?["serviced_requests"] as? [[String: Any]] ?? []
        try #require(serviced.count == sysIDs.count, "batch serviced \(serviced.count) of \(sysIDs.count)")
        for item in serviced {
            try #require((item["status_code"] as? Int) == 200, "batch item: \(item)")
        }
    }

    /// Inserts `count` incidents; returns their sys_ids.
    @discardableResult
    func insert(_ count: Int, text: String) async throws -> [String] {
        var created: [String] = []
        for index in 0..<count {
            let body = try JSONSerialization.data(withJSONObject: ["short_description": "\(text) \(index)"])
            let response = try await sim.request("POST", "/api/now/table/incident", body: body)
            try #require(response.status == 201, "POST: \(response.status)")
            created.append(response.resultObject["sys_id"] as? String ?? "")
        }
        return created
    }

    /// Inserts one incident with the given sys_id and `sys_updated_on` (as a commit that lands late).
    func insert(sysID: String, updatedOn: String, text: String) async throws {
        let body = try JSONSerialization.data(withJSONObject: [
            "sys_id": sysID, "short_description": text, "sys_updated_on": updatedOn,
        ])
        let response = try await sim.request(
            "POST", "/api/now/table/incident", query: [("sysparm_suppress_auto_sys_field", "true")], body: body)
        try #require(response.status == 201, "POST \(sysID): \(response.status)")
    }

    /// Deletes the records (nowsim writes their sys_audit_delete rows).
    func delete(_ sysIDs: [String]) async throws {
        for sysID in sysIDs {
            let response = try await sim.request("DELETE", "/api/now/table/incident/\(sysID)")
            try #require(response.status == 204, "DELETE \(sysID): \(response.status)")
        }
    }
}

/// The runs' outputs as a consumer applies them: `incident-<run_id>.jsonl` files in run order, each
/// row replacing the record's earlier version, each `_deleted_at` row removing the record — read by
/// Python's json module, not by nowetl's code.
struct RunUnion {
    var rows: [String: [String: String]]
    /// `file sys_id` for every sys_id a run delivered twice.
    var duplicates: [String]
    /// The run files applied.
    var files: [String]
    /// Rows per run file (deletion records included), in run order.
    var counts: [Int]
    /// Deletion records per run file.
    var deletions: [Int]

    static let script = """
        import glob, json, os, sys
        out = sys.argv[1]
        fields = sys.argv[2].split(",")
        files = sorted(glob.glob(os.path.join(out, "incident-*.jsonl")))
        union, duplicates, counts, deletions = {}, [], [], []
        for path in files:
            seen, deleted, count = set(), 0, 0
            with open(path, encoding="utf-8") as handle:
                for line in handle:
                    record = json.loads(line)
                    count += 1
                    key = record["sys_id"]
                    if key in seen:
                        duplicates.append(os.path.basename(path) + " " + key)
                    seen.add(key)
                    if record.get("_deleted_at"):
                        deleted += 1
                        union.pop(key, None)
                    else:
                        union[key] = {name: record[name] or "" for name in fields}
            counts.append(count)
            deletions.append(deleted)
        json.dump({"rows": union, "duplicates": duplicates, "files": [os.path.basename(p) for p in files],
                   "counts": counts, "deletions": deletions}, sys.stdout)
        """

    /// Applies the run files of `output` in run-id order (run ids sort by their start second, and the
    /// tests start every run in a second of its own).
    static func read(_ output: String) async throws -> RunUnion {
        let result = try await Subprocess.run(
            Subprocess.tool("python3"), ["-c", script, output, IncidentTable.fields.joined(separator: ",")])
        try #require(result.status == 0, "python3: \(result.stderrText)")
        let object = try #require(try JSONSerialization.jsonObject(with: result.stdout) as? [String: Any])
        return RunUnion(
            rows: object["rows"] as? [String: [String: String]] ?? [:],
            duplicates: object["duplicates"] as? [String] ?? [], files: object["files"] as? [String] ?? [],
            counts: object["counts"] as? [Int] ?? [], deletions: object["deletions"] as? [Int] ?? [])
    }

    /// The records of the union that differ from `table`: missing, extra, or with other values.
    func differences(from table: [String: [String: String]]) -> [String] {
        var problems: [String] = []
        for (sysID, values) in table where rows[sysID] != values {
            problems.append(rows[sysID] == nil ? "missing \(sysID)" : "\(sysID): \(rows[sysID] ?? [:]) ≠ \(values)")
        }
        for sysID in rows.keys where table[sysID] == nil { problems.append("extra \(sysID)") }
        return problems.sorted()
    }
}

enum IncrementalTestClock {
    /// Waits until the wall clock is past the start of the second after now, so that everything done
    /// so far lies at or before the next run's signpost (the last whole second before its start), and
    /// every run starts in a second of its own (its run id sorts after the previous one's).
    static func waitForTheNextSecond() async throws {
        let now = Date().timeIntervalSince1970
        let next = now.rounded(.down) + 1
        try await Task.sleep(for: .milliseconds(Int((next - now) * 1000) + 50))
    }
}
