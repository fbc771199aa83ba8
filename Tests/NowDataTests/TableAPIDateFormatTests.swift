import Foundation
import NowData
import Testing

/// The tests of this file, in a suite so that a time limit bounds them (a hang fails by name).
@Suite(.timeLimit(.minutes(3))) struct TableAPIDateFormatTests {}

// MARK: - Formatting

extension TableAPIDateFormatTests {
    @Test(arguments: [
        (0.0, "1970-01-01 00:00:00"),
        (-1.0, "1969-12-31 23:59:59"),
        (1.999, "1970-01-01 00:00:01"),
        (-0.5, "1969-12-31 23:59:59"),
        (951_782_400.0, "2000-02-29 00:00:00"),
        (1_709_251_199.0, "2024-02-29 23:59:59"),
        (253_402_300_799.0, "9999-12-31 23:59:59"),
        (-62_135_596_800.0, "0001-01-01 00:00:00"),
    ])
    private func formatsTableAPIDateTimes(seconds: Double, expected: String) {
        #expect(TableAPIDateFormat.string(from: Date(timeIntervalSince1970: seconds)) == expected)
    }
}

/// The date-time, date and appended forms of `seconds`, which must all tell the same story.
private func allForms(_ seconds: Int) -> (string: String, date: String, appendedDateTime: String, appendedDate: String)
{
    var dateTimeBytes: [UInt8] = Array("x".utf8)
    TableAPIDateFormat.append(dateTime: seconds, to: &dateTimeBytes)
    var dateBytes: [UInt8] = []
    TableAPIDateFormat.append(date: seconds, to: &dateBytes)
    return (
        TableAPIDateFormat.string(fromSeconds: seconds), TableAPIDateFormat.dateString(fromSeconds: seconds),
        String(decoding: dateTimeBytes.dropFirst(), as: UTF8.self), String(decoding: dateBytes, as: UTF8.self)
    )
}

extension TableAPIDateFormatTests {
    @Test func formattingAgreesWithFoundationOverFourCenturies() throws {
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = .gmt
        // Steps of 1 day + 1 h + 1 min + 7 s from 1800 to 2200 hit every day, month and leap rule.
        var seconds = -5_364_662_400
        while seconds < 7_258_118_400 {
            let date = Date(timeIntervalSince1970: TimeInterval(seconds))
            let parts = calendar.dateComponents([.year, .month, .day, .hour, .minute, .second], from: date)
            let expectedDay = String(format: "%04d-%02d-%02d", parts.year!, parts.month!, parts.day!)
            let expected = expectedDay + String(format: " %02d:%02d:%02d", parts.hour!, parts.minute!, parts.second!)
            let text = TableAPIDateFormat.string(from: date)
            let forms = allForms(seconds)
            guard text == expected, forms.string == expected, forms.appendedDateTime == expected,
                forms.date == expectedDay, forms.appendedDate == expectedDay,
                TableAPIDateFormat.dateString(from: date) == expectedDay
            else {
                Issue.record("\(seconds): \(text) \(forms) != \(expected)")
                return
            }
            #expect(TableAPIDateFormat.date(from: text) == date)
            seconds += 86_400 + 3_600 + 60 + 7
        }
    }

    @Test func secondsFormsMatchDateFormatter() {
        func reference(_ seconds: Int, format: String) -> String {
            let formatter = DateFormatter()
            formatter.locale = Locale(identifier: "en_US_POSIX")
            formatter.timeZone = TimeZone(identifier: "UTC")
            formatter.dateFormat = format
            return formatter.string(from: Date(timeIntervalSince1970: TimeInterval(seconds)))
        }
        var samples = [0, 59, 86_399, 86_400, 951_782_400, 1_709_164_800, 1_767_225_599, 4_102_444_800, -1, -86_401]
        var state: UInt64 = 1
        for _ in 0..<2000 {
            // A fixed linear congruential sequence: any instant from 1906 to 2096, the same on every run.
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            samples.append(Int(state >> 33) % 6_000_000_001 - 2_000_000_000)
        }
        for seconds in samples {
            let forms = allForms(seconds)
            let dateTime = reference(seconds, format: "yyyy-MM-dd HH:mm:ss")
            let day = reference(seconds, format: "yyyy-MM-dd")
            #expect(forms.string == dateTime, "\(seconds)")
            #expect(forms.appendedDateTime == dateTime, "\(seconds)")
            #expect(forms.date == day, "\(seconds)")
            #expect(forms.appendedDate == day, "\(seconds)")
        }
    }

    @Test func durationsAreDateTimesFromTheEpoch() {
        // Durations are date-times offset from the epoch (ref §5).
        #expect(TableAPIDateFormat.string(fromSeconds: 137) == "1970-01-01 00:02:17")
        #expect(allForms(2 * 86_400 + 3600).appendedDateTime == "1970-01-03 01:00:00")
    }

    @Test func appendingKeepsWhatTheBufferHolds() {
        var bytes = Array("a,".utf8)
        TableAPIDateFormat.append(dateTime: 1_709_251_199, to: &bytes)
        bytes.append(UInt8(ascii: ","))
        TableAPIDateFormat.append(date: 1_709_251_199, to: &bytes)
        #expect(String(decoding: bytes, as: UTF8.self) == "a,2024-02-29 23:59:59,2024-02-29")
    }

    @Test func datesInOtherTimeZones() throws {
        let instant = Date(timeIntervalSince1970: 1_709_251_199)  // 2024-02-29 23:59:59 UTC
        #expect(
            TableAPIDateFormat.dateString(from: instant, timeZone: try #require(TimeZone(identifier: "Asia/Tokyo")))
                == "2024-03-01")
        #expect(
            TableAPIDateFormat.dateString(from: instant, timeZone: try #require(TimeZone(secondsFromGMT: -3600)))
                == "2024-02-29")
    }

    @Test(arguments: [
        (-62_198_755_200, "-1-01-01 00:00:00", "-1-01-01"),
        (-62_167_219_200, "0000-01-01 00:00:00", "0000-01-01"),
        (253_402_300_800, "10000-01-01 00:00:00", "10000-01-01"),
    ])
    private func yearsOutsideFourDigits(seconds: Int, dateTime: String, day: String) {
        let forms = allForms(seconds)
        #expect(forms.string == dateTime)
        #expect(forms.appendedDateTime == dateTime)
        #expect(forms.date == day)
        #expect(forms.appendedDate == day)
    }
}

// MARK: - Parsing

extension TableAPIDateFormatTests {
    @Test func parsesDateTimesAndDays() {
        #expect(TableAPIDateFormat.date(from: "2024-02-29 23:59:59") == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(TableAPIDateFormat.date(from: "2024-02-29 23:59:59"[...]) == Date(timeIntervalSince1970: 1_709_251_199))
        #expect(TableAPIDateFormat.date(fromDay: "2024-02-29") == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(TableAPIDateFormat.dateString(from: Date(timeIntervalSince1970: 1_709_251_199)) == "2024-02-29")
    }

    @Test(arguments: [
        "", "2024-02-30 00:00:00", "2023-02-29 00:00:00", "1900-02-29 00:00:00", "2024-13-01 00:00:00",
        "2024-00-10 00:00:00", "2024-01-00 00:00:00", "2024-01-01T00:00:00", "2024-01-01 24:00:00",
        "2024-01-01 00:60:00", "2024-01-01 00:00:60", "2024-1-01 00:00:00", "2024-01-01 00:00:00Z",
        "2024-01-01", "２024-01-01 00:00:00", "2024-01-01 0a:00:00",
    ])
    private func rejectsMalformedDateTimes(text: String) {
        #expect(TableAPIDateFormat.date(from: text) == nil)
    }

    @Test func leapDaysOfCenturyYears() {
        #expect(TableAPIDateFormat.date(fromDay: "2000-02-29") != nil)
        #expect(TableAPIDateFormat.date(fromDay: "1900-02-29") == nil)
        #expect(TableAPIDateFormat.date(fromDay: "2024-02-29 ") == nil)
    }
}

// MARK: - Robustness

extension TableAPIDateFormatTests {
    @Test func absurdInstantsDoNotTrap() {
        #expect(TableAPIDateFormat.string(from: .distantFuture).hasPrefix("4001-01-01"))
        #expect(!TableAPIDateFormat.string(from: Date(timeIntervalSince1970: .infinity)).isEmpty)
        #expect(!TableAPIDateFormat.string(from: Date(timeIntervalSince1970: -1e18)).isEmpty)
        #expect(!TableAPIDateFormat.dateString(from: Date(timeIntervalSince1970: .nan)).isEmpty)
        for seconds in [Int.min, Int.max] {
            let forms = allForms(seconds)
            #expect(forms.string == forms.appendedDateTime)
            #expect(forms.date == forms.appendedDate)
            #expect(forms.string.hasPrefix(forms.date))
        }
    }
}
