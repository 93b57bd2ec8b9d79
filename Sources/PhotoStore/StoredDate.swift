import Foundation

/// A date as GRDB stores one, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, made without a `DateFormatter`.
///
/// GRDB formats every `Date` argument with a shared `DateFormatter`, which on Linux goes through
/// ICU: a page commit binds four dates a photo, and the formatter was about 2 % of a sync's CPU.
/// This makes the same text with integer arithmetic (a test compares the two over many dates),
/// so what is stored does not change.
///
/// Reading is the same story: GRDB turns each date text into a `Date` through a shared
/// `Calendar`, whose first use loads ICU's time zone and locale data, about a millisecond of a
/// `photosync query`. ``date(_:)`` reads the texts this type makes, to the same `Double` GRDB
/// makes (a test compares them too); any other text is left to GRDB.
///
/// Both ways cover the years 1583...9999 only, which every date photosync stores is in:
/// Foundation's Gregorian calendar is Julian before October 1582, and GRDB's format has four
/// digits for the year.
package struct StoredDate: Sendable {
    package let date: Date

    package init(_ date: Date) {
        self.date = date
    }

    /// The years this type formats and reads itself: from the first whole year of the Gregorian
    /// calendar on, four digits.
    package static let years: ClosedRange<Int64> = 1583...9999

    /// Seconds between 1970 and Foundation's reference date (2001).
    private static let referenceSeconds = 978_307_200.0

    /// The text GRDB would store, or nil outside ``years``.
    package static func text(_ date: Date) -> String? {
        // Milliseconds since 1970 computed as Foundation hands them to ICU, which rounds them to
        // the nearest.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + referenceSeconds) * 1000 + 0.5).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return nil }
        let (seconds, millisecond) = floorDivision(Int64(milliseconds), 1000)
        return text(secondsSince1970: seconds, separator: UInt8(ascii: " "), millisecond: millisecond)
    }

    /// The text `date.formatted(.iso8601)` makes, `2024-10-28T12:26:38Z`: UTC, the seconds cut
    /// to whole ones; nil outside ``years``.
    package static func iso8601(_ date: Date) -> String? {
        let seconds = date.timeIntervalSinceReferenceDate.rounded(.down)
        guard seconds.isFinite, abs(seconds) < 1e12 else { return nil }
        return text(
            secondsSince1970: Int64(seconds) + Int64(referenceSeconds), separator: UInt8(ascii: "T"), millisecond: nil)
    }

    /// `yyyy-MM-dd HH:mm:ss.SSS` with `separator` between the date and the time, or
    /// `yyyy-MM-ddTHH:mm:ssZ` without a millisecond; nil outside ``years``.
    private static func text(secondsSince1970: Int64, separator: UInt8, millisecond: Int64?) -> String? {
        let (days, daySeconds) = floorDivision(secondsSince1970, 86_400)
        let (year, month, day) = civil(fromDaysSince1970: days)
        guard years.contains(year) else { return nil }
        let (hour, minute, second) = (daySeconds / 3_600, daySeconds % 3_600 / 60, daySeconds % 60)

        var bytes = [UInt8](repeating: 0, count: 23)
        func put(_ value: Int64, at offset: Int, digits: Int) {
            var value = value
            for index in stride(from: offset + digits - 1, through: offset, by: -1) {
                bytes[index] = UInt8(truncatingIfNeeded: 48 + value % 10)
                value /= 10
            }
        }
        put(year, at: 0, digits: 4)
        bytes[4] = UInt8(ascii: "-")
        put(month, at: 5, digits: 2)
        bytes[7] = UInt8(ascii: "-")
        put(day, at: 8, digits: 2)
        bytes[10] = separator
        put(hour, at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(minute, at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(second, at: 17, digits: 2)
        if let millisecond {
            bytes[19] = UInt8(ascii: ".")
            put(millisecond, at: 20, digits: 3)
            return String(decoding: bytes[..<23], as: UTF8.self)
        }
        bytes[19] = UInt8(ascii: "Z")
        return String(decoding: bytes[..<20], as: UTF8.self)
    }

    /// The date of a text in exactly the form ``text(_:)`` makes, equal to the one GRDB reads
    /// from it; nil for any other text (another format, an impossible day, a year outside
    /// ``years``), which is left to GRDB.
    package static func date(_ text: String) -> Date? {
        var text = text
        return text.withUTF8 { bytes -> Date? in
            guard bytes.count == 23,
                bytes[4] == UInt8(ascii: "-"), bytes[7] == UInt8(ascii: "-"), bytes[10] == UInt8(ascii: " "),
                bytes[13] == UInt8(ascii: ":"), bytes[16] == UInt8(ascii: ":"), bytes[19] == UInt8(ascii: ".")
            else { return nil }
            func number(at offset: Int, digits: Int) -> Int64? {
                var value: Int64 = 0
                for index in offset..<(offset + digits) {
                    let digit = bytes[index] &- UInt8(ascii: "0")
                    guard digit < 10 else { return nil }
                    value = value * 10 + Int64(digit)
                }
                return value
            }
            guard let year = number(at: 0, digits: 4), years.contains(year),
                let month = number(at: 5, digits: 2), (1...12).contains(month),
                let day = number(at: 8, digits: 2), day >= 1, day <= daysIn(month: month, year: year),
                let hour = number(at: 11, digits: 2), hour < 24,
                let minute = number(at: 14, digits: 2), minute < 60,
                let second = number(at: 17, digits: 2), second < 60,
                let millisecond = number(at: 20, digits: 3)
            else { return nil }
            // As Foundation's Gregorian `Calendar.date(from:)` adds them up for GRDB, so that the
            // same steps round to the same Double: the day's start, then the time of day with its
            // fraction already in it.
            let dayStart = Double(daysSince1970(year: year, month: month, day: day)) * 86_400 - referenceSeconds
            var timeOfDay = Double(hour) * 3_600 + Double(minute) * 60
            timeOfDay += Double(second)
            timeOfDay += Double(millisecond * 1_000_000) / 1_000_000_000
            return Date(timeIntervalSinceReferenceDate: dayStart + timeOfDay)
        }
    }

    private static func daysIn(month: Int64, year: Int64) -> Int64 {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// The day count since 1970-01-01 of a proleptic Gregorian date (Howard Hinnant's
    /// `days_from_civil`, the inverse of ``civil(fromDaysSince1970:)``).
    private static func daysSince1970(year: Int64, month: Int64, day: Int64) -> Int64 {
        let year = month <= 2 ? year - 1 : year
        let era = floorDivision(year, 400).quotient
        let yearOfEra = year - era * 400
        let dayOfYear = (153 * (month > 2 ? month - 3 : month + 9) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }

    private static func floorDivision(_ value: Int64, _ divisor: Int64) -> (quotient: Int64, remainder: Int64) {
        let remainder = value % divisor
        return remainder < 0 ? (value / divisor - 1, remainder + divisor) : (value / divisor, remainder)
    }

    /// The proleptic Gregorian date of a day count since 1970-01-01 (Howard Hinnant's
    /// `civil_from_days`).
    private static func civil(fromDaysSince1970 days: Int64) -> (year: Int64, month: Int64, day: Int64) {
        let shifted = days + 719_468
        let era = floorDivision(shifted, 146_097).quotient
        let dayOfEra = shifted - era * 146_097
        let yearOfEra = (dayOfEra - dayOfEra / 1460 + dayOfEra / 36524 - dayOfEra / 146_096) / 365
        let dayOfYear = dayOfEra - (365 * yearOfEra + yearOfEra / 4 - yearOfEra / 100)
        let monthIndex = (5 * dayOfYear + 2) / 153
        let day = dayOfYear - (153 * monthIndex + 2) / 5 + 1
        let month = monthIndex < 10 ? monthIndex + 3 : monthIndex - 9
        return (yearOfEra + era * 400 + (month <= 2 ? 1 : 0), month, day)
    }
}

extension Date {
    /// This date as GRDB stores it, made quickly (see ``StoredDate``).
    package var stored: StoredDate { StoredDate(self) }

    /// This date as `formatted(.iso8601)` writes it, `2024-10-28T12:26:38Z`, for the commands
    /// a person waits for: that format style's first use loads the local time zone through
    /// ICU, about half a millisecond of a `photosync query`. Made by ``StoredDate``'s arithmetic
    /// in its years, which hold every date photosync stores, and by the format style outside them.
    public var iso8601Text: String {
        StoredDate.iso8601(self) ?? formatted(.iso8601)
    }
}

extension Optional where Wrapped == Date {
    package var stored: StoredDate? { map(StoredDate.init) }
}
