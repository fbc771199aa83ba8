import Foundation
import Testing

@testable import NowData

@Suite(.timeLimit(.minutes(5))) struct FilterTests {
    @Test func rawQuery() {
        let filter = Filter(query: "active=true^ORDERBYnumber", queryCategory: "list")
        #expect(filter.query == "active=true^ORDERBYnumber")
        #expect(filter.queryCategory == "list")
        #expect(filter.encodedQuery == nil)
    }

    @Test func conditionsAreAndedWithSorts() {
        let filter = Filter(
            conditions: [
                Condition.boolean(field: "active", .is(true)),
                CompoundCondition.or([
                    Condition.integerChoice(field: "priority", .is(1)),
                    Condition.integerChoice(field: "priority", .is(2)),
                ]),
                Condition.string(field: "short_description", .contains("disk")),
            ], sorts: [.desc("number"), .asc("sys_id")])
        #expect(
            filter.query
                == "active=true^priority=1^ORpriority=2^short_descriptionLIKEdisk^ORDERBYDESCnumber^ORDERBYsys_id")
        #expect(filter.encodedQuery?.groups.count == 1)
        #expect(filter.encodedQuery?.groups[0].terms.count == 3)
        #expect(filter.encodedQuery?.orderBy == [.init(field: "number", descending: true), .init(field: "sys_id")])
    }

    @Test func criteriaAreOredWithNQ() {
        let filter = Filter(
            criteria: [
                Criteria(condition: Condition.string(field: "state", .is("1"))),
                Criteria(conditions: [
                    Condition.reference(field: "caller_id", .isEmpty),
                    Condition.numeric(field: "reassignment_count", .between(1, 3)),
                ]),
            ], sortBy: [.asc("number")])
        #expect(filter.query == "state=1^NQcaller_idISEMPTY^reassignment_countBETWEEN1@3^ORDERBYnumber")
        #expect(filter.encodedQuery?.groups.count == 2)
    }

    @Test func keywordsFilterMatchesDocumentedShape() {
        let filter = Filter(
            keywords: "email",
            conditions: [
                Condition.boolean(field: "active", .is(true)),
                Condition.string(field: "assigned_to", .isEmpty),
            ], sortBy: [.desc("number")])
        #expect(filter.query == "123TEXTQUERY321=email^active=true^assigned_toISEMPTY^EQ^ORDERBYDESCnumber")
        #expect(filter.encodedQuery?.hasEndMarker == true)
    }

    @Test(arguments: [
        (
            Condition.dateTime(field: "sys_updated_on", .atOrAfter(0, .daysAgoStart)),
            "sys_updated_on>=javascript:gs.daysAgoStart(0)"
        ),
        (
            Condition.dateTime(field: "opened_at", .afterDate(Date(timeIntervalSince1970: 1_453_179_124))),
            "opened_at>2016-01-19 04:52:04"
        ),
        (Condition.dateTime(field: "sla_due", .withinLast(1, .hour)), "sla_dueRELATIVEGT@hour@ago@1"),
        (
            Condition.dateTime(field: "d", .between(7, .daysAgoStart, 0, .daysAgoEnd)),
            "dBETWEENjavascript:gs.daysAgoStart(7)@javascript:gs.daysAgoEnd(0)"
        ),
        (Condition.string(field: "state", .isOneOf(["1", "2", "3"])), "stateIN1,2,3"),
        (Condition.string(field: "d", .doesNotContain("x")), "dNOT LIKEx"),
        (Condition.email(field: "email", .endsWith("@example.com")), "emailENDSWITH@example.com"),
        (Condition.stringChoice(field: "category", .isNotOneOf(["a", "b"])), "categoryNOT INa,b"),
        (Condition.numeric(field: "n", .greaterThanOrIs(2.5)), "n>=2.5"),
        (Condition.numeric(field: "n", .greaterThanField("m")), "nGT_FIELDm"),
        (Condition.reference(field: "caller_id", .isSameAs("opened_by")), "caller_idSAMEASopened_by"),
        (Condition.boolean(field: "active", .isNot(true)), "active!=true"),
        (Condition.string(field: "x", .isEmptyString), "xEMPTYSTRING"),
    ])
    func conditionText(condition: Condition, expected: String) {
        #expect(condition.query == expected)
    }

    @Test func customProvidersFallBackToText() {
        struct Raw: QueryProviding { let query: String }
        let filter = Filter(
            conditions: [Raw(query: "a=1"), Condition.boolean(field: "b", .is(false))], sorts: [.asc("c")])
        #expect(filter.query == "a=1^b=false^ORDERBYc")
        #expect(filter.encodedQuery == nil)
    }

    @Test(
        arguments: [
            (nil, nil, nil, nil, "ORDERBYsys_id"),
            ("active=true", nil, nil, "abc", "active=true^sys_id>abc^ORDERBYsys_id"),
            ("active=true^ORDERBYnumber", "00", "80", nil, "active=true^sys_id>=00^sys_id<80^ORDERBYsys_id"),
            ("a=1^ORb=2^NQc=3^EQ^ORDERBYDESCx", nil, nil, "f0", "a=1^ORb=2^sys_id>f0^NQc=3^sys_id>f0^ORDERBYsys_id"),
            ("", "10", nil, "15", "sys_id>=10^sys_id>15^ORDERBYsys_id"),
        ] as [(String?, String?, String?, String?, String)])
    func keysetQuery(filter: String?, low: String?, high: String?, after: String?, expected: String) throws {
        let query = try EncodedQuery(parsing: filter ?? "")
        let range = SysIDRange(lowerBound: low, upperBound: high)
        #expect(query.keysetPage(in: range, after: after).description == expected)
    }

    @Test func offsetQueryAddsTieBreaker() throws {
        #expect(EncodedQuery().offsetPage().description == "ORDERBYsys_id")
        #expect(
            try EncodedQuery(parsing: "a=1^ORDERBYnumber").offsetPage().description
                == "a=1^ORDERBYnumber^ORDERBYsys_id")
        #expect(try EncodedQuery(parsing: "a=1^ORDERBYsys_id").offsetPage().description == "a=1^ORDERBYsys_id")
    }
}
