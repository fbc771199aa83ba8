import NowData
import NowSimTesting
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct EncodedQueryParsingTests {}

private typealias Q = EncodedQuery

private func condition(_ field: String, _ op: Q.Operator, _ value: Q.Value) -> Q.Condition {
    Q.Condition(field: field, op: op, value: value)
}

/// A query with one group per element, one term per inner element, one condition per innermost.
private func query(
    _ groups: [[[Q.Condition]]], orderBy: [Q.Sort] = [], hasEndMarker: Bool = false
) -> Q {
    Q(
        groups: groups.map { Q.Group(terms: $0.map { Q.Term(conditions: $0) }) },
        orderBy: orderBy, hasEndMarker: hasEndMarker)
}

private func single(_ condition: Q.Condition) -> Q { query([[[condition]]]) }

// MARK: - Operators

/// Canonical single-condition queries for every operator and value shape.
private let canonicalConditions: [(String, Q.Condition)] = [
    ("active=true", condition("active", .equals, .literal("true"))),
    ("assigned_to=", condition("assigned_to", .equals, .literal(""))),
    ("short_description=a=b", condition("short_description", .equals, .literal("a=b"))),
    ("short_description=Fix INC issue", condition("short_description", .equals, .literal("Fix INC issue"))),
    ("short_description=über", condition("short_description", .equals, .literal("über"))),
    ("active!=true", condition("active", .notEquals, .literal("true"))),
    ("priority<2", condition("priority", .lessThan, .literal("2"))),
    ("priority<=2", condition("priority", .lessThanOrEquals, .literal("2"))),
    ("priority>2", condition("priority", .greaterThan, .literal("2"))),
    ("priority>=2", condition("priority", .greaterThanOrEquals, .literal("2"))),
    ("priority<=-1.5", condition("priority", .lessThanOrEquals, .literal("-1.5"))),
    (
        "sys_updated_on>=2025-08-01 00:00:00",
        condition("sys_updated_on", .greaterThanOrEquals, .literal("2025-08-01 00:00:00"))
    ),
    ("short_descriptionLIKEsap", condition("short_description", .like, .literal("sap"))),
    ("short_descriptionLIKE outage", condition("short_description", .like, .literal(" outage"))),
    ("short_descriptionLIKE", condition("short_description", .like, .literal(""))),
    ("short_descriptionNOT LIKEsap", condition("short_description", .notLike, .literal("sap"))),
    ("numberSTARTSWITHINC", condition("number", .startsWith, .literal("INC"))),
    ("numberSTARTSWITHINC0001", condition("number", .startsWith, .literal("INC0001"))),
    ("numberENDSWITH001", condition("number", .endsWith, .literal("001"))),
    ("stateIN1,2,3", condition("state", .isIn, .list(["1", "2", "3"]))),
    ("nameINa,b", condition("name", .isIn, .list(["a", "b"]))),
    ("stateIN,1", condition("state", .isIn, .list(["", "1"]))),
    ("stateIN", condition("state", .isIn, .list([""]))),
    ("stateNOT IN", condition("state", .notIn, .list([""]))),
    ("stateNOT IN6,7", condition("state", .notIn, .list(["6", "7"]))),
    ("reasonNOT INx", condition("reason", .notIn, .list(["x"]))),
    ("assigned_toISEMPTY", condition("assigned_to", .isEmpty, .none)),
    ("descriptionISEMPTY", condition("description", .isEmpty, .none)),
    ("locationISNOTEMPTY", condition("location", .isNotEmpty, .none)),
    ("caller_idANYTHING", condition("caller_id", .anything, .none)),
    ("descriptionEMPTYSTRING", condition("description", .emptyString, .none)),
    ("reassignment_countBETWEEN1@3", condition("reassignment_count", .between, .range(.literal("1"), .literal("3")))),
    (
        "opened_atBETWEENjavascript:gs.dateGenerate('2024-01-01','start')@javascript:gs.dateGenerate('2024-01-31','end')",
        condition(
            "opened_at", .between,
            .range(
                .script(.dateGenerate(date: "2024-01-01", time: "start")),
                .script(.dateGenerate(date: "2024-01-31", time: "end"))))
    ),
    (
        "opened_atBETWEEN2024-01-01 00:00:00@javascript:gs.daysAgoEnd(1)",
        condition("opened_at", .between, .range(.literal("2024-01-01 00:00:00"), .script(.daysAgoEnd(1))))
    ),
    ("caller_idSAMEASassigned_to", condition("caller_id", .sameAs, .field("assigned_to"))),
    ("caller_idNSAMEASassigned_to", condition("caller_id", .notSameAs, .field("assigned_to"))),
    ("caller_id.nameSAMEASopened_by.name", condition("caller_id.name", .sameAs, .field("opened_by.name"))),
    (
        "reassignment_countGT_FIELDreopen_count",
        condition("reassignment_count", .greaterThanField, .field("reopen_count"))
    ),
    ("reassignment_countLT_FIELDreopen_count", condition("reassignment_count", .lessThanField, .field("reopen_count"))),
    (
        "reassignment_countGT_OR_EQUALS_FIELDreopen_count",
        condition("reassignment_count", .greaterThanOrEqualsField, .field("reopen_count"))
    ),
    (
        "reassignment_countLT_OR_EQUALS_FIELDreopen_count",
        condition("reassignment_count", .lessThanOrEqualsField, .field("reopen_count"))
    ),
    (
        "sys_created_onONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()",
        condition(
            "sys_created_on", .on,
            .dateRange(label: "Today", start: .script(.beginningOfToday), end: .script(.endOfToday)))
    ),
    (
        "sla_dueNOTONToday@javascript:gs.daysAgoStart(0)@javascript:gs.daysAgoEnd(0)",
        condition(
            "sla_due", .notOn,
            .dateRange(label: "Today", start: .script(.daysAgoStart(0)), end: .script(.daysAgoEnd(0))))
    ),
    (
        "locationONLast 7 days@javascript:gs.daysAgoStart(7)@javascript:gs.daysAgoEnd(0)",
        condition(
            "location", .on,
            .dateRange(label: "Last 7 days", start: .script(.daysAgoStart(7)), end: .script(.daysAgoEnd(0))))
    ),
    (
        "sla_dueRELATIVEGT@hour@ago@1",
        condition("sla_due", .relativeGreaterThan, .relative(unit: .hour, direction: .ago, count: 1))
    ),
    (
        "sla_dueRELATIVELT@day@ahead@30",
        condition("sla_due", .relativeLessThan, .relative(unit: .day, direction: .ahead, count: 30))
    ),
    ("sys_class_nameINSTANCEOFtask", condition("sys_class_name", .instanceOf, .literal("task"))),
    ("opened_at>javascript:gs.daysAgo(3)", condition("opened_at", .greaterThan, .script(.daysAgo(3)))),
    ("opened_at<javascript:gs.daysAgo(-3)", condition("opened_at", .lessThan, .script(.daysAgo(-3)))),
    ("opened_at=javascript:gs.nowDateTime()", condition("opened_at", .equals, .script(.now))),
    ("caller_id.name=Fred Luddy", condition("caller_id.name", .equals, .literal("Fred Luddy"))),
    ("caller_id.department.name!=IT", condition("caller_id.department.name", .notEquals, .literal("IT"))),
    ("u_custom_2ISNOTEMPTY", condition("u_custom_2", .isNotEmpty, .none)),
    ("123TEXTQUERY321=email server", condition("123TEXTQUERY321", .equals, .literal("email server"))),
    ("123TEXTINDEXGROUP321=abc", condition("123TEXTINDEXGROUP321", .equals, .literal("abc"))),
]

extension EncodedQueryParsingTests {
    @Test(arguments: canonicalConditions)
    private func parsesAndPrintsEveryOperator(text: String, expected: Q.Condition) throws {
        let parsed = try Q(parsing: text)
        #expect(parsed == single(expected))
        #expect(parsed.description == text)
        #expect(expected.description == text)
        #expect(try Q(parsing: parsed.description) == parsed)
    }

    @Test func everyOperatorIsCoveredByTheTable() {
        let covered = Set(canonicalConditions.map(\.1.op))
        #expect(covered == Set(Q.Operator.allCases))
    }
}

/// Aliases and alternative spellings, with their canonical form.
private let aliases: [(String, String)] = [
    ("short_descriptionNOTLIKEsap", "short_descriptionNOT LIKEsap"),
    ("short_description!*sap", "short_descriptionNOT LIKEsap"),
    ("short_description*sap", "short_descriptionLIKEsap"),
    ("number%001", "numberENDSWITH001"),
    ("opened_at>javascript:gs.now()", "opened_at>javascript:gs.nowDateTime()"),
    ("opened_at>javascript: gs.daysAgo( 3 ) ;", "opened_at>javascript:gs.daysAgo(3)"),
    ("opened_at>javascript:gs.daysAgo(+3)", "opened_at>javascript:gs.daysAgo(3)"),
    (
        "opened_at>javascript:gs.dateGenerate(\"2024-01-01\", \"12:00:00\")",
        "opened_at>javascript:gs.dateGenerate('2024-01-01','12:00:00')"
    ),
    ("ORDERBYnumber^active=true", "active=true^ORDERBYnumber"),
    ("active=true^ORDERBYnumber^EQ", "active=true^EQ^ORDERBYnumber"),
    ("^active=true", "active=true"),
    ("active=true^", "active=true"),
    ("a=1^^b=2", "a=1^b=2"),
    ("^EQ", "EQ"),
    ("^ORDERBYDESCsys_updated_on", "ORDERBYDESCsys_updated_on"),
    ("a=1^ORDERBYx^ORb=2", "a=1^ORb=2^ORDERBYx"),
]

extension EncodedQueryParsingTests {
    @Test(arguments: aliases)
    private func canonicalisesAliases(text: String, canonical: String) throws {
        let parsed = try Q(parsing: text)
        #expect(parsed.description == canonical)
        #expect(try Q(parsing: canonical) == parsed)
    }
}

// MARK: - Structure

extension EncodedQueryParsingTests {
    @Test func orBindsTighterThanAndAndNewQuerySeparatesGroups() throws {
        let a = condition("a", .equals, .literal("1"))
        let b = condition("b", .equals, .literal("2"))
        let c = condition("c", .equals, .literal("3"))
        let d = condition("d", .equals, .literal("4"))
        let text = "a=1^b=2^ORc=3^NQd=4"
        let parsed = try Q(parsing: text)
        #expect(parsed == query([[[a], [b, c]], [[d]]]))
        #expect(parsed.description == text)
    }

    @Test func chainsOfOrStayInOneTerm() throws {
        let parsed = try Q(parsing: "priority=1^ORpriority=2^ORpriority=3^active=true")
        #expect(parsed.groups.count == 1)
        #expect(parsed.groups[0].terms.map(\.conditions.count) == [3, 1])
    }

    @Test func severalNewQueryGroups() throws {
        let parsed = try Q(parsing: "a=1^b=2^NQc=3^NQd=4^ORe=5")
        #expect(parsed.groups.map(\.terms.count) == [2, 1, 1])
        #expect(parsed.groups[2].terms[0].conditions.map(\.field) == ["d", "e"])
    }

    @Test func multipleOrderByClausesKeepTheirOrder() throws {
        let text = "active=true^ORDERBYnumber^ORDERBYDESCcategory^ORDERBYcaller_id.name"
        let parsed = try Q(parsing: text)
        #expect(
            parsed.orderBy == [
                Q.Sort(field: "number"), Q.Sort(field: "category", descending: true), Q.Sort(field: "caller_id.name"),
            ])
        #expect(parsed.groups.count == 1)
        #expect(parsed.description == text)
    }

    @Test func orderByAloneAndEndMarkerAlone() throws {
        #expect(
            try Q(parsing: "ORDERBYDESCsys_updated_on")
                == Q(orderBy: [Q.Sort(field: "sys_updated_on", descending: true)]))
        #expect(try Q(parsing: "EQ") == Q(hasEndMarker: true))
        #expect(Q(hasEndMarker: true).description == "EQ")
        #expect(Q(orderBy: [Q.Sort(field: "a")], hasEndMarker: true).description == "EQ^ORDERBYa")
    }

    @Test func endMarkerIsKept() throws {
        let text = "active=true^priority=1^EQ^ORDERBYnumber"
        let parsed = try Q(parsing: text)
        #expect(parsed.hasEndMarker)
        #expect(parsed.orderBy == [Q.Sort(field: "number")])
        #expect(parsed.description == text)
        #expect(try Q(parsing: "active=true").hasEndMarker == false)
    }

    @Test func emptyTextIsTheEmptyQuery() throws {
        #expect(try Q(parsing: "") == Q())
        #expect(Q().description == "")
    }

    @Test func keysetPagingQueryOfTheExporter() throws {
        let text = "active=true^ORpriority<=2^sys_id>0123456789abcdef0123456789abcdef^ORDERBYsys_id"
        let parsed = try Q(parsing: text)
        #expect(parsed.groups[0].terms.count == 2)
        #expect(
            parsed.groups[0].terms[1].conditions[0]
                == condition("sys_id", .greaterThan, .literal("0123456789abcdef0123456789abcdef")))
        #expect(parsed.description == text)
    }
}

// MARK: - Date helpers in queries

private let helperTexts: [(String, Q.DateHelper)] = [
    ("gs.daysAgo(3)", .daysAgo(3)), ("gs.daysAgoStart(0)", .daysAgoStart(0)), ("gs.daysAgoEnd(-2)", .daysAgoEnd(-2)),
    ("gs.hoursAgo(1)", .hoursAgo(1)), ("gs.hoursAgoStart(1)", .hoursAgoStart(1)),
    ("gs.hoursAgoEnd(1)", .hoursAgoEnd(1)),
    ("gs.minutesAgo(15)", .minutesAgo(15)), ("gs.minutesAgoStart(15)", .minutesAgoStart(15)),
    ("gs.minutesAgoEnd(0)", .minutesAgoEnd(0)), ("gs.monthsAgo(3)", .monthsAgo(3)),
    ("gs.monthsAgoStart(3)", .monthsAgoStart(3)), ("gs.monthsAgoEnd(1)", .monthsAgoEnd(1)),
    ("gs.quartersAgo(1)", .quartersAgo(1)), ("gs.quartersAgoStart(2)", .quartersAgoStart(2)),
    ("gs.quartersAgoEnd(0)", .quartersAgoEnd(0)), ("gs.yearsAgo(1)", .yearsAgo(1)),
    ("gs.yearsAgoStart(2)", .yearsAgoStart(2)), ("gs.yearsAgoEnd(1)", .yearsAgoEnd(1)),
    ("gs.beginningOfToday()", .beginningOfToday), ("gs.endOfToday()", .endOfToday),
    ("gs.beginningOfYesterday()", .beginningOfYesterday), ("gs.endOfYesterday()", .endOfYesterday),
    ("gs.beginningOfTomorrow()", .beginningOfTomorrow), ("gs.endOfTomorrow()", .endOfTomorrow),
    ("gs.beginningOfThisWeek()", .beginningOf(.week, .this)), ("gs.endOfLastMonth()", .endOf(.month, .last)),
    ("gs.beginningOfNextQuarter()", .beginningOf(.quarter, .next)), ("gs.endOfThisYear()", .endOf(.year, .this)),
    ("gs.dateGenerate('2015-10-07','00:00:00')", .dateGenerate(date: "2015-10-07", time: "00:00:00")),
    ("gs.dateGenerate('2024-02-29','end')", .dateGenerate(date: "2024-02-29", time: "end")),
    ("gs.nowDateTime()", .now),
]

extension EncodedQueryParsingTests {
    @Test(arguments: helperTexts)
    private func parsesAndPrintsDateHelpers(text: String, helper: Q.DateHelper) throws {
        let queryText = "opened_at>=javascript:\(text)"
        let parsed = try Q(parsing: queryText)
        #expect(parsed == single(condition("opened_at", .greaterThanOrEquals, .script(helper))))
        #expect(parsed.description == queryText)
        #expect(helper.description == "javascript:\(text)")
    }

    @Test func everyPeriodHelperParses() throws {
        for offset in Q.PeriodOffset.allCases {
            for period in Q.Period.allCases {
                for (prefix, helper) in [
                    ("beginningOf", Q.DateHelper.beginningOf(period, offset)), ("endOf", .endOf(period, offset)),
                ] {
                    let text = "a<javascript:gs.\(prefix)\(offset.rawValue)\(period.rawValue)()"
                    #expect(try Q(parsing: text) == single(condition("a", .lessThan, .script(helper))))
                }
            }
        }
    }
}

// MARK: - Malformed input

/// Malformed queries with the expected UTF-8 offset and a fragment of the message.
private let malformed: [(String, Int, String)] = [
    ("priority", 0, "unknown operator in \"priority\""),
    ("active=true^priorityXX2", 12, "unknown operator in \"priorityXX2\""),
    ("priority~2", 8, "unknown operator"),
    ("a=1^b", 4, "unknown operator"),
    ("=x", 0, "missing field name"),
    ("a=1^=x", 4, "missing field name"),
    ("caller_id..name=x", 0, "invalid field name \"caller_id..name\""),
    (".name=x", 0, "invalid field name"),
    ("name.=x", 0, "invalid field name"),
    ("stateBETWEEN1", 12, "BETWEEN needs two bounds"),
    ("stateBETWEEN1@2@3", 12, "BETWEEN needs two bounds"),
    ("stateBETWEEN1@", 14, "empty BETWEEN bound"),
    ("stateBETWEEN@1", 12, "empty BETWEEN bound"),
    ("openedRELATIVEGT@hour@ago@x", 26, "invalid RELATIVEGT count \"x\""),
    ("openedRELATIVEGT@hour@ago@-1", 26, "invalid RELATIVEGT count"),
    ("openedRELATIVEGT@hours@ago@1", 17, "unknown RELATIVEGT unit \"hours\""),
    ("openedRELATIVELT@hour@before@1", 22, "unknown RELATIVELT direction \"before\""),
    ("openedRELATIVEGThour@ago@1", 16, "RELATIVEGT needs @<unit>@ago|ahead@<count>"),
    ("openedRELATIVEGT@hour@ago", 16, "RELATIVEGT needs"),
    ("caller_id=javascript:gs.getUserID()", 10, "unsupported javascript: expression \"javascript:gs.getUserID()\""),
    ("caller_id=javascript:getMyGroups()", 10, "unsupported javascript: expression"),
    ("opened_at>javascript:gs.daysAgo(x)", 10, "unsupported javascript: expression"),
    ("opened_at>javascript:gs.daysAgo(3", 10, "unsupported javascript: expression"),
    ("opened_at>javascript:gs.daysAgo(3)x", 10, "unsupported javascript: expression"),
    ("opened_at>javascript:gs.daysAgo()", 10, "gs.daysAgo(n) takes one whole number"),
    ("opened_at>javascript:gs.daysAgo(1,2)", 32, "gs.daysAgo(n) takes one whole number"),
    ("opened_at>javascript:gs.daysAgo(2000000)", 32, "takes one whole number"),
    ("opened_at>javascript:gs.beginningOfToday(1)", 10, "gs.beginningOfToday() takes no arguments"),
    ("opened_at>javascript:gs.dateGenerate('2024-13-01','00:00:00')", 37, "invalid date \"2024-13-01\""),
    ("opened_at>javascript:gs.dateGenerate('2023-02-29','00:00:00')", 37, "invalid date"),
    ("opened_at>javascript:gs.dateGenerate('2024-01-01','25:00:00')", 50, "invalid time \"25:00:00\""),
    ("opened_at>javascript:gs.dateGenerate('2024-01-01')", 37, "expected gs.dateGenerate"),
    ("short_descriptionLIKEjavascript:gs.daysAgo(1)", 21, "javascript: values are not supported with LIKE"),
    ("stateINjavascript:foo()", 7, "not supported with IN"),
    ("stateIN1,javascript:foo()", 9, "not supported with IN"),
    ("descriptionISEMPTYx", 18, "ISEMPTY takes no value"),
    ("descriptionANYTHING1", 19, "ANYTHING takes no value"),
    ("caller_idSAMEAS", 15, "SAMEAS needs another field's name"),
    ("caller_idNSAMEASa b", 16, "NSAMEAS needs another field's name"),
    ("sys_class_nameINSTANCEOF", 24, "INSTANCEOF needs a table name"),
    ("sys_created_onONToday", 16, "ON needs label@start@end"),
    ("sys_created_onONToday@javascript:gs.beginningOfToday()@", 55, "empty ON end"),
    ("sys_created_onONToday@javascript:gs.foo()@x", 22, "unsupported javascript: expression"),
    ("caller_idDYNAMIC90d1921e5f510100a9ad2572f2b477fe", 9, "operator DYNAMIC is not supported"),
    ("locationIN_HIERARCHYabc@def", 8, "operator IN_HIERARCHY is not supported"),
    ("stateCHANGESTO4", 5, "operator CHANGESTO is not supported"),
    ("RLQUERYincident.problem_id,>=1^ENDRLQUERY", 0, "RLQUERY subqueries are not supported"),
    ("ORb=2", 0, "^OR without a preceding condition"),
    ("ORDERBYx^ORb=2", 9, "^OR without a preceding condition"),
    ("^NQa=1", 1, "^NQ without a preceding condition"),
    ("a=1^OR", 6, "expected a condition"),
    ("a=1^NQ", 6, "expected a condition"),
    ("a=1^EQ^b=2", 7, "condition \"b=2\" after ^EQ"),
    ("a=1^EQ^NQb=2", 7, "after ^EQ"),
    ("a=1^EQ^EQ", 7, "duplicate ^EQ"),
    ("ORDERBY", 7, "ORDERBY without a field name"),
    ("a=1^ORDERBYDESC", 15, "ORDERBYDESC without a field name"),
    ("ORDERBYcaller_id..name", 7, "invalid field name \"caller_id..name\" after ORDERBY"),
    ("ORDERBYnumber,sys_id", 7, "invalid field name"),
    ("short_description=über^x", 24, "unknown operator in \"x\""),
]

extension EncodedQueryParsingTests {
    @Test(arguments: malformed)
    private func rejectsMalformedInputWithItsOffset(text: String, offset: Int, message: String) {
        let error = #expect(throws: EncodedQueryError.self) { try Q(parsing: text) }
        #expect(error?.offset == offset, "\(String(describing: error))")
        #expect(error?.message.contains(message) == true, "\(String(describing: error))")
    }

    @Test func errorDescriptionNamesOffsetAndMessage() {
        let error = EncodedQueryError(message: "unknown operator in \"priorityXX2\"", offset: 17)
        #expect(error.description == "invalid encoded query at offset 17: unknown operator in \"priorityXX2\"")
    }

    @Test func longFragmentsAreShortenedInMessages() throws {
        let long = String(repeating: "x", count: 200)
        do {
            _ = try Q(parsing: long)
            Issue.record("expected an error")
        } catch {
            #expect(error.message.count < 100)
            #expect(error.message.contains("…"))
        }
    }
}

// MARK: - Round trip of generated queries

private func randomCondition(_ rng: inout SplitMix64) -> Q.Condition {
    let fields = ["active", "state", "caller_id.name", "sys_updated_on", "u_location", "number", "description"]
    let literals = ["", "1", "true", "INC0001", "a b", "ÄÖ", "x=y", "50%", "NOT IN", "ISEMPTY", "-2.5"]
    let helpers: [Q.DateHelper] = [
        .daysAgo(2), .beginningOfToday, .endOf(.week, .last), .dateGenerate(date: "2024-01-01", time: "end"), .now,
        .quartersAgoStart(-1),
    ]
    func literal() -> String { literals.randomElement(using: &rng)! }
    func nonEmpty() -> String { ["1", "x", "2024-01-01 00:00:00", "INC"].randomElement(using: &rng)! }
    func operand() -> Q.Operand {
        Bool.random(using: &rng) ? .literal(nonEmpty()) : .script(helpers.randomElement(using: &rng)!)
    }
    let field = fields.randomElement(using: &rng)!
    let op = Q.Operator.allCases.randomElement(using: &rng)!
    let value: Q.Value
    switch op {
    case .equals, .notEquals, .lessThan, .lessThanOrEquals, .greaterThan, .greaterThanOrEquals:
        value = Bool.random(using: &rng) ? .literal(literal()) : .script(helpers.randomElement(using: &rng)!)
    case .like, .notLike, .startsWith, .endsWith: value = .literal(literal())
    case .instanceOf: value = .literal(nonEmpty())
    case .isIn, .notIn: value = .list((0...Int.random(in: 0...3, using: &rng)).map { _ in literal() })
    case .isEmpty, .isNotEmpty, .anything, .emptyString: value = .none
    case .between: value = .range(operand(), operand())
    case .sameAs, .notSameAs, .greaterThanField, .lessThanField, .greaterThanOrEqualsField, .lessThanOrEqualsField:
        value = .field(fields.randomElement(using: &rng)!)
    case .on, .notOn:
        value = .dateRange(
            label: ["Today", "Last 7 days", ""].randomElement(using: &rng)!, start: operand(), end: operand())
    case .relativeGreaterThan, .relativeLessThan:
        value = .relative(
            unit: Q.RelativeUnit.allCases.randomElement(using: &rng)!,
            direction: Q.RelativeDirection.allCases.randomElement(using: &rng)!,
            count: Int.random(in: 0...100, using: &rng))
    }
    return condition(field, op, value)
}

extension EncodedQueryParsingTests {
    @Test func generatedQueriesRoundTrip() throws {
        var rng = SplitMix64(seed: 20_240_515)
        for _ in 0..<2000 {
            let groups = (0..<Int.random(in: 0...3, using: &rng)).map { _ in
                Q.Group(
                    terms: (0..<Int.random(in: 1...3, using: &rng)).map { _ in
                        Q.Term(conditions: (0..<Int.random(in: 1...3, using: &rng)).map { _ in randomCondition(&rng) })
                    })
            }
            let orderBy = (0..<Int.random(in: 0...2, using: &rng)).map { index in
                Q.Sort(field: ["number", "sys_id", "caller_id.name"][index], descending: Bool.random(using: &rng))
            }
            let original = Q(groups: groups, orderBy: orderBy, hasEndMarker: Bool.random(using: &rng))
            let text = original.description
            let reparsed = try Q(parsing: text)
            #expect(reparsed == original, "\(text)")
            #expect(reparsed.description == text)
        }
    }
}
