import NowQuery

extension Seeder {
    // Weights and values used in the hot loops, kept static so no literal array is built per row.
    private static let impactWeights = [10, 30, 60]
    private static let recentIncidentStates = [1, 1, 2, 2, 3]
    private static let youngIncidentStates = [1, 2, 3, 6, 7, 8]
    private static let youngIncidentWeights = [5, 25, 10, 25, 30, 5]
    private static let oldIncidentStates = [2, 3, 6, 7, 8]
    private static let oldIncidentWeights = [1, 1, 2, 90, 6]
    private static let resolveBucketWeights = [40, 35, 20, 5]
    private static let contactTypes = ["email", "phone", "self-service", "virtual_agent", "walk-in"]
    private static let contactTypeWeights = [30, 35, 25, 5, 5]
    private static let holdReasons = ["1", "5", "3", "4"]
    private static let reassignmentWeights = [60, 25, 10, 3, 2]
    private static let severityWeights = [5, 15, 80]

    /// ServiceNow's default priority matrix: impact 1 × urgency 1 is 1 - Critical, 3 × 3 is 5 - Planning.
    static func priority(impact: Int, urgency: Int) -> Int { impact + urgency - 1 }

    /// The time from opening to resolution: minutes to months, mostly hours.
    private static func resolutionSeconds(_ random: inout SeedRandom) -> Int {
        switch random.weighted(resolveBucketWeights) {
        case 0: return random.between(600...14_400)
        case 1: return random.between(14_400...259_200)
        case 2: return random.between(259_200...1_209_600)
        default: return random.between(1_209_600...7_776_000)
        }
    }

    /// An opening time for row `index` of `count`: rising with the number, spread over the window.
    private static func openedAt(_ index: Int, of count: Int, _ random: inout SeedRandom) -> Int {
        let span = windowEnd - windowStart
        let step = max(1, span / max(count, 1))
        return windowStart + index * span / max(count, 1) + random.below(step)
    }

    func seedIncidents(_ count: Int) throws {
        var writer = try makeWriter(for: "task")
        let system = SystemFieldSlots(writer)
        let texts = self.texts
        let pools = self.pools
        let (numberFormat, firstNumber) = try numbering(for: "incident")
        var random = randomStream("incident", after: firstNumber)
        // The watch lists draw from a stream of their own, so the other fields stay as they were
        // seeded before `watch_list` existed.
        var watchers = randomStream("incident.watch_list", after: firstNumber)
        let watchList = writer.requiredSlot("watch_list")

        let number = writer.requiredSlot("number")
        let shortDescription = writer.requiredSlot("short_description")
        let description = writer.requiredSlot("description")
        let caller = writer.requiredSlot("caller_id")
        let openedBy = writer.requiredSlot("opened_by")
        let assignedTo = writer.requiredSlot("assigned_to")
        let assignmentGroup = writer.requiredSlot("assignment_group")
        let configurationItem = writer.requiredSlot("cmdb_ci")
        let company = writer.requiredSlot("company")
        let location = writer.requiredSlot("location")
        let priority = writer.requiredSlot("priority")
        let impact = writer.requiredSlot("impact")
        let urgency = writer.requiredSlot("urgency")
        let state = writer.requiredSlot("state")
        let incidentState = writer.requiredSlot("incident_state")
        let category = writer.requiredSlot("category")
        let subcategory = writer.requiredSlot("subcategory")
        let active = writer.requiredSlot("active")
        let openedAt = writer.requiredSlot("opened_at")
        let closedAt = writer.requiredSlot("closed_at")
        let closedBy = writer.requiredSlot("closed_by")
        let resolvedAt = writer.requiredSlot("resolved_at")
        let resolvedBy = writer.requiredSlot("resolved_by")
        let closeCode = writer.requiredSlot("close_code")
        let closeNotes = writer.requiredSlot("close_notes")
        let contactType = writer.requiredSlot("contact_type")
        let severity = writer.requiredSlot("severity")
        let reassignmentCount = writer.requiredSlot("reassignment_count")
        let reopenCount = writer.requiredSlot("reopen_count")
        let businessDuration = writer.requiredSlot("business_duration")
        let calendarDuration = writer.requiredSlot("calendar_duration")
        let businessSTC = writer.requiredSlot("business_stc")
        let calendarSTC = writer.requiredSlot("calendar_stc")
        let holdReason = writer.requiredSlot("hold_reason")
        let problemID = writer.requiredSlot("problem_id")
        let rfc = writer.requiredSlot("rfc")
        let causedBy = writer.requiredSlot("caused_by")
        let escalation = writer.requiredSlot("escalation")
        let madeSLA = writer.requiredSlot("made_sla")
        let knowledge = writer.requiredSlot("knowledge")
        let approval = writer.requiredSlot("approval")
        let childIncidents = writer.requiredSlot("child_incidents")

        for index in 0..<count {
            let opened = Self.openedAt(index, of: count, &random)
            let age = Self.windowEnd - opened
            let stateValue: Int
            if age < 2 * 86_400 {
                stateValue = random.pick(Self.recentIncidentStates)
            } else if age < 21 * 86_400 {
                stateValue = Self.youngIncidentStates[random.weighted(Self.youngIncidentWeights)]
            } else {
                stateValue = Self.oldIncidentStates[random.weighted(Self.oldIncidentWeights)]
            }

            let callerIndex = pools.randomUser(&random)
            let group =
                pools.groups.isEmpty || random.percent(stateValue == 1 ? 20 : 5)
                ? nil : random.below(pools.groups.count)
            let assignee = random.percent(stateValue == 1 ? 40 : 10) ? nil : pools.randomMember(of: group, &random)
            let opener = random.percent(60) ? callerIndex : pools.randomUser(&random)

            // Times: resolution for Resolved/Closed, closure for Closed/Canceled.
            let latest = max(60, age - 60)
            var resolved: Int?
            var closed: Int?
            switch stateValue {
            case 6, 7:
                let at = opened + min(Self.resolutionSeconds(&random), latest)
                resolved = at
                if stateValue == 7 {
                    closed = max(at + 1, min(at + 259_200 + random.below(7200), Self.windowEnd - 1))
                }
            case 8:
                closed = opened + min(random.between(300...172_800), latest)
            default:
                break
            }
            let updated: Int
            let modCount: Int
            switch stateValue {
            case 1:
                updated = opened + random.below(min(age, 3600))
                modCount = random.between(0...2)
            case 2, 3:
                updated = opened + random.below(min(age, 14 * 86_400))
                modCount = random.between(2...12)
            case 6:
                updated = min(resolved! + random.below(600), Self.windowEnd - 1)
                modCount = random.between(4...15)
            default:
                updated = closed!
                modCount = stateValue == 8 ? random.between(1...5) : random.between(6...25)
            }

            let openerName = opener.map { pools.userNames[$0] } ?? "admin"
            let assigneeName = assignee.map { pools.userNames[$0] }
            let updater: String
            if stateValue == 7 && random.percent(70) {
                updater = "system"
            } else {
                updater = assigneeName ?? openerName
            }
            system.write(
                to: &writer, sysID: random.sysID(), className: "incident", created: opened, createdBy: openerName,
                updated: updated, updatedBy: updater, modCount: modCount)

            writer.set(number, prefix: numberFormat.prefix, number: firstNumber + index, width: numberFormat.digits)
            let subject = texts.incidentSubjects[random.below(texts.incidentSubjects.count)]
            var shortText = subject.text
            var descriptionText: String? = random.percent(85) ? random.pick(texts.descriptions) : nil
            if index % 16 == 5 {
                let rotation = index / 16
                shortText = SeedTexts.awkward(rotation)
                if random.percent(50) {
                    descriptionText = SeedTexts.awkward(rotation + 5) + "\n" + (descriptionText ?? "")
                }
            }
            if index % 1000 == 999 { descriptionText = texts.longDescription(&random) }
            if index % 2500 == 1234 {
                shortText = random.pick(AwkwardText.xmlInvalidSamples)
                descriptionText = random.pick(AwkwardText.xmlInvalidSamples) + "\n" + (descriptionText ?? "")
            }
            writer.set(shortDescription, shortText)
            writer.set(description, descriptionText)
            writer.set(category, subject.category)
            writer.set(subcategory, random.percent(90) ? subject.subcategory : nil)

            if let callerIndex {
                writer.set(caller, pools.users[callerIndex])
                writer.set(company, pools.userCompanies[callerIndex])
                writer.set(location, pools.userLocations[callerIndex])
            }
            if let opener { writer.set(openedBy, pools.users[opener]) }
            if let assignee { writer.set(assignedTo, pools.users[assignee]) }
            if let group { writer.set(assignmentGroup, pools.groups[group]) }
            if !pools.cis.isEmpty, !random.percent(10) {
                writer.set(configurationItem, pools.cis[random.below(pools.cis.count)])
            }

            let impactValue = random.weighted(Self.impactWeights) + 1
            let urgencyValue = random.weighted(Self.impactWeights) + 1
            writer.set(impact, integer: impactValue)
            writer.set(urgency, integer: urgencyValue)
            writer.set(priority, integer: Self.priority(impact: impactValue, urgency: urgencyValue))
            writer.set(severity, integer: random.weighted(Self.severityWeights) + 1)
            writer.set(state, integer: stateValue)
            writer.set(incidentState, integer: stateValue)
            writer.set(active, boolean: stateValue != 7 && stateValue != 8)
            writer.set(openedAt, dateTime: opened)
            writer.set(contactType, Self.contactTypes[random.weighted(Self.contactTypeWeights)])
            writer.set(escalation, integer: random.percent(95) ? 0 : random.between(1...3))
            writer.set(approval, "not requested")
            writer.set(knowledge, boolean: random.percent(2))
            writer.set(madeSLA, boolean: random.percent(90))
            writer.set(childIncidents, integer: random.percent(97) ? 0 : random.between(1...4))
            writer.set(reassignmentCount, integer: random.weighted(Self.reassignmentWeights))
            writer.set(reopenCount, integer: random.percent(95) ? 0 : random.between(1...2))
            if stateValue == 3 { writer.set(holdReason, random.pick(Self.holdReasons)) }

            if let resolved {
                let calendar = resolved - opened
                let business = calendar / 3
                writer.set(resolvedAt, dateTime: resolved)
                writer.set(
                    resolvedBy, pools.users.isEmpty ? nil : pools.users[assignee ?? random.below(pools.users.count)])
                writer.set(closeCode, random.pick(StandardSchema.incidentCloseCodes))
                writer.set(
                    closeNotes,
                    random.percent(5) ? SeedTexts.awkward(index) : random.pick(SeedVocabulary.closeNotes))
                writer.set(calendarDuration, duration: calendar)
                writer.set(businessDuration, duration: business)
                writer.set(calendarSTC, integer: calendar)
                writer.set(businessSTC, integer: business)
            }
            if let closed {
                writer.set(closedAt, dateTime: closed)
                if let closer = stateValue == 7 ? (assignee ?? callerIndex) : (callerIndex ?? assignee) {
                    writer.set(closedBy, pools.users[closer])
                }
            }
            if !pools.problems.isEmpty, random.percent(4) { writer.set(problemID, random.pick(pools.problems)) }
            if !pools.changes.isEmpty {
                if random.percent(2) { writer.set(rfc, random.pick(pools.changes)) }
                if random.percent(1) { writer.set(causedBy, random.pick(pools.changes)) }
            }
            if !pools.users.isEmpty, watchers.percent(30) {
                let wanted = watchers.between(1...3)
                var chosen: [String] = []
                for _ in 0..<wanted {
                    let user = pools.users[watchers.below(pools.users.count)]
                    if !chosen.contains(user) { chosen.append(user) }
                }
                writer.set(watchList, chosen.joined(separator: ","))
            }
            try writer.insert()
            tick("incident", index + 1)
        }
        record("incident", rows: count)
    }

    /// What ``seedTaskRows(_:count:_:)`` hands the filler of one row besides the writer and the
    /// random stream.
    struct TaskRow {
        let system: SystemFieldSlots
        /// The `number` slot and the class's numbering.
        let numberSlot: Int
        let numberFormat: Database.NumberFormat
        let firstNumber: Int
        /// The row's position and opening time (rising with the number).
        let index: Int
        let opened: Int
        /// Seconds from opening to the end of the seeding window.
        var age: Int { Seeder.windowEnd - opened }

        /// Sets the row's number: the class's prefix and the next number after the existing ones.
        func setNumber(_ writer: inout RowWriter) {
            writer.set(
                numberSlot, prefix: numberFormat.prefix, number: firstNumber + index, width: numberFormat.digits)
        }
    }

    /// Seeds `count` rows of class `className` into `task` (``seedRows(_:into:count:after:_:)`` after the
    /// class's last number): each row's opening time is drawn first, then `fill` sets the row.
    private func seedTaskRows(
        _ className: String, count: Int, _ fill: (inout RowWriter, inout SeedRandom, TaskRow) throws -> Void
    ) throws {
        let (numberFormat, firstNumber) = try numbering(for: className)
        var numberSlot: Int?
        try seedRows(className, into: "task", count: count, after: firstNumber) { writer, random, system, index in
            let slot = numberSlot ?? writer.requiredSlot("number")
            numberSlot = slot
            let row = TaskRow(
                system: system, numberSlot: slot, numberFormat: numberFormat, firstNumber: firstNumber,
                index: index, opened: Self.openedAt(index, of: count, &random))
            try fill(&writer, &random, row)
        }
    }

    func seedProblems(_ count: Int) throws {
        let texts = self.texts
        try seedTaskRows("problem", count: count) { writer, random, row in
            let state: Int
            if row.age < 14 * 86_400 {
                state = [101, 102, 103, 104][random.weighted([30, 30, 25, 15])]
            } else if row.age < 60 * 86_400 {
                state = [102, 103, 104, 106, 107][random.weighted([10, 20, 20, 20, 30])]
            } else {
                state = [103, 104, 106, 107][random.weighted([3, 2, 5, 90])]
            }
            let knownError = random.percent(25)
            let group = pools.groups.isEmpty || random.percent(5) ? nil : random.below(pools.groups.count)
            let assignee = random.percent(10) ? nil : pools.randomMember(of: group, &random)
            let opener = pools.randomUser(&random)
            let latest = max(60, row.age - 60)
            let resolved = state >= 106 ? row.opened + min(random.between(86_400...7_776_000), latest) : nil
            let closed = state == 107 ? min(resolved! + random.between(3600...1_209_600), Self.windowEnd - 1) : nil
            let updated = closed ?? resolved ?? (row.opened + random.below(min(row.age, 30 * 86_400)))
            let openerName = opener.map { pools.userNames[$0] } ?? "admin"
            let id = random.sysID()
            row.system.write(
                to: &writer, sysID: id, className: "problem", created: row.opened, createdBy: openerName,
                updated: updated, updatedBy: assignee.map { pools.userNames[$0] } ?? openerName,
                modCount: random.between((state == 101 ? 0 : 3)...(state >= 106 ? 40 : 12)))
            row.setNumber(&writer)
            writer.set(
                column: "short_description",
                row.index % 16 == 5 ? SeedTexts.awkward(row.index / 16) : random.pick(texts.problemSubjects))
            writer.set(column: "description", random.percent(90) ? random.pick(texts.descriptions) : nil)
            writer.set(column: "state", String(state))
            let problemState: String
            switch state {
            case 101, 102, 103: problemState = knownError ? "2" : "1"
            case 104: problemState = random.percent(50) ? "3" : (knownError ? "2" : "1")
            default: problemState = "4"
            }
            writer.set(column: "problem_state", problemState)
            writer.set(column: "known_error", knownError ? "true" : "false")
            writer.set(column: "active", state == 107 ? "false" : "true")
            let impact = random.weighted(Self.impactWeights) + 1
            let urgency = random.weighted(Self.impactWeights) + 1
            writer.set(column: "impact", String(impact))
            writer.set(column: "urgency", String(urgency))
            writer.set(column: "priority", String(Self.priority(impact: impact, urgency: urgency)))
            writer.set(column: "opened_at", TableAPIDateFormat.string(fromSeconds: row.opened))
            if let opener { writer.set(column: "opened_by", pools.users[opener]) }
            if let assignee { writer.set(column: "assigned_to", pools.users[assignee]) }
            if let group { writer.set(column: "assignment_group", pools.groups[group]) }
            if random.percent(85) { writer.set(column: "cmdb_ci", SeedPools.pick(pools.cis, &random)) }
            if let opener { writer.set(column: "company", pools.userCompanies[opener]) }
            if state >= 103, random.percent(70) { writer.set(column: "cause_notes", random.pick(texts.descriptions)) }
            if state >= 104, random.percent(70) { writer.set(column: "fix_notes", random.pick(texts.plans)) }
            if knownError { writer.set(column: "workaround", random.pick(SeedVocabulary.closeNotes)) }
            if let resolved {
                writer.set(column: "resolved_at", TableAPIDateFormat.string(fromSeconds: resolved))
                if let assignee { writer.set(column: "resolved_by", pools.users[assignee]) }
                writer.set(
                    column: "resolution_code",
                    ["fix_applied", "risk_accepted", "canceled", "duplicate"][random.weighted([70, 15, 10, 5])])
            }
            if let closed {
                writer.set(column: "closed_at", TableAPIDateFormat.string(fromSeconds: closed))
                if let closer = assignee ?? opener { writer.set(column: "closed_by", pools.users[closer]) }
            }
            writer.set(column: "related_incidents", String(random.between(0...25)))
            writer.set(column: "reassignment_count", String(random.weighted(Self.reassignmentWeights)))
            writer.set(column: "escalation", "0")
            writer.set(column: "approval", "not requested")
            writer.set(column: "made_sla", random.percent(85) ? "true" : "false")
            writer.set(column: "knowledge", knownError && random.percent(50) ? "true" : "false")
            pools.problems.append(id.string)
        }
    }

    func seedChanges(_ count: Int) throws {
        let texts = self.texts
        try seedTaskRows("change_request", count: count) { writer, random, row in
            let state: Int
            if row.age < 7 * 86_400 {
                state = [-5, -4, -3, -2, -1][random.weighted([20, 20, 20, 30, 10])]
            } else if row.age < 30 * 86_400 {
                state = [-3, -2, -1, 0, 3, 4][random.weighted([5, 15, 10, 15, 50, 5])]
            } else {
                state = random.percent(92) ? 3 : 4
            }
            let type = ["normal", "standard", "emergency"][random.weighted([60, 30, 10])]
            let group = pools.groups.isEmpty || random.percent(3) ? nil : random.below(pools.groups.count)
            let assignee = random.percent(15) ? nil : pools.randomMember(of: group, &random)
            let requester = pools.randomUser(&random)
            let start = row.opened + random.between(3600...(type == "emergency" ? 86_400 : 21 * 86_400))
            let end = start + random.between(3600...43_200)
            let closed: Int? =
                state == 3 || state == 4
                ? max(row.opened + 60, min(end + random.between(3600...259_200), Self.windowEnd - 1)) : nil
            let updated = closed ?? (row.opened + random.below(min(row.age, 7 * 86_400)))
            let requesterName = requester.map { pools.userNames[$0] } ?? "admin"
            let id = random.sysID()
            row.system.write(
                to: &writer, sysID: id, className: "change_request", created: row.opened,
                createdBy: requesterName, updated: updated,
                updatedBy: assignee.map { pools.userNames[$0] } ?? requesterName,
                modCount: random.between((state <= -4 ? 0 : 4)...(closed == nil ? 15 : 40)))
            row.setNumber(&writer)
            writer.set(
                column: "short_description",
                row.index % 16 == 5 ? SeedTexts.awkward(row.index / 16) : random.pick(texts.changeSubjects))
            writer.set(column: "description", random.percent(90) ? random.pick(texts.descriptions) : nil)
            writer.set(column: "type", type)
            writer.set(column: "state", String(state))
            writer.set(column: "active", closed == nil ? "true" : "false")
            writer.set(column: "risk", String(random.weighted([5, 15, 50, 30]) + 1))
            let impact = random.weighted(Self.impactWeights) + 1
            let urgency = type == "emergency" ? 1 : random.weighted(Self.impactWeights) + 1
            writer.set(column: "impact", String(impact))
            writer.set(column: "urgency", String(urgency))
            writer.set(column: "priority", String(Self.priority(impact: impact, urgency: urgency)))
            writer.set(
                column: "category",
                random.pick([
                    "Hardware", "Software", "Service", "System Software", "Applications Software", "Network",
                    "Telecom", "Documentation", "Other",
                ]))
            if let requester {
                writer.set(column: "requested_by", pools.users[requester])
                writer.set(column: "opened_by", pools.users[requester])
                writer.set(column: "company", pools.userCompanies[requester])
            }
            if let assignee { writer.set(column: "assigned_to", pools.users[assignee]) }
            if let group { writer.set(column: "assignment_group", pools.groups[group]) }
            if random.percent(90) { writer.set(column: "cmdb_ci", SeedPools.pick(pools.cis, &random)) }
            writer.set(column: "opened_at", TableAPIDateFormat.string(fromSeconds: row.opened))
            writer.set(column: "start_date", TableAPIDateFormat.string(fromSeconds: start))
            writer.set(column: "end_date", TableAPIDateFormat.string(fromSeconds: end))
            writer.set(column: "justification", random.percent(80) ? random.pick(texts.descriptions) : nil)
            writer.set(column: "implementation_plan", random.pick(texts.plans))
            writer.set(column: "backout_plan", random.percent(85) ? random.pick(texts.plans) : nil)
            writer.set(column: "test_plan", random.percent(70) ? random.pick(texts.plans) : nil)
            writer.set(column: "cab_required", type == "standard" ? "false" : "true")
            writer.set(column: "on_hold", random.percent(2) ? "true" : "false")
            let approval: String
            switch state {
            case ...(-4): approval = "not requested"
            case -3: approval = "requested"
            case 4: approval = random.percent(30) ? "rejected" : "not_required"
            default: approval = "approved"
            }
            writer.set(column: "approval", approval)
            if let closed {
                writer.set(column: "closed_at", TableAPIDateFormat.string(fromSeconds: closed))
                if let closer = assignee ?? requester { writer.set(column: "closed_by", pools.users[closer]) }
                if state == 3 {
                    writer.set(
                        column: "close_code",
                        ["successful", "successful_issues", "unsuccessful"][random.weighted([85, 10, 5])])
                }
            }
            writer.set(column: "escalation", "0")
            writer.set(column: "reassignment_count", String(random.weighted(Self.reassignmentWeights)))
            writer.set(column: "made_sla", random.percent(90) ? "true" : "false")
            pools.changes.append(id.string)
        }
    }
}
