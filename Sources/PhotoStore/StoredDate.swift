import Foundation
import GRDB

/// A date as GRDB stores one, `yyyy-MM-dd HH:mm:ss.SSS` in UTC, made without a `DateFormatter`.
///
/// GRDB formats every `Date` argument with a shared `DateFormatter`, which on Linux goes through
/// ICU: a page commit binds four dates a photo, and the formatter was about 2 % of a sync's CPU.
/// This makes the same text with integer arithmetic (a test compares the two over many dates),
/// so what is stored, and how GRDB reads it back, does not change. Years outside 1000...9999,
/// which photosync never stores, are left to GRDB.
struct StoredDate: DatabaseValueConvertible {
    let date: Date

    init(_ date: Date) {
        self.date = date
    }

    var databaseValue: DatabaseValue {
        Self.text(date).map { $0.databaseValue } ?? date.databaseValue
    }

    static func fromDatabaseValue(_ dbValue: DatabaseValue) -> StoredDate? {
        Date.fromDatabaseValue(dbValue).map(StoredDate.init)
    }

    /// Seconds between 1970 and Foundation's reference date (2001).
    private static let referenceSeconds = 978_307_200.0

    /// The text GRDB would store, or nil outside the years 1000...9999.
    static func text(_ date: Date) -> String? {
        // Milliseconds since 1970 computed as Foundation hands them to ICU, which rounds them to
        // the nearest.
        let milliseconds = ((date.timeIntervalSinceReferenceDate + referenceSeconds) * 1000 + 0.5).rounded(.down)
        guard milliseconds.isFinite, abs(milliseconds) < 1e15 else { return nil }
        let total = Int64(milliseconds)
        let (days, dayMilliseconds) = floorDivision(total, 86_400_000)
        let (year, month, day) = civil(fromDaysSince1970: days)
        guard (1000...9999).contains(year) else { return nil }
        let (hour, hourRest) = (dayMilliseconds / 3_600_000, dayMilliseconds % 3_600_000)
        let (minute, minuteRest) = (hourRest / 60_000, hourRest % 60_000)
        let (second, millisecond) = (minuteRest / 1000, minuteRest % 1000)

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
        bytes[10] = UInt8(ascii: " ")
        put(hour, at: 11, digits: 2)
        bytes[13] = UInt8(ascii: ":")
        put(minute, at: 14, digits: 2)
        bytes[16] = UInt8(ascii: ":")
        put(second, at: 17, digits: 2)
        bytes[19] = UInt8(ascii: ".")
        put(millisecond, at: 20, digits: 3)
        return String(decoding: bytes, as: UTF8.self)
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
    var stored: StoredDate { StoredDate(self) }
}

extension Optional where Wrapped == Date {
    var stored: StoredDate? { map(StoredDate.init) }
}
