import NowSQLite

/// The one side effect of a write nowsim simulates: an active email notification on the written table
/// queues an email, as the instance's notification engine does (docs/table-api.md §11.2).
///
/// A Table API insert (update) of a record of table `T` — also as a Batch API item — finds the
/// `sysevent_email_action` rows with `collection` = `T`, `active` = `true`, `action_insert`
/// (`action_update`) = `true` and `generation_type` `engine` (or empty), and for each writes, in the
/// write's transaction, one `sys_email` row: `type` `send-ready`, `mailbox` `outbox`, `target_table`
/// `T`, `instance` the record's sys_id, `notification` the notification, `subject` its subject (or
/// name), created by the writing user. Nothing is sent; counting the rows (`sys_email` with
/// `type=send-ready^target_table=T`) is counting the emails a migration would have sent.
///
/// Not simulated: notification conditions and recipients (every matching notification fires), event
/// notifications, business rules and flows (their records are read by pre-flights only). The unload
/// import never comes here: an instance's Import XML runs no business rules or notifications.
enum NotificationOutbox {
    /// Which write fired.
    enum Action: String {
        case insert = "action_insert"
        case update = "action_update"
    }

    /// Queues the emails the active notifications on `table` send for `action` of the record `sysId`.
    static func queue(
        table: TableDefinition, sysId: String, action: Action, user: String, now: String, catalog: Catalog,
        db: SQLiteConnection
    ) throws {
        guard catalog.table("sysevent_email_action") != nil, catalog.table("sys_email") != nil else { return }
        let notifications = try db.withStatement(
            """
            SELECT "sys_id", "name", "subject" FROM "sysevent_email_action"
            WHERE "sys_class_name" = 'sysevent_email_action' AND "active" = 'true' AND "collection" = ?
              AND "\(action.rawValue)" = 'true' AND coalesce("generation_type", 'engine') = 'engine'
            ORDER BY rowid
            """
        ) { statement in
            try statement.bind([.text(table.name)])
            var rows: [(sysId: String, subject: String)] = []
            while try statement.step() {
                guard let id = statement.text(0) else { continue }
                rows.append((id, statement.text(2) ?? statement.text(1) ?? ""))
            }
            return rows
        }
        for notification in notifications {
            let values: [(String, String)] = [
                ("sys_id", RecordWriter.newSysId()), ("sys_class_name", "sys_email"), ("sys_created_on", now),
                ("sys_created_by", user), ("sys_updated_on", now), ("sys_updated_by", user), ("sys_mod_count", "0"),
                ("sys_domain", "global"), ("sys_domain_path", "/"), ("type", "send-ready"), ("mailbox", "outbox"),
                ("target_table", table.name), ("instance", sysId), ("notification", notification.sysId),
                ("subject", notification.subject), ("notification_type", "SMTP"),
            ]
            let columns = values.map { SQLIdentifier.quote($0.0) }.joined(separator: ", ")
            let placeholders = Array(repeating: "?", count: values.count).joined(separator: ", ")
            try db.withStatement("INSERT INTO \"sys_email\" (\(columns)) VALUES (\(placeholders))") { statement in
                try statement.bind(values.map { SQLiteValue.text($0.1) })
                try statement.step()
            }
        }
    }
}
