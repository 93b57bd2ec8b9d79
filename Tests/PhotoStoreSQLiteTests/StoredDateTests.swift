import Foundation
import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Stored dates as GRDB's text in SQLite")
struct StoredDateTests {
    /// What GRDB itself stores for `date`, through its DateFormatter.
    func grdbText(_ date: Date) -> String? {
        String.fromDatabaseValue(date.databaseValue)
    }

    /// Dates across the years photosync meets, at every precision, and the edges of days, leap
    /// days, milliseconds and the Gregorian calendar.
    static func manyDates() -> [Date] {
        var generator = SystemRandomNumberGenerator()
        var dates = (0..<100_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -1e9...4e9, using: &generator))
        }
        dates += (0..<2_000).map { _ in
            Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)) / 1000)
        }
        dates += [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0005), Date(timeIntervalSince1970: 0.9995),
            Date(timeIntervalSince1970: 951_782_400),  // 2000-02-29
            Date(timeIntervalSince1970: 4_107_542_399.999),  // 2100-02-28 23:59:59.999
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.001),
            Date(timeIntervalSince1970: 1_462_287_628),  // a photo's created_at
            Date(timeIntervalSince1970: -12_212_553_600),  // 1583-01-01, the first year made here
            // Near 2001, where adding the fraction to the day's start or to the time of day
            // rounds differently
            Date(timeIntervalSinceReferenceDate: 162_021.379), Date(timeIntervalSinceReferenceDate: 744_247.239),
            Date(timeIntervalSince1970: 253_402_300_799.999),  // 9999-12-31 23:59:59.999
        ]
        return dates
    }

    @Test func makesTheTextGRDBMakesForAnyDateAPhotoCanHave() {
        // GIVEN many dates
        // WHEN each is made both ways, THEN the texts are the same
        for date in Self.manyDates() {
            #expect(StoredDate.text(date) == grdbText(date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func leavesYearsBeforeTheGregorianCalendarOrAfter9999ToGRDB() {
        // GIVEN dates after 9999, before the year 1000, and between 1000 and 1582, which
        // Foundation counts in the Julian calendar
        let dates = [
            Date.distantPast, Date(timeIntervalSince1970: 300_000_000_000),
            Date(timeIntervalSince1970: -40_000_000_000),
            Date(timeIntervalSince1970: -14_000_000_000),  // 1526-05-01 (Julian)
            Date(timeIntervalSince1970: -12_219_379_200),  // 1582-10-04, the last Julian day
        ]
        for date in dates {
            // THEN no text is made, and the bound value is GRDB's own
            #expect(StoredDate.text(date) == nil)
            #expect(date.stored.databaseValue == date.databaseValue)
        }
    }

    @Test func readsBackTheDateItStored() throws {
        let queue = try DatabaseQueue()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let read = try queue.read { db in try Date.fetchOne(db, sql: "SELECT ?", arguments: [date.stored]) }
        #expect(read.map { abs($0.timeIntervalSince(date)) < 0.001 } == true)
    }

    @Test func readsTheSameDateGRDBReadsFromEveryTextItMakes() throws {
        // GIVEN the texts of many dates
        for date in Self.manyDates() {
            let text = try #require(StoredDate.text(date))
            // WHEN each is read both ways, THEN the dates are the same Double, to the last bit
            let read = StoredDate.date(text)
            #expect(read != nil, "\(text)")
            #expect(read == Date.fromDatabaseValue(text.databaseValue), "\(text)")
        }
    }

    @Test func writesISO8601AsTheFormatStyleDoes() {
        // GIVEN many dates, and some a moment either side of a whole second
        let dates =
            Self.manyDates() + [Date.distantFuture]
            + [-0.5, -1e-6, 1e-6, 0.999_999, 1_700_000_000.999_999, -1_700_000_000.000_001]
            .map { Date(timeIntervalSinceReferenceDate: $0) }
        for date in dates {
            // THEN the text is the format style's
            #expect(date.iso8601Text == date.formatted(.iso8601), "\(date.timeIntervalSinceReferenceDate)")
        }
        // and the years it does not make itself are the format style's too
        for date in [
            Date.distantPast, Date(timeIntervalSince1970: -14_000_000_000),
            Date(timeIntervalSince1970: 300_000_000_000),
        ] {
            #expect(StoredDate.iso8601(date) == nil)
            #expect(date.iso8601Text == date.formatted(.iso8601))
        }
    }

    @Test(arguments: [
        "2024-02-30 12:00:00.000",  // no such day
        "2023-02-29 12:00:00.000",  // not a leap year
        "2024-13-01 12:00:00.000", "2024-01-01 24:00:00.000", "2024-01-01 12:60:00.000", "2024-01-01 12:00:60.000",
        "1582-10-04 00:00:00.000",  // Julian in Foundation
        "2024-01-01 12:00:00", "2024-01-01T12:00:00.000", "2024-01-01 12:00:00.000Z", "2024-01-01 12:00:00.1234",
        "2024-0a-01 12:00:00.000", "+024-01-01 12:00:00.000", "",
    ])
    func leavesEveryOtherTextToGRDB(text: String) {
        // GIVEN a text in another format, or with a date or time it does not read itself
        // THEN it is not read here, and reading it as a column gives what GRDB gives
        #expect(StoredDate.date(text) == nil)
        #expect(StoredDate.fromDatabaseValue(text.databaseValue)?.date == Date.fromDatabaseValue(text.databaseValue))
    }

    @Test func readsColumnsThroughRows() throws {
        let queue = try DatabaseQueue()
        let date = Date(timeIntervalSince1970: 1_700_000_000.123)
        let row = try queue.read { db in
            try #require(
                try Row.fetchOne(
                    db, sql: "SELECT ? AS stored, NULL AS missing, '2024-01-01T12:00:00Z' AS other",
                    arguments: [date.stored]))
        }
        #expect(try row.decodeDate(forColumn: "stored") == Date.fromDatabaseValue(row["stored"]))
        #expect(try row.decodeDateIfPresent(forColumn: "missing") == nil)
        #expect(try row.decodeDate(forColumn: "other") == Date(timeIntervalSince1970: 1_704_110_400))
    }
}
