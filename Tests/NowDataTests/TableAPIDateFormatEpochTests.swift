import Foundation
import NowData
import Testing

/// The epoch-count forms of `TableAPIDateFormat` that nowetl's sinks use agree with its `Date` forms.
@Suite(.timeLimit(.minutes(5))) struct TableAPIDateFormatEpochTests {
    @Test func epochCountsAgreeWithTheDateForms() {
        var mismatches: [Int] = []
        var seconds = -62_167_219_200  // 0000-01-01 00:00:00
        while seconds < 253_402_300_800 {  // 10000-01-01 00:00:00
            let text = TableAPIDateFormat.string(fromSeconds: seconds)
            let dayText = TableAPIDateFormat.dateString(fromSeconds: seconds)
            let (days, secondOfDay) = TableAPIDateFormat.day(ofSeconds: seconds)
            var dayBytes: [UInt8] = []
            TableAPIDateFormat.append(day: days, to: &dayBytes)
            let date = TableAPIDateFormat.date(from: text)
            if TableAPIDateFormat.seconds(fromDateTime: text) != seconds
                || date.map({ Int($0.timeIntervalSince1970) }) != seconds
                || TableAPIDateFormat.days(fromDate: dayText) != days
                || String(decoding: dayBytes, as: UTF8.self) != dayText
                || days * 86_400 + secondOfDay != seconds || !(0..<86_400).contains(secondOfDay)
            {
                mismatches.append(seconds)
            }
            seconds += 9_876_543
        }
        #expect(mismatches.isEmpty, "\(mismatches.prefix(5))")
    }

    @Test func calendarArithmeticRoundTrips() {
        #expect(TableAPIDateFormat.days(fromCivil: 1970, 1, 1) == 0)
        #expect(TableAPIDateFormat.days(fromCivil: 2000, 2, 29) == 11_016)
        #expect(TableAPIDateFormat.civil(fromDays: -719_162) == (1, 1, 1))
        #expect(TableAPIDateFormat.day(ofSeconds: -1) == (-1, 86_399))
        for days in stride(from: -800_000, through: 3_000_000, by: 997) {
            let (year, month, day) = TableAPIDateFormat.civil(fromDays: days)
            #expect(TableAPIDateFormat.days(fromCivil: year, month, day) == days)
        }
    }

    @Test(arguments: ["2024-02-30", "2024-13-01", "2024-1-01", "", "20240101", "2024-01-01 "])
    func invalidDaysDoNotParse(text: String) {
        #expect(TableAPIDateFormat.days(fromDate: text) == nil)
        #expect(TableAPIDateFormat.date(fromDay: text) == nil)
    }
}
