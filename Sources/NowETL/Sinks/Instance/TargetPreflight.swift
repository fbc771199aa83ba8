import Foundation
import NowData

/// The pre-flight of an `instance:` output: before a run writes anything (and in `validate --online`),
/// what the target would do with the migration's writes, table by table (``TargetPreflightReport``).
///
/// **Access.** The target must show each table (the sink's access check, ``InstanceTableWriter``: 401
/// or 403 is exit 77). Whether the credentials may *write* cannot be found out without writing: the
/// Table API has no dry run, ACLs (`sys_security_acl`) are readable by administrators only and their
/// scripts and conditions cannot be evaluated by a client, and a role (`sys_user_has_role`) says
/// nothing of a table's ACLs. A refused write stays exit 77 at the first write.
///
/// **Fields.** Every field the migration writes — every field of the source's dictionary, inherited
/// ones included (``TablePlanner``'s migration rule) — must be in the target's dictionary (read with
/// ``FieldDiscovery`` over the target's service), with a compatible type (``compatible(_:_:)``).
///
/// **Choice values.** For each written field that is a choice field on both sides, the values the
/// source's records hold (under the table's `filter:`) must be active choices of the target. The
/// target's list is its `sys_choice` rows of the field (`language` `en` or empty) on the first table of
/// its chain that has any, as the platform takes a child's own list over its parent's; an `inactive`
/// value counts as missing. The source's values are found without reading the table: one GET
/// (`<filter>^<field>ISNOTEMPTY^<field>NOT IN<the target's values>`, one record, the field only)
/// finds a record with a value the target lacks, that value joins the exclusion and the read is repeated
/// — at most ``sampleLimit`` times, so a field that fits costs one request. (A value holding `^`, `,`
/// or `@` cannot be written in an encoded query, ref §4.3: the search stops there, with what it found.)
///
/// **Side effects** (docs/table-api.md §11.2). Per table, over the target's chain of the table and
/// its ancestors (a parent's business rules run for a child's records):
/// - business rules: `sys_script`, `collection` in the chain or `global`, `active`, `action_insert` or
///   `action_update`, any `when` but `display` (which runs when a form is shown, not on a write);
/// - notifications: `sysevent_email_action`, `collection` in the chain, `active`; those sent by the
///   engine on insert or update, by an event (which rules raise on writes) or `triggered` (by a flow);
///   an engine notification without either action is left out;
/// - flows: `sys_flow_record_trigger` rows, `active`, `on_insert` or `on_update`, on the table (on an
///   ancestor only with `run_on_extended`), and the `active` `sys_hub_flow`s they trigger.
/// A side-effect table the credentials cannot read (401, 403, 404) is reported as not checked.
///
/// Everything read from the target is hostile: names reach a query only by ``NameRule``, sys_ids by
/// ``SysIDRule``, every read is capped at ``readLimit`` records, and texts are shown escaped.
struct TargetPreflight: Sendable {
    /// The output.
    let output: InstanceOutputConfiguration
    /// The source's dictionaries (the run's cache) and the discovery that reads them.
    let sourceDictionaries: DictionaryCache
    let sourceDiscovery: FieldDiscovery
    /// The target's table service.
    let service: NowTableService

    /// A pre-flight of `output`, the source's dictionaries read through `sourceDictionaries`.
    init(output: InstanceOutputConfiguration, sourceDictionaries: DictionaryCache, sourceDiscovery: FieldDiscovery) {
        self.output = output
        self.sourceDictionaries = sourceDictionaries
        self.sourceDiscovery = sourceDiscovery
        service = output.makeTableService()
    }

    /// The most records one read of the target takes.
    static let readLimit = 1000
    /// The most missing choice values looked for per field.
    static let sampleLimit = 10

    private var target: String { output.connection.instance.absoluteString }

    /// Checks `tables` against the target.
    ///
    /// - Throws: ``NowETLError``: 77 when the target refuses to show a migrated table; a failed read.
    func check(_ tables: [TableConfiguration]) async throws -> TargetPreflightReport {
        var report = TargetPreflightReport(target: target, policy: output.options.preflight)
        let targetDiscovery = FieldDiscovery(service: service)
        for table in tables {
            try await InstanceTableWriter(service: service, table: table.table, target: target, rateLimiter: nil)
                .checkAccess()
            guard let theirs = try await retrying({ try await targetDiscovery.dictionary(of: table.table) }) else {
                report.mismatches.append(
                    .init(
                        table: table.table, field: "", problem: "is not in the target's sys_db_object (no such table)"))
                continue
            }
            let chain = theirs.chain.filter { NameRule.offsetOfInvalidLowercaseName($0) == nil }
            if let ours = try await sourceDictionaries.dictionary(of: table.table, using: sourceDiscovery) {
                for field in ours.fields {
                    try await checkField(field, of: table, against: theirs, chain: chain, into: &report)
                }
            }
            try await findSideEffects(of: table.table, chain: chain, into: &report)
        }
        return report
    }

    // MARK: - Fields

    private func checkField(
        _ field: DictionaryField, of table: TableConfiguration, against theirs: TableDictionary, chain: [String],
        into report: inout TargetPreflightReport
    ) async throws {
        guard let other = theirs.field(named: field.name) else {
            report.mismatches.append(
                .init(
                    table: table.table, field: field.name,
                    problem: "(\(Self.typeText(field))) is not in the target's dictionary: its values would be dropped")
            )
            return
        }
        guard Self.compatible(field, other) else {
            report.mismatches.append(
                .init(
                    table: table.table, field: field.name,
                    problem: "is \(Self.typeText(field)) on the source but \(Self.typeText(other)) on the target"))
            return
        }
        // A name from the source's dictionary reaches the queries below only by the rule.
        guard field.isChoice, other.isChoice, !field.isReference,
            NameRule.offsetOfInvalidLowercaseName(field.name) == nil
        else { return }
        let values = try await targetChoices(of: field.name, chain: chain)
        let missing = try await sourceValues(of: field.name, in: table, notIn: values)
        if !missing.values.isEmpty {
            let shown = missing.values.map(InstanceMatching.shown).joined(separator: ", ")
            report.mismatches.append(
                .init(
                    table: table.table, field: field.name,
                    problem: "has value\(missing.values.count == 1 ? "" : "s") \(shown)"
                        + (missing.complete ? "" : " (and possibly more)")
                        + " in the source's records that the target's sys_choice lacks or has inactive"))
        }
    }

    /// Whether a target field of type `theirs` takes the stored values of a source field of type `ours`:
    /// the same `internal_type` (a reference or list into the same table, when both name one); else both
    /// kinds of text; an integer into a wider number; a decimal into a decimal; or two kinds of date-time.
    /// Anything else (a number into text included) is a mismatch, so a target whose field changed type
    /// is noticed.
    static func compatible(_ ours: DictionaryField, _ theirs: DictionaryField) -> Bool {
        let (a, b) = (ours.internalType, theirs.internalType)
        if a == b {
            guard a == "reference" || a == "glide_list", let mine = ours.reference, let other = theirs.reference else {
                return true
            }
            return mine == other
        }
        if textTypes.contains(a) && textTypes.contains(b) { return true }
        if ["integer", "longint"].contains(a) && ["longint", "decimal", "float"].contains(b) { return true }
        if ["decimal", "float"].contains(a) && ["decimal", "float"].contains(b) { return true }
        return ["glide_date_time", "due_date"].contains(a) && ["glide_date_time", "due_date"].contains(b)
    }

    /// Field types whose stored value is plain text, written as it is.
    static let textTypes: Set<String> = [
        "string", "char", "translated_text", "translated_field", "html", "translated_html", "journal",
        "journal_input", "journal_list", "url", "email", "ph_number", "multi_two_lines", "wiki_text", "script",
        "script_plain", "script_server", "xml", "conditions", "table_name", "field_name", "user_input",
    ]

    private static func typeText(_ field: DictionaryField) -> String {
        let type = InstanceMatching.shown(field.internalType)
        return field.reference.map { "\(type) → \(InstanceMatching.shown($0))" } ?? type
    }

    /// The target's active choice values of `element`: its rows on the first table of `chain` that has
    /// any (the platform takes a child's own list over its parent's).
    private func targetChoices(of element: String, chain: [String]) async throws -> Set<String> {
        guard !chain.isEmpty else { return [] }
        let rows = try await read(
            "sys_choice",
            query: "nameIN\(chain.joined(separator: ","))^element=\(element)^language=en^ORlanguageISEMPTY",
            fields: ["name", "value", "inactive"])
        let owner = chain.first { name in rows.contains { $0["name"] == name } }
        return Set(rows.filter { $0["name"] == owner && $0["inactive"] != "true" }.compactMap { $0["value"] })
    }

    /// Up to ``sampleLimit`` values of `element` the source's records of `table` hold that `known` lacks,
    /// and whether that is all of them.
    private func sourceValues(of element: String, in table: TableConfiguration, notIn known: Set<String>)
        async throws -> (values: [String], complete: Bool)
    {
        var excluded = known.filter(Self.isQueryable).sorted()
        var found: [String] = []
        while found.count < Self.sampleLimit {
            var text = "\(element)ISNOTEMPTY"
            if !excluded.isEmpty { text += "^\(element)NOT IN\(excluded.joined(separator: ","))" }
            let query = table.query.and((try? EncodedQuery(parsing: text))?.groups.first?.terms ?? [])
            let configuration = FetchConfiguration(
                filter: Filter(query: query.description), limit: 1,
                readConfiguration: FieldReadConfiguration(
                    includeFields: [element], options: [.actualValues, .excludeReferenceLink]))
            let data: Data
            do {
                data = try await retrying {
                    try await sourceDiscovery.service.records(from: table.table, configuration: configuration)
                }
            } catch {
                guard let error = error as? NowDataError else { throw error }
                throw NowETLError(table: table.table, during: "the pre-flight's choice values (\(element))", error)
            }
            guard let value = Self.resultList(data)?.first?[element] as? String, !value.isEmpty else {
                return (found, true)
            }
            // A value the exclusion cannot name (or one the target has but the query could not leave
            // out) would come back forever: stop with what was found.
            if known.contains(value) { return (found, false) }
            found.append(value)
            guard Self.isQueryable(value) else { return (found, false) }
            excluded.append(value)
        }
        return (found, false)
    }

    /// Whether `value` can stand in an `IN` list of an encoded query (no `^`, `,`, `@`, no control
    /// character, ref §4.3).
    private static func isQueryable(_ value: String) -> Bool {
        !value.isEmpty && value.count <= 200
            && !value.unicodeScalars.contains {
                "^,@".unicodeScalars.contains($0) || $0.value < 0x20 || $0.value == 0x7F
            }
    }

    // MARK: - Side effects

    private func findSideEffects(
        of table: String, chain: [String], into report: inout TargetPreflightReport
    ) async throws {
        let tables = chain.isEmpty ? [table] : chain
        // Business rules.
        if let rules = try await readSideEffects(
            "sys_script", query: "collectionIN\((tables + ["global"]).joined(separator: ","))^active=true",
            fields: ["sys_id", "name", "collection", "when", "action_insert", "action_update"], table: table,
            into: &report)
        {
            for rule in rules where rule["when"] != "display" {
                let actions = Self.actions(insert: rule["action_insert"], update: rule["action_update"])
                guard !actions.isEmpty else { continue }
                let when = rule["when"].map { $0.isEmpty ? "" : InstanceMatching.shown($0) + " " } ?? ""
                report.sideEffects.append(
                    Self.sideEffect(
                        rule, table: table, kind: .businessRule,
                        action: when + actions + Self.inherited(rule["collection"], table: table)))
            }
        }
        // Notifications.
        if let notifications = try await readSideEffects(
            "sysevent_email_action", query: "collectionIN\(tables.joined(separator: ","))^active=true",
            fields: [
                "sys_id", "name", "collection", "generation_type", "action_insert", "action_update", "event_name",
            ],
            table: table, into: &report)
        {
            for notification in notifications {
                let action: String
                switch notification["generation_type"] ?? "engine" {
                case "event": action = "on event " + InstanceMatching.shown(notification["event_name"] ?? "")
                case "triggered": action = "when a flow triggers it"
                default:
                    let actions = Self.actions(
                        insert: notification["action_insert"], update: notification["action_update"])
                    guard !actions.isEmpty else { continue }
                    action = "on " + actions
                }
                report.sideEffects.append(
                    Self.sideEffect(
                        notification, table: table, kind: .notification,
                        action: action + Self.inherited(notification["collection"], table: table)))
            }
        }
        // Flows: their record triggers, then the active flows those start.
        guard
            let triggers = try await readSideEffects(
                "sys_flow_record_trigger", query: "tableIN\(tables.joined(separator: ","))^active=true",
                fields: ["sys_id", "table", "on_insert", "on_update", "run_on_extended"], table: table,
                into: &report)
        else { return }
        var actionOfTrigger: [String: String] = [:]
        for trigger in triggers {
            guard let id = trigger["sys_id"], SysIDRule.problem(id) == nil,
                trigger["table"] == table || trigger["run_on_extended"] == "true"
            else { continue }
            let actions = Self.actions(insert: trigger["on_insert"], update: trigger["on_update"])
            if !actions.isEmpty {
                actionOfTrigger[id] = "on " + actions + Self.inherited(trigger["table"], table: table)
            }
        }
        guard !actionOfTrigger.isEmpty,
            let flows = try await readSideEffects(
                "sys_hub_flow",
                query: "remote_trigger_idIN\(actionOfTrigger.keys.sorted().joined(separator: ","))^active=true",
                fields: ["sys_id", "name", "remote_trigger_id"], table: table, into: &report)
        else { return }
        for flow in flows {
            guard let action = actionOfTrigger[flow["remote_trigger_id"] ?? ""] else { continue }
            report.sideEffects.append(Self.sideEffect(flow, table: table, kind: .flow, action: action))
        }
    }

    /// The records of a side-effect table, or `nil` (noted in the report) when the target will not
    /// show them.
    private func readSideEffects(
        _ source: String, query: String, fields: [String], table: String, into report: inout TargetPreflightReport
    ) async throws -> [[String: String]]? {
        do {
            return try await read(source, query: query, fields: fields)
        } catch let error as NowETLError {
            guard let status = (error.cause as? NowDataError)?.statusCode, [401, 403, 404].contains(status) else {
                throw error
            }
            report.unchecked.append(.init(table: table, source: source, reason: "HTTP \(status)"))
            return nil
        }
    }

    /// At most ``readLimit`` records of `source` on the target matching `query`, each field's stored
    /// value as text.
    private func read(_ source: String, query: String, fields: [String])
        async throws -> [[String: String]]
    {
        let configuration = FetchConfiguration(
            filter: Filter(query: query), limit: Self.readLimit,
            readConfiguration: FieldReadConfiguration(
                includeFields: fields, options: [.actualValues, .excludeReferenceLink]))
        let data: Data
        do {
            data = try await retrying { try await service.records(from: source, configuration: configuration) }
        } catch {
            let code = (error as? NowDataError).map { NowETLError.Code($0, otherwise: .instance) } ?? .instance
            throw NowETLError(
                code, path: target + "/api/now/table/" + source,
                "the pre-flight cannot read \(source) of the target \(target)", cause: error)
        }
        guard let result = Self.resultList(data) else {
            throw NowETLError(
                .instance, path: target + "/api/now/table/" + source,
                "the target \(target) answered the pre-flight's read of \(source) without a result list")
        }
        return result.prefix(Self.readLimit).map { object in
            object.compactMapValues { $0 as? String }
        }
    }

    /// `body`, again after a backoff when an instance cancels its transaction (which NowData leaves to
    /// the caller; the sink's writer does the same), up to the target's retry attempts.
    private func retrying<Value>(_ body: () async throws -> Value) async throws -> Value {
        let policy = service.configuration.retryPolicy
        var attempt = 1
        while true {
            do {
                return try await body()
            } catch  where attempt < policy.maximumAttempts && Self.isCancelledTransaction(error) {
                let delay = policy.backoff(beforeRetry: attempt, unitRandom: Double.random(in: 0..<1))
                try await Task.sleep(for: .milliseconds(Int((delay * 1000).rounded())))
                attempt += 1
            }
        }
    }

    /// Whether `error`, or the error under a ``NowETLError``, is a cancelled transaction.
    private static func isCancelledTransaction(_ error: (any Error)?) -> Bool {
        if case .transactionCancelled? = error as? NowDataError { return true }
        return (error as? NowETLError).map { isCancelledTransaction($0.cause) } ?? false
    }

    private static func resultList(_ data: Data) -> [[String: Any]]? {
        guard let object = try? JSONSerialization.jsonObject(with: data) as? [String: Any] else { return nil }
        return object["result"] as? [[String: Any]]
    }

    /// `insert, update`, `insert`, `update` or empty, from two stored booleans.
    private static func actions(insert: String?, update: String?) -> String {
        [insert == "true" ? "insert" : nil, update == "true" ? "update" : nil].compactMap { $0 }.joined(
            separator: ", ")
    }

    /// ` (on task)` when `owner` is not `table` itself.
    private static func inherited(_ owner: String?, table: String) -> String {
        guard let owner, owner != table else { return "" }
        return " (on \(InstanceMatching.shown(owner)))"
    }

    private static func sideEffect(
        _ record: [String: String], table: String, kind: TargetPreflightReport.SideEffect.Kind, action: String
    ) -> TargetPreflightReport.SideEffect {
        let sysID = record["sys_id"] ?? ""
        return .init(
            table: table, kind: kind, name: InstanceMatching.shown(record["name"] ?? ""),
            sysID: SysIDRule.problem(sysID) == nil ? sysID : InstanceMatching.shown(sysID), action: action)
    }
}
