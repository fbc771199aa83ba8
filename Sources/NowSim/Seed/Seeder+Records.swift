import Foundation
import NowQuery
import NowSQLite

/// Journal entries and attachments of seeded incidents (`--seed sys_journal_field=N,sys_attachment=N`):
/// opt-in, so that plans without them seed exactly the rows they seeded before.
///
/// Both go to incidents already in the database (seeded before them in the same run, or earlier),
/// picked at random; a database without incidents gets none. Entries and attachments are dated
/// after their incident's creation (within the seeded time window) and written by seeded users.
extension Seeder {
    /// The sys_ids and creation times of the incidents in the database, in insertion order.
    private func incidentPool() throws -> [(sysId: String, created: Int)] {
        try connection.withStatement(
            "SELECT sys_id, sys_created_on FROM task WHERE sys_class_name = 'incident' ORDER BY rowid", cached: false
        ) { statement in
            var pool: [(String, Int)] = []
            while try statement.step() {
                guard let id = statement.text(0) else { continue }
                let created = statement.text(1).flatMap { TableAPIDateFormat.date(from: $0) }
                pool.append((id, created.map { Int($0.timeIntervalSince1970) } ?? Self.windowStart))
            }
            return pool
        }
    }

    /// A time after `created`, up to 30 days later, not after the window's end, as the Table API writes it.
    private static func laterTime(than created: Int, _ random: inout SeedRandom) -> String {
        let time = min(Self.windowEnd - 1, created + 60 + random.below(30 * 86_400))
        return TableAPIDateFormat.string(from: Date(timeIntervalSince1970: TimeInterval(time)))
    }

    /// The incidents to pick from and the random stream of `table`'s rows; `nil` (with 0 rows
    /// recorded) when there is no incident or no user to write them.
    private func incidentsAndRandom(for table: String) throws -> ([(sysId: String, created: Int)], SeedRandom)? {
        let incidents = try incidentPool()
        guard !incidents.isEmpty, !pools.users.isEmpty else {
            record(table, rows: 0)
            return nil
        }
        return (incidents, randomStream(table, after: try existingCount(of: table)))
    }

    /// `count` `work_notes` and `comments` entries on random incidents.
    func seedJournalEntries(_ count: Int) throws {
        guard let (incidents, stream) = try incidentsAndRandom(for: "sys_journal_field") else { return }
        var random = stream
        let openings = [
            "Called the user", "Checked the logs", "Escalated to the network team", "Waiting for the vendor",
            "Applied the workaround", "Rebooted the server", "User confirmed the fix", "Reassigned",
        ]
        let details = [
            "no errors since 09:00.", "see the attached screenshot.", "ticket \"INC-42\" & <b>bold</b> text.",
            "the VPN drops every 30 minutes.", "Ümlaut, café, naïve — and a tab\there.", "line one\nline two.",
        ]
        for _ in 0..<count {
            let incident = random.pick(incidents)
            let user = pools.userNames[random.below(pools.users.count)]
            let time = Self.laterTime(than: incident.created, &random)
            let element = random.percent(60) ? "work_notes" : "comments"
            let value = random.pick(openings) + ": " + random.pick(details)
            try PlatformRows.insert(
                into: "sys_journal_field",
                [
                    ("sys_id", random.sysID().string), ("name", "incident"), ("element", element),
                    ("element_id", incident.sysId), ("value", value),
                ] + PlatformRows.systemFields(table: "sys_journal_field", user: user, now: time), db: connection)
        }
        record("sys_journal_field", rows: count)
    }

    /// `count` attachments on random incidents, in rotation: a text log, a PNG image, a binary blob;
    /// names with spaces, `/`, `..` and non-ASCII letters, and repeated names.
    func seedAttachments(_ count: Int) throws {
        guard let (incidents, stream) = try incidentsAndRandom(for: "sys_attachment") else { return }
        var random = stream
        let names = [
            ("error log.txt", "text/plain"), ("screenshot.png", "image/png"), ("dump.bin", "application/octet-stream"),
            ("logs/../app.log", "text/plain"), ("Überblick été.png", "image/png"),
            ("core dump", "application/octet-stream"),
        ]
        for index in 0..<count {
            let incident = random.pick(incidents)
            let user = pools.userNames[random.below(pools.users.count)]
            let time = Self.laterTime(than: incident.created, &random)
            let (name, type) = names[index % names.count]
            let bytes: [UInt8]
            switch type {
            case "text/plain":
                let lines = (0..<random.between(5...80)).map { line in
                    "2025-06-0\(line % 9 + 1) 12:00:\(String(format: "%02d", line % 60)) ERROR request \(random.below(100_000)) failed\n"
                }
                bytes = Array(lines.joined().utf8)
            case "image/png":
                bytes = Self.png(width: random.between(1...1920), height: random.between(1...1080), &random)
            default:
                bytes = (0..<random.between(100...65_536)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
            }
            let file = AttachmentStore.NewFile(
                fileName: name, contentType: type, tableName: "incident", tableSysId: incident.sysId)
            _ = try bytes.withUnsafeBytes { buffer in
                try AttachmentStore.insert(
                    buffer, as: file, user: user, now: time, db: connection, newSysId: { random.sysID().string })
            }
        }
        record("sys_attachment", rows: count)
    }

    /// The bytes of a PNG file's signature and header chunk with the given size, followed by a little
    /// noise: enough for the instance's image size, not a picture anyone can open.
    private static func png(width: Int, height: Int, _ random: inout SeedRandom) -> [UInt8] {
        func big32(_ value: Int) -> [UInt8] { (0..<4).map { UInt8(truncatingIfNeeded: value >> (24 - 8 * $0)) } }
        var bytes: [UInt8] = [0x89, 0x50, 0x4E, 0x47, 0x0D, 0x0A, 0x1A, 0x0A] + big32(13) + Array("IHDR".utf8)
        bytes += big32(width) + big32(height) + [8, 2, 0, 0, 0]
        bytes += (0..<random.between(64...4096)).map { _ in UInt8(truncatingIfNeeded: random.next()) }
        return bytes
    }
}
