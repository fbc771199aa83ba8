import Testing

@testable import NowETL

/// ``TableOrder/computed(_:ancestors:)`` on dictionaries written out here: stable, ties in pipeline
/// order, classes of one hierarchy, self-references, and cycles named with their tables and fields.
@Suite(.timeLimit(.minutes(1))) struct PlanTableOrderTests {
    /// A dictionary of `table` (ancestors after it) with these `field: target` references and a string field.
    static func dictionary(_ table: String, extends parents: [String] = [], _ references: [String: String] = [:])
        -> TableDictionary
    {
        var fields = [DictionaryField(name: "name", internalType: "string", definedOn: table)]
        for (name, target) in references {
            fields.append(DictionaryField(name: name, internalType: "reference", reference: target, definedOn: table))
        }
        return TableDictionary(
            table: table, chain: [table] + parents, fields: fields.sorted { $0.name < $1.name })
    }

    static let user = dictionary(
        "sys_user", ["manager": "sys_user", "company": "core_company", "location": "cmn_location"])
    static let group = dictionary("sys_user_group", ["manager": "sys_user", "parent": "sys_user_group"])
    static let incident = dictionary(
        "incident", extends: ["task"],
        [
            "caller_id": "sys_user", "opened_by": "sys_user", "assignment_group": "sys_user_group",
            "parent": "task", "problem_id": "problem",
        ])
    static let problem = dictionary(
        "problem", extends: ["task"], ["parent": "task", "first_reported_by_task": "task", "opened_by": "sys_user"])

    @Test func referencedTablesComeFirstWithTheFieldsThatSaySo() throws {
        let order = try TableOrder.computed([Self.incident, Self.group, Self.user])
        #expect(order.tables == ["sys_user", "sys_user_group", "incident"])
        #expect(order.basis == .dictionary)
        #expect(
            order.dependencies.map(\.description) == [
                "sys_user_group after sys_user (manager)",
                "incident after sys_user (caller_id, opened_by)",
                "incident after sys_user_group (assignment_group)",
            ])
        #expect(
            order.explanation == [
                "table order (referenced tables first, from the dictionary): sys_user, sys_user_group, incident",
                "  sys_user_group after sys_user (manager)",
                "  incident after sys_user (caller_id, opened_by)",
                "  incident after sys_user_group (assignment_group)",
            ])
    }

    @Test func tablesWithoutReferencesBetweenThemKeepPipelineOrder() throws {
        let location = Self.dictionary("cmn_location", ["parent": "cmn_location", "company": "core_company"])
        let company = Self.dictionary("core_company", ["parent": "core_company"])
        let tag = Self.dictionary("label")
        // cmn_location references core_company: only that pair moves; label keeps its place between them.
        #expect(try TableOrder.computed([location, tag, company]).tables == ["label", "core_company", "cmn_location"])
        let unrelated = [tag, Self.dictionary("sys_choice"), Self.dictionary("cmn_schedule")]
        let order = try TableOrder.computed(unrelated)
        #expect(order.tables == ["label", "sys_choice", "cmn_schedule"])
        #expect(order.dependencies.isEmpty)
    }

    @Test func theOrderIsStableAndTiesKeepPipelineOrder() throws {
        // b and c both wait for a: a first, then b before c as listed, then d where it was.
        let b = Self.dictionary("b", ["ref": "a"])
        let c = Self.dictionary("c", ["ref": "a"])
        let a = Self.dictionary("a")
        let d = Self.dictionary("d")
        #expect(try TableOrder.computed([b, c, a, d]).tables == ["a", "b", "c", "d"])
        #expect(try TableOrder.computed([d, c, b, a]).tables == ["d", "a", "c", "b"])
        // The same input always gives the same order (field order inside a dictionary does not matter).
        let again = try TableOrder.computed([b, c, a, d])
        #expect(again == (try TableOrder.computed([b, c, a, d])))
    }

    @Test func selfReferencesAndTablesOutsideTheRunAreIgnored() throws {
        // sys_user.manager → sys_user, company → core_company (not in the run): nothing to order.
        let order = try TableOrder.computed([Self.user])
        #expect(order.tables == ["sys_user"])
        #expect(order.dependencies.isEmpty)
        // incident.parent → task while incident is the only task class of the run: a self-reference.
        #expect(try TableOrder.computed([Self.incident]).dependencies.isEmpty)
    }

    @Test func onlyReferenceFieldsCountNotDomainsOrDocumentIDs() throws {
        var user = Self.user
        var group = Self.group
        // The dictionary gives sys_domain as a sys_user_group reference on every table (domain_id).
        user.fields.append(
            DictionaryField(
                name: "sys_domain", internalType: "domain_id", reference: "sys_user_group", definedOn: "sys_user"))
        group.fields.append(
            DictionaryField(
                name: "document", internalType: "document_id", reference: "sys_user", definedOn: "sys_user_group"))
        let order = try TableOrder.computed([user, group])
        #expect(order.tables == ["sys_user", "sys_user_group"])
        #expect(order.dependencies.map(\.description) == ["sys_user_group after sys_user (manager)"])
    }

    @Test func aReferenceToAChildClassPointsIntoTheRunsParentClass() throws {
        // The run reads task (every task class); a field referencing incident points into it.
        let task = Self.dictionary("task", ["assigned_to": "sys_user"])
        let outage = Self.dictionary("cmdb_ci_outage", ["task_number": "incident"])
        let order = try TableOrder.computed([outage, task], ancestors: ["incident": ["incident", "task"]])
        #expect(order.tables == ["task", "cmdb_ci_outage"])
        #expect(order.dependencies.map(\.description) == ["cmdb_ci_outage after task (task_number → incident)"])
        // Without the chain of incident, nothing says incident rows are in task.
        #expect(try TableOrder.computed([outage, task]).tables == ["cmdb_ci_outage", "task"])
    }

    @Test func aReferenceToAParentClassOrdersOnlyWhereItClosesNoCycle() throws {
        // problem.parent → task may point at an incident (problem after incident), but
        // incident.problem_id → problem is definite (incident after problem): the definite edge wins
        // and the possible one that would close a cycle is left out.
        let order = try TableOrder.computed([Self.incident, Self.problem, Self.user])
        #expect(order.tables == ["sys_user", "problem", "incident"])
        #expect(
            order.dependencies.map(\.description) == [
                "problem after sys_user (opened_by)",
                "incident after sys_user (caller_id, opened_by)",
                "incident after problem (parent → task, problem_id)",
            ])
        // A task reference alone orders its table after the other task class.
        let change = Self.dictionary("change_request", extends: ["task"])
        let report = Self.dictionary("u_report", ["task": "task"])
        let possible = try TableOrder.computed([report, change])
        #expect(possible.tables == ["change_request", "u_report"])
        #expect(possible.dependencies.map(\.description) == ["u_report after change_request (task → task)"])
        // Two task classes that reach each other only through task fields: no cycle, pipeline order.
        let siblings = try TableOrder.computed([
            Self.dictionary("problem", extends: ["task"], ["parent": "task"]),
            Self.dictionary("change_request", extends: ["task"], ["parent": "task"]),
        ])
        #expect(siblings.tables == ["problem", "change_request"])
        #expect(siblings.dependencies.map(\.description) == ["change_request after problem (parent → task)"])
    }

    @Test func aCycleIsAnErrorNamingItsTablesAndFields() throws {
        let user = Self.dictionary("sys_user", ["department": "cmn_department", "manager": "sys_user"])
        let department = Self.dictionary("cmn_department", ["dept_head": "sys_user"])
        let incident = Self.dictionary("incident", extends: ["task"], ["caller_id": "sys_user"])
        let error = #expect(throws: NowETLError.self) {
            try TableOrder.computed([incident, user, department])
        }
        #expect(error?.context.tables == ["sys_user", "cmn_department"])
        #expect(error?.exitCode == 78)
        let description = error?.description ?? ""
        #expect(
            description.hasPrefix(
                "the tables sys_user, cmn_department reference each other in a cycle: "
                    + "sys_user.department → cmn_department, then cmn_department.dept_head → sys_user; "))
        #expect(description.contains("explicit order:"))
        #expect(description.contains("order: [sys_user, cmn_department]"))
    }

    @Test func aLongerCycleIsNamedFromItsFirstTableInPipelineOrder() throws {
        let a = Self.dictionary("a", ["to_b": "b"])
        let b = Self.dictionary("b", ["to_c": "c"])
        let c = Self.dictionary("c", ["to_a": "a", "other_a": "a"])
        let free = Self.dictionary("free")
        let error = #expect(throws: NowETLError.self) { try TableOrder.computed([free, c, b, a]) }
        #expect(error?.context.tables == ["c", "a", "b"])
        #expect(
            error?.description.contains(
                "c.other_a → a, c.to_a → a, then a.to_b → b, then b.to_c → c; ") == true)
    }

    @Test func anExplicitOrderKeepsTheSelectedTables() {
        let order = TableOrder.explicit(
            ["sys_user", "sys_user_group", "incident"], selecting: ["incident", "sys_user"])
        #expect(order.tables == ["sys_user", "incident"])
        #expect(order.basis == .explicit)
        #expect(order.explanation == ["table order (from the pipeline's order:): sys_user, incident"])
    }
}
