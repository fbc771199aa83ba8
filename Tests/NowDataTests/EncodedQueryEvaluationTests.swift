import Foundation
import NowData
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct EncodedQueryEvaluationTests {}

/// Wednesday 2024-05-15 10:30:45 UTC.
private let now = TableAPIDateFormat.date(from: "2024-05-15 10:30:45")!

private func evaluate(
    _ query: String, _ record: [String: String], kinds: [String: EncodedQuery.FieldKind] = [:],
    timeZone: TimeZone = .gmt
) throws -> Bool {
    try EncodedQuery(parsing: query).matches({ record[$0] }, now: now, timeZone: timeZone, fieldKind: { kinds[$0] })
}

/// One row of a truth table: condition on field `f` (and `g` for field comparisons), the value of
/// `f` (`nil` = absent), and the expected result. Kind applies to `f`.
private struct Row: Sendable, CustomTestStringConvertible {
    var query: String
    var value: String?
    var expected: Bool
    var kind: EncodedQuery.FieldKind? = nil
    var other: String? = nil

    var testDescription: String {
        "\(query) with f=\(value.map { "\"\($0)\"" } ?? "nil")\(other.map { ", g=\"\($0)\"" } ?? "")"
            + "\(kind.map { " (\($0))" } ?? "") → \(expected)"
    }
}

private func rows(_ query: String, kind: EncodedQuery.FieldKind? = nil, _ cases: [(String?, Bool)]) -> [Row] {
    cases.map { Row(query: query, value: $0.0, expected: $0.1, kind: kind) }
}

private let truthTable: [Row] =
    rows("f=abc", [("abc", true), ("ABC", false), ("abcd", false), ("", false), (nil, false)])
    + rows("f=", [("", true), (nil, true), ("x", false), (" ", false)])
    + rows("f!=abc", [("abc", false), ("ABC", true), ("x", true), ("", true), (nil, true)])
    + rows("f!=", [("", false), (nil, false), ("x", true)])
    + rows("f=é", [("\u{E9}", true), ("e\u{301}", false)])  // byte-wise, no normalisation
    + rows(
        "f<10", [("9", true), ("10", false), ("100", false), ("-3", true), ("9.99", true), ("", false), (nil, false)])
    + rows("f<10", kind: .text, [("9", false), ("1", true), ("10", false), ("", false)])
    + rows("f<10", kind: .number, [("9", true), ("abc", false), ("+9", true)])  // "+9": not a number, "+" < "1"
    + rows("f<=10", [("10", true), ("10.0", true), ("10.01", false)])
    + rows("f>10", [("11", true), ("10", false), ("9", false), ("", false)])
    + rows("f>=10", [("10", true), ("9", false)])
    + rows("f<", [("1", false), ("", false)])
    + rows(
        "f>2024-01-01 00:00:00",
        [("2024-01-01 00:00:01", true), ("2024-01-01 00:00:00", false), ("2023-12-31 23:59:59", false), ("", false)])
    + rows("f>=2024-01-01", kind: .date, [("2024-01-01", true), ("2023-12-31", false)])
    + rows("f<b", [("a", true), ("B", true), ("c", false)])  // byte order: upper case sorts first
    + rows(
        "fBETWEEN1@3",
        [("1", true), ("2", true), ("2.5", true), ("3", true), ("0", false), ("4", false), ("10", false), ("", false)])
    + rows("fBETWEEN1@3", kind: .text, [("10", true), ("2", true), ("4", false)])
    + rows("fBETWEEN3@1", [("2", false), ("3", false)])
    + rows("fLIKEsap", [("SAP outage", true), ("the sap", true), ("nothing", false), ("", false), (nil, false)])
    + rows("fLIKEÉ", [("É", true), ("é", false)])  // ASCII-only case folding
    + rows("fLIKE", [("x", true), ("", false)])
    + rows("fLIKE50%", [("50%", true), ("500", false)])  // no wildcards
    + rows("fNOT LIKEsap", [("SAP", false), ("x", true), ("", true), (nil, true)])
    + rows("fSTARTSWITHinc", [("INC0001", true), ("xINC", false), ("inc", true), ("", false)])
    + rows("fENDSWITH001", [("INC0001", true), ("0010", false), ("", false)])
    + rows("fIN1,2,3", [("2", true), ("4", false), ("", false), (nil, false), ("1,2", false)])
    + rows("fIN,1", [("", true), (nil, true), ("1", true), ("2", false)])
    + rows("fIN", [("", true), ("x", false)])
    + rows("fNOT IN1,2", [("3", true), ("1", false), ("", true), (nil, true)])
    + rows("fNOT IN,1", [("", false), ("2", true)])
    + rows("fISEMPTY", [("", true), (nil, true), ("x", false), (" ", false)])
    + rows("fEMPTYSTRING", [("", true), (nil, true), ("x", false)])
    + rows("fISNOTEMPTY", [("", false), (nil, false), ("x", true)])
    + rows("fANYTHING", [("", true), (nil, true), ("x", true)])
    + rows("fINSTANCEOFtask", [("task", true), ("incident", false), ("", false)])
    + rows(
        "fONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()",
        [
            ("2024-05-15 00:00:00", true), ("2024-05-15 23:59:59", true), ("2024-05-16 00:00:00", false),
            ("2024-05-14 23:59:59", false), ("", false), (nil, false),
        ])
    + rows(
        "fONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()", kind: .date,
        [("2024-05-15", true), ("2024-05-16", false)])
    + rows(
        "fONMay@2024-05-01 00:00:00@2024-05-31 23:59:59",
        [("2024-05-31 12:00:00", true), ("2024-06-01 00:00:00", false)])
    + rows(
        "fNOTONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()",
        [("2024-05-15 12:00:00", false), ("2024-05-16 00:00:00", true), ("", true), (nil, true)])
    + rows(
        "fRELATIVEGT@hour@ago@1",
        [("2024-05-15 09:30:46", true), ("2024-05-15 09:30:45", false), ("2024-05-15 08:00:00", false), ("", false)])
    + rows("fRELATIVELT@day@ahead@1", [("2024-05-16 10:30:44", true), ("2024-05-16 10:30:45", false), ("", false)])
    + rows("fRELATIVELT@day@ago@1", kind: .date, [("2024-05-13", true), ("2024-05-14", false)])
    + rows("f>javascript:gs.daysAgo(3)", [("2024-05-12 10:30:46", true), ("2024-05-12 10:30:45", false)])
    + rows("f>=javascript:gs.daysAgo(3)", [("2024-05-12 10:30:45", true)])
    + rows("f>=javascript:gs.beginningOfToday()", kind: .date, [("2024-05-15", true), ("2024-05-14", false)])
    + rows("f=javascript:gs.beginningOfToday()", [("2024-05-15 00:00:00", true), ("", false)])
    + rows("f!=javascript:gs.beginningOfToday()", [("2024-05-15 00:00:00", false), ("", true)])
    + rows(
        "fBETWEENjavascript:gs.daysAgoStart(1)@javascript:gs.daysAgoEnd(1)",
        [("2024-05-14 12:00:00", true), ("2024-05-15 00:00:00", false)])

extension EncodedQueryEvaluationTests {
    @Test(arguments: truthTable)
    private func operatorTruthTable(row: Row) throws {
        var record: [String: String] = [:]
        record["f"] = row.value
        record["g"] = row.other
        #expect(try evaluate(row.query, record, kinds: row.kind.map { ["f": $0] } ?? [:]) == row.expected)
    }

    /// Field-to-field operators: (query, f, g, expected).
    @Test(arguments: [
        ("fSAMEASg", "a", "a", true), ("fSAMEASg", "a", "b", false), ("fSAMEASg", "", "", false),
        ("fSAMEASg", "a", "", false), ("fSAMEASg", "A", "a", false),
        ("fNSAMEASg", "a", "a", false), ("fNSAMEASg", "a", "b", true), ("fNSAMEASg", "", "", true),
        ("fNSAMEASg", "a", "", true),
        ("fGT_FIELDg", "10", "9", true), ("fGT_FIELDg", "9", "9", false), ("fGT_FIELDg", "", "9", false),
        ("fGT_FIELDg", "10", "", false),
        ("fLT_FIELDg", "9", "10", true), ("fLT_FIELDg", "10", "10", false),
        ("fGT_OR_EQUALS_FIELDg", "10", "10", true), ("fGT_OR_EQUALS_FIELDg", "9", "10", false),
        ("fLT_OR_EQUALS_FIELDg", "10", "10", true), ("fLT_OR_EQUALS_FIELDg", "11", "10", false),
        ("fGT_FIELDg", "2024-05-15 10:00:00", "2024-05-15 09:59:59", true),
    ])
    private func fieldComparisons(query: String, f: String, g: String, expected: Bool) throws {
        #expect(try evaluate(query, ["f": f, "g": g]) == expected)
    }

    @Test func fieldKindOfTheLeftFieldOrdersFieldComparisons() throws {
        #expect(try evaluate("fGT_FIELDg", ["f": "10", "g": "9"], kinds: ["f": .text]) == false)
        #expect(try evaluate("fGT_FIELDg", ["f": "10", "g": "9"], kinds: ["f": .number]) == true)
    }

    @Test func dotWalkedFieldsAreResolvedByTheCaller() throws {
        let record = ["caller_id.name": "Fred Luddy", "caller_id": "5137153cc611227c000bbd1bd8cd2005"]
        #expect(try evaluate("caller_id.nameSTARTSWITHfred", record))
        #expect(try evaluate("caller_id.name=Fred", record) == false)
    }

    @Test func precedenceOfOrAndAndNewQuery() throws {
        let query = try EncodedQuery(parsing: "a=1^b=1^ORc=1^NQd=1^ORDERBYa")
        for mask in 0..<16 {
            let a = mask & 1 != 0
            let b = mask & 2 != 0
            let c = mask & 4 != 0
            let d = mask & 8 != 0
            let record = ["a": a ? "1" : "0", "b": b ? "1" : "0", "c": c ? "1" : "0", "d": d ? "1" : "0"]
            let expected = (a && (b || c)) || d
            #expect(query.matches({ record[$0] }, now: now) == expected, "a=\(a) b=\(b) c=\(c) d=\(d)")
        }
    }

    @Test func emptyQueryMatchesEverything() throws {
        #expect(try evaluate("", [:]))
        #expect(try evaluate("ORDERBYnumber^EQ", [:]))
    }

    @Test func dateHelpersUseTheSessionTimeZone() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        // Today in New York at 2024-05-15 10:30:45 UTC runs from 04:00:00 UTC to 03:59:59 UTC next day.
        let today = "fONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()"
        #expect(try evaluate(today, ["f": "2024-05-15 03:59:59"], timeZone: newYork) == false)
        #expect(try evaluate(today, ["f": "2024-05-15 04:00:00"], timeZone: newYork))
        #expect(try evaluate(today, ["f": "2024-05-16 03:59:59"], timeZone: newYork))
        #expect(try evaluate(today, ["f": "2024-05-16 03:59:59"]) == false)
    }

    @Test func negatedOperatorsAreExactComplements() throws {
        let pairs = [
            ("=x", "!=x"), ("=", "!="), ("LIKEx", "NOT LIKEx"), ("INx,", "NOT INx,"), ("SAMEASg", "NSAMEASg"),
            (
                "ONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()",
                "NOTONToday@javascript:gs.beginningOfToday()@javascript:gs.endOfToday()"
            ),
        ]
        let values: [String?] = [nil, "", "x", "X", "xy", "2024-05-15 10:00:00", "g-value"]
        for (positive, negative) in pairs {
            for value in values {
                for other in values {
                    var record: [String: String] = [:]
                    record["f"] = value
                    record["g"] = other
                    let yes = try evaluate("f" + positive, record)
                    let no = try evaluate("f" + negative, record)
                    #expect(
                        yes != no,
                        "f\(positive) / f\(negative) with f=\(String(describing: value)) g=\(String(describing: other))"
                    )
                }
            }
        }
    }

    @Test func mismatchedValueShapesNeverMatch() {
        let condition = EncodedQuery.Condition(field: "f", op: .like, value: .list(["x"]))
        #expect(condition.matches({ _ in "x" }, now: now) == false)
        let between = EncodedQuery.Condition(field: "f", op: .between, value: .literal("1"))
        #expect(between.matches({ _ in "1" }, now: now) == false)
    }
}
