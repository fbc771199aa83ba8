import Foundation
import NowData
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct EncodedQueryDateHelperTests {}

private typealias Helper = EncodedQuery.DateHelper

private func utc(_ text: String) -> Date {
    guard let date = TableAPIDateFormat.date(from: text) else { fatalError("bad test date \(text)") }
    return date
}

/// Wednesday 2024-05-15 10:30:45.75 UTC (a leap year, so February has 29 days).
private let wednesday = utc("2024-05-15 10:30:45") + 0.75

// MARK: - Helpers in UTC

private let utcExpectations: [(Helper, String)] = [
    (.now, "2024-05-15 10:30:45"),
    (.daysAgo(3), "2024-05-12 10:30:45"),
    (.daysAgo(-1), "2024-05-16 10:30:45"),
    (.daysAgoStart(3), "2024-05-12 00:00:00"),
    (.daysAgoEnd(3), "2024-05-12 23:59:59"),
    (.daysAgoStart(0), "2024-05-15 00:00:00"),
    (.daysAgoEnd(0), "2024-05-15 23:59:59"),
    (.daysAgoStart(-1), "2024-05-16 00:00:00"),
    (.daysAgoStart(15), "2024-04-30 00:00:00"),
    (.hoursAgo(2), "2024-05-15 08:30:45"),
    (.hoursAgoStart(2), "2024-05-15 08:00:00"),
    (.hoursAgoEnd(2), "2024-05-15 08:59:59"),
    (.hoursAgoStart(11), "2024-05-14 23:00:00"),
    (.minutesAgo(45), "2024-05-15 09:45:45"),
    (.minutesAgoStart(45), "2024-05-15 09:45:00"),
    (.minutesAgoEnd(45), "2024-05-15 09:45:59"),
    (.minutesAgoEnd(0), "2024-05-15 10:30:59"),
    (.monthsAgo(3), "2024-02-15 10:30:45"),
    (.monthsAgoStart(3), "2024-02-01 00:00:00"),
    (.monthsAgoEnd(3), "2024-02-29 23:59:59"),
    (.monthsAgoStart(5), "2023-12-01 00:00:00"),
    (.monthsAgoEnd(-8), "2025-01-31 23:59:59"),
    (.quartersAgo(1), "2024-02-15 10:30:45"),
    (.quartersAgoStart(0), "2024-04-01 00:00:00"),
    (.quartersAgoEnd(0), "2024-06-30 23:59:59"),
    (.quartersAgoStart(1), "2024-01-01 00:00:00"),
    (.quartersAgoEnd(1), "2024-03-31 23:59:59"),
    (.quartersAgoStart(2), "2023-10-01 00:00:00"),
    (.yearsAgo(1), "2023-05-15 10:30:45"),
    (.yearsAgoStart(1), "2023-01-01 00:00:00"),
    (.yearsAgoEnd(1), "2023-12-31 23:59:59"),
    (.beginningOfToday, "2024-05-15 00:00:00"),
    (.endOfToday, "2024-05-15 23:59:59"),
    (.beginningOfYesterday, "2024-05-14 00:00:00"),
    (.endOfYesterday, "2024-05-14 23:59:59"),
    (.beginningOfTomorrow, "2024-05-16 00:00:00"),
    (.endOfTomorrow, "2024-05-16 23:59:59"),
    (.beginningOf(.week, .this), "2024-05-13 00:00:00"),
    (.endOf(.week, .this), "2024-05-19 23:59:59"),
    (.beginningOf(.week, .last), "2024-05-06 00:00:00"),
    (.endOf(.week, .last), "2024-05-12 23:59:59"),
    (.beginningOf(.week, .next), "2024-05-20 00:00:00"),
    (.endOf(.week, .next), "2024-05-26 23:59:59"),
    (.beginningOf(.month, .this), "2024-05-01 00:00:00"),
    (.endOf(.month, .this), "2024-05-31 23:59:59"),
    (.beginningOf(.month, .last), "2024-04-01 00:00:00"),
    (.endOf(.month, .last), "2024-04-30 23:59:59"),
    (.beginningOf(.month, .next), "2024-06-01 00:00:00"),
    (.endOf(.month, .next), "2024-06-30 23:59:59"),
    (.beginningOf(.quarter, .this), "2024-04-01 00:00:00"),
    (.endOf(.quarter, .this), "2024-06-30 23:59:59"),
    (.beginningOf(.quarter, .last), "2024-01-01 00:00:00"),
    (.endOf(.quarter, .last), "2024-03-31 23:59:59"),
    (.beginningOf(.quarter, .next), "2024-07-01 00:00:00"),
    (.endOf(.quarter, .next), "2024-09-30 23:59:59"),
    (.beginningOf(.year, .this), "2024-01-01 00:00:00"),
    (.endOf(.year, .this), "2024-12-31 23:59:59"),
    (.beginningOf(.year, .last), "2023-01-01 00:00:00"),
    (.endOf(.year, .last), "2023-12-31 23:59:59"),
    (.beginningOf(.year, .next), "2025-01-01 00:00:00"),
    (.endOf(.year, .next), "2025-12-31 23:59:59"),
    (.dateGenerate(date: "2015-10-07", time: "00:00:00"), "2015-10-07 00:00:00"),
    (.dateGenerate(date: "2024-01-31", time: "12:34:56"), "2024-01-31 12:34:56"),
    (.dateGenerate(date: "2024-01-31", time: "start"), "2024-01-31 00:00:00"),
    (.dateGenerate(date: "2024-01-31", time: "end"), "2024-01-31 23:59:59"),
]

extension EncodedQueryDateHelperTests {
    @Test(arguments: utcExpectations)
    private func resolvesInUTC(helper: Helper, expected: String) {
        let resolved = helper.resolve(now: wednesday, timeZone: .gmt)
        #expect(TableAPIDateFormat.string(from: resolved) == expected)
        #expect(resolved.timeIntervalSince1970 == resolved.timeIntervalSince1970.rounded(.down))
    }

    @Test(arguments: [
        ("2024-05-13 00:00:00", "2024-05-13 00:00:00"),  // Monday midnight is its own week start
        ("2024-05-19 23:59:59", "2024-05-13 00:00:00"),  // Sunday belongs to the week that began Monday
        ("2024-05-20 00:00:00", "2024-05-20 00:00:00"),
        ("2024-01-03 12:00:00", "2024-01-01 00:00:00"),
        ("2021-01-01 12:00:00", "2020-12-28 00:00:00"),  // across a year boundary
    ])
    private func weeksStartOnMonday(now: String, weekStart: String) {
        let resolved = Helper.beginningOf(.week, .this).resolve(now: utc(now), timeZone: .gmt)
        #expect(TableAPIDateFormat.string(from: resolved) == weekStart)
    }

    @Test func monthArithmeticClampsToTheLastDay() {
        let endOfMay = utc("2024-05-31 10:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.monthsAgo(3).resolve(now: endOfMay, timeZone: .gmt))
                == "2024-02-29 10:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.monthsAgoEnd(3).resolve(now: endOfMay, timeZone: .gmt))
                == "2024-02-29 23:59:59")
        let leapDay = utc("2024-02-29 08:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.yearsAgo(1).resolve(now: leapDay, timeZone: .gmt))
                == "2023-02-28 08:00:00")
    }
}

// MARK: - Helpers in other time zones

extension EncodedQueryDateHelperTests {
    @Test func resolvesInTheSessionTimeZone() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        // 02:30 UTC is 22:30 the previous evening in New York (EDT, UTC-4).
        let now = utc("2024-05-15 02:30:00")
        func resolved(_ helper: Helper) -> String {
            TableAPIDateFormat.string(from: helper.resolve(now: now, timeZone: newYork))
        }
        #expect(resolved(.beginningOfToday) == "2024-05-14 04:00:00")
        #expect(resolved(.endOfToday) == "2024-05-15 03:59:59")
        #expect(resolved(.daysAgoStart(1)) == "2024-05-13 04:00:00")
        #expect(resolved(.beginningOf(.month, .this)) == "2024-05-01 04:00:00")
        #expect(resolved(.beginningOf(.week, .this)) == "2024-05-13 04:00:00")
        #expect(resolved(.dateGenerate(date: "2024-01-31", time: "00:00:00")) == "2024-01-31 05:00:00")  // EST
        #expect(resolved(.dateGenerate(date: "2024-07-04", time: "end")) == "2024-07-05 03:59:59")  // EDT
    }

    @Test func daylightSavingDaysHaveTheirRealLength() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        // 2024-03-10 is 23 hours long in New York; 2024-11-03 is 25 hours long.
        let spring = utc("2024-03-10 18:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.beginningOfToday.resolve(now: spring, timeZone: newYork))
                == "2024-03-10 05:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.endOfToday.resolve(now: spring, timeZone: newYork))
                == "2024-03-11 03:59:59")
        let autumn = utc("2024-11-03 18:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.beginningOfToday.resolve(now: autumn, timeZone: newYork))
                == "2024-11-03 04:00:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.endOfToday.resolve(now: autumn, timeZone: newYork))
                == "2024-11-04 04:59:59")
        // 05:30 UTC on 2024-11-03 is 01:30 EDT... and 06:30 UTC is 01:30 EST: each truncates to its own hour.
        #expect(
            TableAPIDateFormat.string(
                from: Helper.hoursAgoStart(0).resolve(now: utc("2024-11-03 05:30:00"), timeZone: newYork))
                == "2024-11-03 05:00:00")
        #expect(
            TableAPIDateFormat.string(
                from: Helper.hoursAgoStart(0).resolve(now: utc("2024-11-03 06:30:00"), timeZone: newYork))
                == "2024-11-03 06:00:00")
    }

    @Test func hoursTruncateInLocalTimeForHalfHourZones() throws {
        let kolkata = try #require(TimeZone(identifier: "Asia/Kolkata"))
        // 10:30:45 UTC is 16:00:45 IST (UTC+5:30).
        #expect(
            TableAPIDateFormat.string(from: Helper.hoursAgoStart(0).resolve(now: wednesday, timeZone: kolkata))
                == "2024-05-15 10:30:00")
        #expect(
            TableAPIDateFormat.string(from: Helper.hoursAgoEnd(0).resolve(now: wednesday, timeZone: kolkata))
                == "2024-05-15 11:29:59")
        #expect(
            TableAPIDateFormat.string(from: Helper.beginningOfToday.resolve(now: wednesday, timeZone: kolkata))
                == "2024-05-14 18:30:00")
    }

    @Test func comparisonTextOfDateFieldsIsTheSessionDate() throws {
        let newYork = try #require(TimeZone(identifier: "America/New_York"))
        let now = utc("2024-05-15 02:30:00")
        #expect(Helper.beginningOfToday.comparisonText(now: now, timeZone: newYork, kind: .date) == "2024-05-14")
        #expect(
            Helper.beginningOfToday.comparisonText(now: now, timeZone: newYork, kind: .dateTime)
                == "2024-05-14 04:00:00")
        #expect(Helper.beginningOfToday.comparisonText(now: now, timeZone: newYork, kind: nil) == "2024-05-14 04:00:00")
        #expect(EncodedQuery.Operand.literal("x").comparisonText(now: now, timeZone: newYork, kind: .date) == "x")
    }
}

// MARK: - RELATIVEGT / RELATIVELT instants

extension EncodedQueryDateHelperTests {
    @Test(arguments: [
        (EncodedQuery.RelativeUnit.second, EncodedQuery.RelativeDirection.ago, 30, "2024-05-15 10:30:15"),
        (.minute, .ahead, 30, "2024-05-15 11:00:45"),
        (.hour, .ago, 1, "2024-05-15 09:30:45"),
        (.day, .ago, 15, "2024-04-30 10:30:45"),
        (.week, .ago, 2, "2024-05-01 10:30:45"),
        (.month, .ahead, 1, "2024-06-15 10:30:45"),
        (.quarter, .ahead, 1, "2024-08-15 10:30:45"),
        (.year, .ago, 1, "2023-05-15 10:30:45"),
        (.day, .ago, 0, "2024-05-15 10:30:45"),
    ])
    private func relativeInstants(
        unit: EncodedQuery.RelativeUnit, direction: EncodedQuery.RelativeDirection, count: Int, expected: String
    ) {
        let instant = EncodedQuery.relativeInstant(
            unit: unit, direction: direction, count: count, now: wednesday, timeZone: .gmt)
        #expect(TableAPIDateFormat.string(from: instant) == expected)
    }

    @Test func absurdOffsetsDoNotTrap() {
        #expect(!Helper.yearsAgo(1_000_000).resolve(now: wednesday, timeZone: .gmt).timeIntervalSince1970.isNaN)
    }
}
