import Foundation
import NowSQLite

/// Which records the `acl-hide` fault hides from one request (``Fault/Kind/aclHide(fraction:run:)``).
///
/// With `run` 1 a record is hidden by its sys_id alone (``FaultInjector/isHidden(sysId:fraction:)``).
/// With `run` K its rank in the table's sys_id order (the records of the table and its children, before
/// any filter: ACLs do not depend on the query) puts it into run `rank / K`, and whole runs are hidden
/// by a hash of the table's name and the run's number, so the same records are hidden whatever window
/// a query asks for. Ranks are counted with `COUNT(*)` on the sys_id index; for rows that arrive in
/// ascending sys_id order (keyset pages) only the stretch since the previous row is counted.
///
/// Used by one request on one connection at a time (not `Sendable`).
struct ACLHiding {
    let fraction: Double
    let run: Int
    let table: TableDefinition
    /// The class condition of `table` (``TableAPI/classFilter(_:usesIndex:)``).
    let classFilter: (sql: String, parameters: [SQLiteValue])
    private var last: (sysId: String, rank: Int)?

    /// Hides `fraction` of `table`'s records, in runs of `run`.
    init(fraction: Double, run: Int, table: TableDefinition, classFilter: (String, [SQLiteValue])) {
        self.fraction = fraction
        self.run = max(1, run)
        self.table = table
        self.classFilter = classFilter
    }

    /// Whether the record `sysId` is hidden from this request.
    mutating func isHidden(_ sysId: UnsafeBufferPointer<UInt8>, db: SQLiteConnection) throws -> Bool {
        if run == 1 || fraction <= 0 || fraction >= 1 {
            return FaultInjector.isHidden(sysId: sysId, fraction: fraction)
        }
        let id = String(decoding: sysId, as: UTF8.self)
        let rank: Int
        if let last, last.sysId < id {
            // Rows below `id` = rows below the previous one + those from it (included) up to `id`.
            rank =
                last.rank + (try count(db, "t.\"sys_id\" >= ? AND t.\"sys_id\" < ?", [.text(last.sysId), .text(id)]))
        } else {
            rank = try count(db, "t.\"sys_id\" < ?", [.text(id)])
        }
        last = (id, rank)
        return Self.isHiddenRun(table: table.name, number: rank / run, fraction: fraction)
    }

    /// Whether run `number` of `table` is hidden when `fraction` of the runs are.
    static func isHiddenRun(table: String, number: Int, fraction: Double) -> Bool {
        var hash: UInt64 = 0xcbf2_9ce4_8422_2325
        for byte in table.utf8 {
            hash ^= UInt64(byte)
            hash &*= 0x0000_0100_0000_01b3
        }
        // SplitMix64's finalizer: neighbouring run numbers must not give neighbouring hashes.
        hash ^= UInt64(truncatingIfNeeded: number)
        hash = (hash ^ (hash >> 30)) &* 0xbf58_476d_1ce4_e5b9
        hash = (hash ^ (hash >> 27)) &* 0x94d0_49bb_1331_11eb
        hash ^= hash >> 31
        return Double(hash % 1_000_000) < fraction * 1_000_000
    }

    private func count(_ db: SQLiteConnection, _ condition: String, _ parameters: [SQLiteValue]) throws -> Int {
        try db.withStatement(
            "SELECT COUNT(*) FROM \(SQLIdentifier.quote(table.storageTable)) AS t WHERE \(classFilter.sql) AND \(condition)"
        ) { statement in
            try statement.bind(classFilter.parameters + parameters)
            _ = try statement.step()
            return statement.integer(0)
        }
    }
}
