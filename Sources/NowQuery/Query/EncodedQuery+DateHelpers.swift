import Foundation

extension EncodedQuery.DateHelper {
    /// The instant this helper denotes at `now`, computed in the session time zone (ref §4.4).
    ///
    /// `now` is first floored to a whole second (stored values have second precision). Days,
    /// weeks, months, quarters and years follow the calendar of `timeZone` (daylight-saving days
    /// have 23 or 25 hours); hours, minutes and seconds are fixed lengths. `n` may be negative (the
    /// future), as the UI's "Next …" ranges use.
    ///
    /// * `daysAgo(n)`, `hoursAgo(n)`, `minutesAgo(n)`, `monthsAgo(n)`, `quartersAgo(n)` (3 months),
    ///   `yearsAgo(n)`: `now` moved back by `n` units, keeping the time of day.
    /// * `…AgoStart(n)`: the first second of the day/hour/minute/month/quarter/year that contains
    ///   the moved instant (`daysAgoStart(0)` is today 00:00:00).
    /// * `…AgoEnd(n)`: the last second of that unit (`daysAgoEnd(0)` is today 23:59:59).
    /// * `beginningOfToday`/`endOfToday`, `…Yesterday`, `…Tomorrow`: `daysAgoStart/End(0, 1, -1)`.
    /// * `beginningOf(period, offset)`/`endOf(period, offset)`: first/last second of this, the
    ///   last or the next week (Monday to Sunday), month, quarter (Jan, Apr, Jul, Oct) or year.
    /// * `dateGenerate(date, time)`: that wall-clock time in `timeZone`; `start` is 00:00:00 and
    ///   `end` 23:59:59.
    /// * `now`: `now`.
    ///
    /// - Parameters:
    ///   - now: The current instant.
    ///   - timeZone: The session user's time zone; nowsim uses UTC.
    public func resolve(now: Date, timeZone: TimeZone) -> Date {
        let clock = SessionCalendar(now: now, timeZone: timeZone)
        switch self {
        case .now: return clock.now
        case .daysAgo(let n): return clock.adding(.day, -n, to: clock.now)
        case .daysAgoStart(let n): return clock.startOfDay(clock.adding(.day, -n, to: clock.now))
        case .daysAgoEnd(let n): return clock.endOfDay(clock.adding(.day, -n, to: clock.now))
        case .hoursAgo(let n): return clock.now - TimeInterval(n * 3600)
        case .hoursAgoStart(let n): return clock.truncated(clock.now - TimeInterval(n * 3600), to: 3600)
        case .hoursAgoEnd(let n): return clock.truncated(clock.now - TimeInterval(n * 3600), to: 3600) + 3599
        case .minutesAgo(let n): return clock.now - TimeInterval(n * 60)
        case .minutesAgoStart(let n): return clock.truncated(clock.now - TimeInterval(n * 60), to: 60)
        case .minutesAgoEnd(let n): return clock.truncated(clock.now - TimeInterval(n * 60), to: 60) + 59
        case .monthsAgo(let n): return clock.adding(.month, -n, to: clock.now)
        case .monthsAgoStart(let n): return clock.startOfMonth(offsetBy: -n, monthsPer: 1)
        case .monthsAgoEnd(let n): return clock.startOfMonth(offsetBy: -n + 1, monthsPer: 1) - 1
        case .quartersAgo(let n): return clock.adding(.month, -3 * n, to: clock.now)
        case .quartersAgoStart(let n): return clock.startOfMonth(offsetBy: -n, monthsPer: 3)
        case .quartersAgoEnd(let n): return clock.startOfMonth(offsetBy: -n + 1, monthsPer: 3) - 1
        case .yearsAgo(let n): return clock.adding(.year, -n, to: clock.now)
        case .yearsAgoStart(let n): return clock.startOfMonth(offsetBy: -n, monthsPer: 12)
        case .yearsAgoEnd(let n): return clock.startOfMonth(offsetBy: -n + 1, monthsPer: 12) - 1
        case .beginningOfToday: return clock.startOfDay(clock.now)
        case .endOfToday: return clock.endOfDay(clock.now)
        case .beginningOfYesterday: return clock.startOfDay(clock.adding(.day, -1, to: clock.now))
        case .endOfYesterday: return clock.endOfDay(clock.adding(.day, -1, to: clock.now))
        case .beginningOfTomorrow: return clock.startOfDay(clock.adding(.day, 1, to: clock.now))
        case .endOfTomorrow: return clock.endOfDay(clock.adding(.day, 1, to: clock.now))
        case .beginningOf(let period, let offset): return clock.start(of: period, offsetBy: offset.step)
        case .endOf(let period, let offset): return clock.start(of: period, offsetBy: offset.step + 1) - 1
        case .dateGenerate(let date, let time): return clock.generate(date: date, time: time)
        }
    }
}

extension EncodedQuery {
    /// The instant `RELATIVEGT`/`RELATIVELT` compare with: `now` (floored to a second) moved
    /// `count` units back (`ago`) or forward (`ahead`).
    ///
    /// Seconds, minutes and hours are fixed lengths; days, weeks (7 days), months, quarters
    /// (3 months) and years follow the calendar of `timeZone`, keeping the time of day.
    public static func relativeInstant(
        unit: RelativeUnit, direction: RelativeDirection, count: Int, now: Date, timeZone: TimeZone
    ) -> Date {
        let clock = SessionCalendar(now: now, timeZone: timeZone)
        let signed = direction == .ago ? -count : count
        switch unit {
        case .second: return clock.now + TimeInterval(signed)
        case .minute: return clock.now + TimeInterval(signed * 60)
        case .hour: return clock.now + TimeInterval(signed * 3600)
        case .day: return clock.adding(.day, signed, to: clock.now)
        case .week: return clock.adding(.day, 7 * signed, to: clock.now)
        case .month: return clock.adding(.month, signed, to: clock.now)
        case .quarter: return clock.adding(.month, 3 * signed, to: clock.now)
        case .year: return clock.adding(.year, signed, to: clock.now)
        }
    }
}

extension EncodedQuery.PeriodOffset {
    /// `this` 0, `last` -1, `next` +1.
    fileprivate var step: Int {
        switch self {
        case .this: 0
        case .last: -1
        case .next: 1
        }
    }
}

/// Calendar arithmetic in the session time zone, with fixed-length fallbacks where Foundation
/// cannot answer (instants far outside any real record).
private struct SessionCalendar {
    let now: Date
    let timeZone: TimeZone
    let calendar: Calendar

    init(now: Date, timeZone: TimeZone) {
        self.now = Date(timeIntervalSince1970: TimeInterval(TableAPIDateFormat.wholeSeconds(now)))
        self.timeZone = timeZone
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = timeZone
        self.calendar = calendar
    }

    func adding(_ component: Calendar.Component, _ value: Int, to date: Date) -> Date {
        if let moved = calendar.date(byAdding: component, value: value, to: date) { return moved }
        let unit: TimeInterval =
            switch component {
            case .month: 2_629_746
            case .year: 31_556_952
            default: 86_400
            }
        return date + unit * TimeInterval(value)
    }

    func startOfDay(_ date: Date) -> Date { calendar.startOfDay(for: date) }

    /// 23:59:59 of the day containing `date` (one second before the next day starts).
    func endOfDay(_ date: Date) -> Date { adding(.day, 1, to: startOfDay(date)) - 1 }

    /// `date` truncated to a multiple of `seconds` in local wall-clock time (hours, minutes), using
    /// the UTC offset in effect at `date` so repeated DST hours truncate correctly.
    func truncated(_ date: Date, to seconds: Int) -> Date {
        let utc = TableAPIDateFormat.wholeSeconds(date)
        let local = utc + timeZone.secondsFromGMT(for: date)
        return Date(
            timeIntervalSince1970: TimeInterval(
                utc - (local - TableAPIDateFormat.floorDivide(local, seconds) * seconds)))
    }

    /// Midnight starting the month/quarter/year (`monthsPer` 1, 3 or 12) containing `now`, moved
    /// by `offset` such periods.
    func startOfMonth(offsetBy offset: Int, monthsPer: Int) -> Date {
        let parts = calendar.dateComponents([.year, .month], from: now)
        let monthIndex = (parts.year ?? 1970) * 12 + (parts.month ?? 1) - 1
        let periodStart = TableAPIDateFormat.floorDivide(monthIndex, monthsPer) * monthsPer + offset * monthsPer
        let year = TableAPIDateFormat.floorDivide(periodStart, 12)
        return midnight(year: year, month: periodStart - year * 12 + 1, day: 1)
    }

    /// Monday 00:00 of the week containing `now`, moved by `offset` weeks; or the month, quarter
    /// or year equivalent.
    func start(of period: EncodedQuery.Period, offsetBy offset: Int) -> Date {
        switch period {
        case .week:
            let today = startOfDay(now)
            let weekday = calendar.component(.weekday, from: today)  // 1 = Sunday … 7 = Saturday
            let sinceMonday = (weekday + 5) % 7
            return startOfDay(adding(.day, 7 * offset - sinceMonday, to: today))
        case .month: return startOfMonth(offsetBy: offset, monthsPer: 1)
        case .quarter: return startOfMonth(offsetBy: offset, monthsPer: 3)
        case .year: return startOfMonth(offsetBy: offset, monthsPer: 12)
        }
    }

    func generate(date: String, time: String) -> Date {
        let (year, month, day) = TableAPIDateFormat.dateComponents(ofDate: date) ?? (1970, 1, 1)
        let (hour, minute, second) =
            switch time {
            case "start": (0, 0, 0)
            case "end": (23, 59, 59)
            default: TableAPIDateFormat.timeComponents(ofTime: time) ?? (0, 0, 0)
            }
        return wallClock(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
    }

    private func midnight(year: Int, month: Int, day: Int) -> Date {
        wallClock(year: year, month: month, day: day, hour: 0, minute: 0, second: 0)
    }

    private func wallClock(year: Int, month: Int, day: Int, hour: Int, minute: Int, second: Int) -> Date {
        let parts = DateComponents(year: year, month: month, day: day, hour: hour, minute: minute, second: second)
        if let date = calendar.date(from: parts) { return date }
        let days = TableAPIDateFormat.days(fromCivil: year, month, day)
        return Date(timeIntervalSince1970: TimeInterval(days * 86_400 + hour * 3600 + minute * 60 + second))
    }
}
