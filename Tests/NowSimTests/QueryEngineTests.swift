import Foundation
import NowQuery
import NowSimTesting
import Testing

/// nowsim's SQL query engine checked by brute force against NowQuery's in-memory evaluator
/// (`EncodedQuery.matches`) over every seeded incident: one table-driven case per operator, plus
/// `^OR`/`^NQ` precedence and dot-walking.
@Suite(.timeLimit(.minutes(5))) struct QueryEngineTests {
    /// Fields the queries below read; dot-walked ones are fetched as dotted keys.
    static let fields = [
        "sys_id", "number", "short_description", "description", "priority", "impact", "urgency", "state", "category",
        "active", "opened_at", "closed_at", "caller_id", "assigned_to", "assignment_group", "cmdb_ci", "company",
        "reassignment_count", "close_notes", "sys_created_on", "sys_updated_on", "sys_mod_count", "opened_by",
        "caller_id.name",
        "caller_id.active", "assignment_group.name", "company.name", "caller_id.company.name",
    ]

    static let queries: [String] = [
        // = and !=, including empty operands and booleans
        "priority=1", "priority!=1", "active=true", "active!=true", "assigned_to=", "assigned_to!=",
        "category=network", "category!=network", "number=INC0010001",
        // ordering on numbers, strings and date-times
        "priority<3", "priority<=2", "priority>4", "priority>=4", "reassignment_count>2",
        "number<INC0010100", "short_description>M", "opened_at<2023-01-01 00:00:00", "opened_at>=2024-06-01 00:00:00",
        "closed_at<2025-01-01 00:00:00", "sys_mod_count<=3",
        // text matching
        "short_descriptionLIKEnetwork", "short_descriptionLIKEEMAIL", "short_descriptionNOT LIKEnetwork",
        "descriptionNOTLIKEthe", "numberSTARTSWITHINC00101", "short_descriptionENDSWITHs", "short_descriptionLIKE\"",
        "short_descriptionLIKE,", "short_descriptionLIKE%", "short_descriptionLIKE_",
        // lists and emptiness
        "stateIN1,2,3", "stateNOT IN6,7", "priorityIN", "categoryIN,network", "assigned_toISEMPTY",
        "assigned_toISNOTEMPTY",
        "close_notesEMPTYSTRING", "caller_idANYTHING", "cmdb_ciISEMPTY^assigned_toISEMPTY",
        // ranges and field comparisons
        "priorityBETWEEN2@4", "opened_atBETWEEN2022-01-01 00:00:00@2022-12-31 23:59:59", "priorityBETWEEN4@2",
        "caller_idSAMEASopened_by", "caller_idNSAMEASopened_by", "impactGT_FIELDurgency", "impactLT_FIELDurgency",
        "impactGT_OR_EQUALS_FIELDurgency", "impactLT_OR_EQUALS_FIELDurgency", "sys_created_onSAMEASopened_at",
        // date helpers and relative operators
        "opened_at>javascript:gs.daysAgo(365)", "opened_at<javascript:gs.daysAgoStart(700)",
        "opened_atBETWEENjavascript:gs.daysAgoStart(900)@javascript:gs.daysAgoEnd(300)",
        "opened_atONLast year@javascript:gs.beginningOfLastYear()@javascript:gs.endOfLastYear()",
        "opened_atNOTONLast year@javascript:gs.beginningOfLastYear()@javascript:gs.endOfLastYear()",
        "opened_atRELATIVEGT@day@ago@400", "opened_atRELATIVELT@month@ago@30",
        "closed_at>=javascript:gs.beginningOfThisYear()",
        "opened_at<javascript:gs.dateGenerate('2023-03-01','00:00:00')",
        // precedence: ^OR binds tighter than ^, ^NQ joins whole groups
        "priority=1^ORpriority=2^active=true", "active=true^priority=1^ORpriority=5",
        "priority=1^active=false^NQpriority=5^active=true", "priority=1^NQpriority=2^ORstate=7^NQcategory=network",
        "stateIN1,2^ORassigned_toISEMPTY^categoryNOT INnetwork,database^NQshort_descriptionLIKEemail",
        // dot-walking
        "caller_id.nameSTARTSWITHA", "caller_id.active=false", "assignment_group.nameLIKEdesk",
        "caller_id.company.nameLIKEa^ORcompany.nameLIKEe", "caller_id.name<M^priority<=2",
        // ORDERBY does not change the set
        "active=true^ORDERBYpriority^ORDERBYDESCnumber", "^EQ", "priority=3^EQ",
    ]

    @Test func everyQueryMatchesTheEvaluatorExactly() async throws {
        let sim = try await SharedNowSim.get()
        let all = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_fields", Self.fields.joined(separator: ",")), ("sysparm_exclude_reference_link", "true")])
        let rows = all.resultList.map { $0.mapValues { "\($0)" } }
        #expect(Set(rows.compactMap { $0["sys_id"] }).count == rows.count)
        #expect(rows.count == 1500)
        let kinds = try await fieldKinds(sim)

        var selective = 0
        for query in Self.queries {
            let parsed = try EncodedQuery(parsing: query)
            let now = Date()
            let expected = Set(
                rows.filter { row in parsed.matches({ row[$0] }, now: now, fieldKind: { kinds[$0] }) }
                    .compactMap { $0["sys_id"] })
            let response = try await sim.request(
                "/api/now/table/incident", query: [("sysparm_query", query), ("sysparm_fields", "sys_id")])
            #expect(response.status == 200, "\(query)")
            let actual = Set(response.resultList.compactMap { $0["sys_id"] as? String })
            let extra = actual.subtracting(expected).sorted().prefix(3)
            let missing = expected.subtracting(actual).sorted().prefix(3)
            #expect(
                actual == expected,
                "\(query): nowsim \(actual.count) rows, evaluator \(expected.count); only nowsim: \(Array(extra)), only evaluator: \(Array(missing))"
            )
            #expect(response.header("X-Total-Count") == String(expected.count), "\(query)")
            if !expected.isEmpty && expected.count < rows.count { selective += 1 }
        }
        // The cases must bite: most queries select a proper, non-empty subset of the seeded rows.
        #expect(selective >= Self.queries.count * 3 / 4, "only \(selective) of \(Self.queries.count) queries selective")
    }

    @Test func orderByClausesSortLikeTheEvaluatorSays() async throws {
        let sim = try await SharedNowSim.get()
        let response = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "ORDERBYpriority^ORDERBYDESCnumber"), ("sysparm_fields", "priority,number")])
        let pairs = response.resultList.map { (Int($0["priority"] as! String)!, $0["number"] as! String) }
        let sorted = pairs.sorted { $0.0 != $1.0 ? $0.0 < $1.0 : $0.1 > $1.1 }
        #expect(pairs.map(\.1) == sorted.map(\.1))
    }

    @Test func invalidQueriesAreDroppedOrEmptyTheResult() async throws {
        let sim = try await SharedNowSim.get()
        let lenient = try await sim.request(
            "/api/now/table/incident",
            query: [("sysparm_query", "priority=1^bogus_field=3^nonsense"), ("sysparm_limit", "1")])
        let plain = try await sim.request(
            "/api/now/table/incident", query: [("sysparm_query", "priority=1"), ("sysparm_limit", "1")])
        #expect(lenient.header("X-Total-Count") == plain.header("X-Total-Count"))

        try await withNowSim(arguments: [
            "--seed", "incident=30", "--invalid-query-returns-no-rows",
        ]) { strict in
            let none = try await strict.request("/api/now/table/incident", query: [("sysparm_query", "bogus_field=3")])
            #expect(none.status == 200)
            #expect(none.resultList.isEmpty)
            let valid = try await strict.request(
                "/api/now/table/incident", query: [("sysparm_query", "active=true^ORactive=false")])
            #expect(valid.resultList.count == 30)
        }
    }

    /// Field kinds from the instance's own dictionary (task and incident rows), dot-walked names included.
    private func fieldKinds(_ sim: NowSimInstance) async throws -> [String: EncodedQuery.FieldKind] {
        var types: [String: String] = [:]
        for table in ["task", "incident", "sys_user", "sys_user_group", "core_company"] {
            let response = try await sim.request(
                "/api/now/table/sys_dictionary",
                query: [
                    ("sysparm_query", "name=\(table)^elementISNOTEMPTY"), ("sysparm_fields", "element,internal_type"),
                    ("sysparm_exclude_reference_link", "true"),
                ])
            for row in response.resultList {
                let element = row["element"] as? String ?? ""
                let type = row["internal_type"] as? String ?? ""
                types[table == "task" || table == "incident" ? element : "\(table).\(element)"] = type
            }
        }
        func kind(_ type: String) -> EncodedQuery.FieldKind {
            switch type {
            case "integer", "decimal", "float", "longint": return .number
            case "glide_date_time", "glide_duration", "due_date": return .dateTime
            case "glide_date": return .date
            case "boolean": return .boolean
            default: return .text
            }
        }
        var kinds: [String: EncodedQuery.FieldKind] = [:]
        for field in Self.fields {
            let parts = field.split(separator: ".")
            let target: String
            switch parts.count {
            case 1: target = field
            default:
                let table =
                    parts.count == 3
                    ? "core_company"
                    : (parts[0] == "assignment_group"
                        ? "sys_user_group" : parts[0] == "company" ? "core_company" : "sys_user")
                target = "\(table).\(parts.last!)"
            }
            kinds[field] = types[target].map(kind) ?? .text
        }
        return kinds
    }
}
