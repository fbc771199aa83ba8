import NowQuery

/// Seeding of what a migration target's pre-flight reads (docs/table-api.md §11.2, §11.3): business
/// rules, email notifications, flows with their record triggers, and approvals.
///
/// Rules, notifications and flows come from fixed lists (each entry a realistic record on a table a
/// migration writes: `incident`, `sys_user`, `sys_user_group`, `problem`, `change_request`), taken in
/// turn; a list that runs out starts again with " 2", " 3"… after the names. Most are active, one of
/// each list is not, so that a pre-flight has something to leave out. They are only seeded when the
/// plan names them, so no other seeded table changes.
extension Seeder {
    /// A business rule to seed: name, table, when, insert/update/delete, active.
    private static let businessRules:
        [(name: String, table: String, when: String, insert: Bool, update: Bool, delete: Bool, active: Bool)] = [
            ("Incident - set caller's company", "incident", "before", true, true, false, true),
            ("User - normalize email", "sys_user", "before", true, true, false, true),
            ("Group - grant manager role", "sys_user_group", "after", true, true, false, true),
            ("Problem - close related incidents", "problem", "after", false, true, false, true),
            ("Incident - legacy SLA hook", "incident", "async", true, false, false, false),
            ("Change - check conflicts", "change_request", "before", true, true, false, true),
            ("Incident - audit deletion", "incident", "after", false, false, true, true),
        ]

    /// An email notification to seed: name, table, on insert, on update, subject, active.
    private static let notifications:
        [(name: String, table: String, insert: Bool, update: Bool, subject: String, active: Bool)] = [
            (
                "Incident opened for me", "incident", true, false, "Incident ${number} has been opened on your behalf",
                true
            ),
            (
                "Incident assigned to my group", "incident", true, true, "Incident ${number} assigned to your group",
                true
            ),
            ("Welcome new user", "sys_user", true, false, "Welcome to the service desk", true),
            ("Problem closed", "problem", false, true, "Problem ${number} has been closed", false),
            ("Change approved", "change_request", false, true, "Change ${number} is approved", true),
        ]

    /// A flow to seed with its record trigger: name, table, on insert, on update, active.
    private static let flows: [(name: String, table: String, insert: Bool, update: Bool, active: Bool)] = [
        ("Incident triage", "incident", true, false, true),
        ("Onboard new user", "sys_user", true, false, true),
        ("Change request review", "change_request", true, true, true),
        ("Group cleanup (retired)", "sys_user_group", false, true, false),
    ]

    /// The name of entry `index` of a list of `count` names: the name, then " 2", " 3"… each round.
    private static func roundName(_ name: String, index: Int, count: Int) -> String {
        let round = index / count
        return round == 0 ? name : "\(name) \(round + 1)"
    }

    /// The rows `table` holds already (its class only).
    func existingCount(of table: String) throws -> Int {
        try connection.withStatement(
            "SELECT count(*) FROM \(SQLIdentifier.quote(StandardSchema.root(of: table))) WHERE sys_class_name = ?",
            cached: false
        ) { statement in
            try statement.bind(table, at: 1)
            return try statement.step() ? Int(statement.integer(0)) : 0
        }
    }

    /// Writes the system fields of a configuration record created in the foundation window by `admin`.
    private func writeConfigurationFields(
        _ writer: inout RowWriter, _ system: SystemFieldSlots, _ random: inout SeedRandom, className: String,
        sysID: SysIDBits? = nil
    ) {
        let id = sysID ?? random.sysID()
        let created = Self.windowStart - random.below(365 * 86_400)
        system.write(
            to: &writer, sysID: id, className: className, created: created, createdBy: "admin",
            updated: created, updatedBy: "admin", modCount: 0)
    }

    /// Seeds `count` rows of the configuration table `table`: the system fields, then `row` fills in
    /// the rest from the generator and the row's position among all rows of the table.
    private func seedConfiguration(
        _ table: String, count: Int, _ row: (inout RowWriter, inout SeedRandom, Int) -> Void
    ) throws {
        let first = try existingCount(of: table)
        try seedRows(table, count: count, after: first) { writer, random, system, index in
            writeConfigurationFields(&writer, system, &random, className: table)
            row(&writer, &random, first + index)
        }
    }

    func seedBusinessRules(_ count: Int) throws {
        try seedConfiguration("sys_script", count: count) { writer, random, position in
            let rule = Self.businessRules[position % Self.businessRules.count]
            writer.set(column: "name", Self.roundName(rule.name, index: position, count: Self.businessRules.count))
            writer.set(column: "collection", rule.table)
            writer.set(column: "active", rule.active ? "true" : "false")
            writer.set(column: "when", rule.when)
            writer.set(column: "order", String(100 + 10 * random.below(10)))
            writer.set(column: "action_insert", rule.insert ? "true" : "false")
            writer.set(column: "action_update", rule.update ? "true" : "false")
            writer.set(column: "action_delete", rule.delete ? "true" : "false")
            writer.set(column: "action_query", "false")
            writer.set(column: "advanced", "true")
            writer.set(
                column: "script",
                "(function executeRule(current, previous /*null when async*/) {\n})(current, previous);")
        }
    }

    func seedNotifications(_ count: Int) throws {
        try seedConfiguration("sysevent_email_action", count: count) { writer, _, position in
            let notification = Self.notifications[position % Self.notifications.count]
            writer.set(
                column: "name", Self.roundName(notification.name, index: position, count: Self.notifications.count))
            writer.set(column: "collection", notification.table)
            writer.set(column: "active", notification.active ? "true" : "false")
            writer.set(column: "generation_type", "engine")
            writer.set(column: "action_insert", notification.insert ? "true" : "false")
            writer.set(column: "action_update", notification.update ? "true" : "false")
            writer.set(column: "subject", notification.subject)
            writer.set(column: "recipient_fields", notification.table == "sys_user" ? "sys_id" : "caller_id")
            writer.set(column: "weight", "0")
        }
    }

    func seedFlows(_ count: Int) throws {
        let first = try existingCount(of: "sys_hub_flow")
        var random = randomStream("sys_hub_flow", after: first)
        var writer = try makeWriter(for: "sys_hub_flow")
        var triggers = try makeWriter(for: "sys_flow_trigger")
        let system = SystemFieldSlots(writer)
        let triggerSystem = SystemFieldSlots(triggers)
        for index in 0..<count {
            let flow = Self.flows[(first + index) % Self.flows.count]
            let name = Self.roundName(flow.name, index: first + index, count: Self.flows.count)
            let triggerID = random.sysID()
            writeConfigurationFields(
                &triggers, triggerSystem, &random, className: "sys_flow_record_trigger", sysID: triggerID)
            triggers.set(column: "active", flow.active ? "true" : "false")
            triggers.set(column: "table", flow.table)
            triggers.set(column: "on_insert", flow.insert ? "true" : "false")
            triggers.set(column: "on_update", flow.update ? "true" : "false")
            triggers.set(column: "on_delete", "false")
            triggers.set(column: "run_on_extended", "false")
            triggers.set(column: "run_when_setting", "both")
            triggers.set(column: "run_when_user_setting", "any")
            triggers.set(column: "run_flow_in", "background")
            try triggers.insert()

            writeConfigurationFields(&writer, system, &random, className: "sys_hub_flow")
            writer.set(column: "name", name)
            writer.set(
                column: "internal_name",
                name.lowercased().map { $0.isLetter || $0.isNumber ? String($0) : "_" }.joined())
            writer.set(column: "active", flow.active ? "true" : "false")
            writer.set(column: "status", flow.active ? "published" : "draft")
            writer.set(column: "type", "flow")
            writer.set(column: "remote_trigger_id", triggerID.string)
            try writer.insert()
        }
        record("sys_hub_flow", rows: count)
        record("sys_flow_record_trigger", rows: count)
    }

    /// Approvals of change requests (else of problems): `document_id` and `sysapproval` hold the task's
    /// sys_id, `source_table` its table, `approver` a seeded user. Without such tasks nothing is seeded.
    func seedApprovals(_ count: Int) throws {
        let (tasks, sourceTable) =
            pools.changes.isEmpty ? (pools.problems, "problem") : (pools.changes, "change_request")
        guard !tasks.isEmpty, !pools.users.isEmpty else {
            record("sysapproval_approver", rows: 0)
            return
        }
        let first = try existingCount(of: "sysapproval_approver")
        var random = randomStream("sysapproval_approver", after: first)
        var writer = try makeWriter(for: "sysapproval_approver")
        let system = SystemFieldSlots(writer)
        let states = ["requested", "approved", "approved", "rejected", "not_required"]
        for _ in 0..<count {
            let task = random.pick(tasks)
            let approver = random.below(pools.users.count)
            let created = Self.windowStart + random.below(Self.windowEnd - Self.windowStart)
            let state = random.pick(states)
            system.write(
                to: &writer, sysID: random.sysID(), className: "sysapproval_approver", created: created,
                createdBy: "system", updated: state == "requested" ? created : created + random.below(864_000),
                updatedBy: state == "requested" ? "system" : pools.userNames[approver],
                modCount: state == "requested" ? 0 : 1)
            writer.set(column: "approver", pools.users[approver])
            writer.set(column: "sysapproval", task)
            writer.set(column: "source_table", sourceTable)
            writer.set(column: "document_id", task)
            writer.set(column: "state", state)
            try writer.insert()
        }
        record("sysapproval_approver", rows: count)
    }
}
