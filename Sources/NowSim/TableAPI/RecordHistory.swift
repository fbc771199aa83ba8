import Foundation
import NowQuery
import NowSQLite

/// What a Table API write leaves besides the record: journal entries (`sys_journal_field`) and field
/// history (`sys_audit`), as an instance keeps them (docs/nowsim-records.md).
///
/// **Journal fields** (internal type `journal`, `journal_input`; `work_notes` and `comments` on
/// `task`): a written value is not stored in the record. A non-empty one (after trimming white space,
/// [INF]) becomes one `sys_journal_field` row: `name` the record's class, `element` the field,
/// `element_id` the record's sys_id, `value` the text, `sys_created_on`/`sys_created_by` the
/// write's time and caller (ref §5, journal fields; [3P] "Learning ServiceNow": "Journal fields
/// technically don't store data in the table that the Journal field is on, but instead, create
/// entries in the Journal Entries [sys_journal_field] table"). Reading the field answers `""` in
/// value mode and the rendered entries in display mode (``RecordProjection``).
///
/// **Audit** of the classes in ``auditedClasses``: an update writes one `sys_audit` row per field
/// whose value changed (`tablename` the record's class, `documentkey` its sys_id, `fieldname`,
/// `oldvalue`, `newvalue`, `user` and `sys_created_by` the caller, `sys_created_on` the write's
/// time, `record_checkpoint` the record's `sys_mod_count` after the write, `internal_checkpoint` a
/// new increasing hex number, `reason` empty); `sys_` fields are not audited ([DOC] Helsinki
/// r_ExemptedTableInformation: "Any field that begins with the sys_ prefix (system fields) except
/// the sys_class_name and sys_domain_id columns"). An insert is audited too ([DOC] Geneva
/// c_UnderstandingTheSysAuditTable: "The system tracks inserts and changes to audited records"),
/// one row per non-empty field with an empty `oldvalue` and `record_checkpoint` 0 [INF: the shape of
/// insert rows]. A journal entry writes a row with `oldvalue` `JOURNAL FIELD ADDITION` and the text
/// as `newvalue` ([3P] scripts that read sys_audit skip rows with that old value).
enum RecordHistory {
    /// The internal types whose values are journal entries.
    static let journalTypes: Set<String> = ["journal", "journal_input"]

    /// The classes whose writes are audited: the task tables, audited by default on an instance ([DOC]
    /// London audited-tables-2: "By default, the system tracks changes to the incident, change, and
    /// problem tables, among others"; `task` itself [INF]). Audit flags are per table on an
    /// instance, not inherited, so this is a list of classes.
    static let auditedClasses: Set<String> = ["task", "incident", "problem", "change_request"]

    /// The `oldvalue` of a journal entry's audit row.
    static let journalAddition = "JOURNAL FIELD ADDITION"

    /// Removes `table`'s journal fields from `values` and returns the entries to write, field by
    /// field in name order (empty values dropped).
    static func takeJournalEntries(from values: inout [String: String?], table: TableDefinition) -> [(
        element: String, text: String
    )] {
        var entries: [(element: String, text: String)] = []
        for name in values.keys.sorted() {
            guard let column = table.column(name), journalTypes.contains(column.internalType) else { continue }
            let text = values.removeValue(forKey: name).flatMap { $0 } ?? ""
            if !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty { entries.append((name, text)) }
        }
        return entries
    }

    /// Whether the fields of `element` are audited on `table`.
    static func isAudited(_ element: String, in table: TableDefinition) -> Bool {
        guard let column = table.column(element), !journalTypes.contains(column.internalType) else { return false }
        return !element.hasPrefix("sys_") || element == "sys_class_name" || element == "sys_domain_id"
    }

    /// The stored values of `columns` of record `sysId` in `storageTable` (absent when NULL).
    static func storedValues(
        of sysId: String, columns: [String], storageTable: String, db: SQLiteConnection
    ) throws -> [String: String] {
        let list = columns.map(SQLIdentifier.quote).joined(separator: ", ")
        return try db.withStatement(
            "SELECT \(list) FROM \(SQLIdentifier.quote(storageTable)) WHERE \"sys_id\" = ?", cached: false
        ) { statement in
            try statement.bind([.text(sysId)])
            guard try statement.step() else { return [:] }
            var values: [String: String] = [:]
            for (index, column) in columns.enumerated() {
                if let text = statement.text(Int32(index)) { values[column] = text }
            }
            return values
        }
    }

    /// One write's journal entries and audit rows for record `sysId` of class `className`.
    struct Write {
        var className: String
        var sysId: String
        var user: String
        var now: String
        /// `sys_mod_count` after the write.
        var modCount: String

        /// Inserts the `sys_journal_field` rows of `entries` and, for an audited class, their audit rows.
        func journal(_ entries: [(element: String, text: String)], db: SQLiteConnection) throws {
            for entry in entries {
                try PlatformRows.insert(
                    into: "sys_journal_field",
                    [
                        ("sys_id", RecordWriter.newSysId()), ("name", className), ("element", entry.element),
                        ("element_id", sysId), ("value", entry.text),
                    ] + PlatformRows.systemFields(table: "sys_journal_field", user: user, now: now), db: db)
                try audit(entry.element, old: RecordHistory.journalAddition, new: entry.text, db: db)
            }
        }

        /// Inserts the audit rows of the fields whose value goes from `old` to `new` (a field absent
        /// from `new` is not written; an absent old value is empty).
        func changes(old: [String: String], new: [String: String?], table: TableDefinition, db: SQLiteConnection)
            throws
        {
            for name in new.keys.sorted() where RecordHistory.isAudited(name, in: table) {
                let before = old[name] ?? ""
                let after = new[name].flatMap { $0 } ?? ""
                if before != after { try audit(name, old: before, new: after, db: db) }
            }
        }

        /// One `sys_audit` row, when the class is audited.
        func audit(_ field: String, old: String, new: String, db: SQLiteConnection) throws {
            guard RecordHistory.auditedClasses.contains(className) else { return }
            try PlatformRows.insert(
                into: "sys_audit",
                [
                    ("sys_id", RecordWriter.newSysId()), ("tablename", className), ("documentkey", sysId),
                    ("fieldname", field), ("oldvalue", old), ("newvalue", new), ("user", user),
                    ("record_checkpoint", modCount), ("internal_checkpoint", Checkpoints.shared.next()),
                ] + PlatformRows.systemFields(table: "sys_audit", user: user, now: now), db: db)
        }
    }
}

/// `internal_checkpoint` values: the milliseconds since 1970 in hex followed by a 7-digit hex
/// sequence, increasing within the process (the instance's checkpoints are hex numbers of this
/// kind [INF]).
final class Checkpoints: @unchecked Sendable {
    // @unchecked: `sequence` is only touched under `lock`.
    static let shared = Checkpoints()
    private let lock = NSLock()
    private var sequence: UInt64 = 0

    func next() -> String {
        let millis = UInt64(max(0, Date().timeIntervalSince1970 * 1000))
        let number = lock.withLock {
            sequence += 1
            return sequence & 0x0FFF_FFFF
        }
        return String(millis, radix: 16) + String(repeating: "0", count: 7 - String(number, radix: 16).count)
            + String(number, radix: 16)
    }
}
