import Foundation
import GRDB
import Testing
@testable import PhotoStore

@Suite("Stored dates")
struct StoredDateTests {
    /// What GRDB itself stores for `date`, through its DateFormatter.
    func grdbText(_ date: Date) -> String? {
        String.fromDatabaseValue(date.databaseValue)
    }

    @Test func makesTheTextGRDBMakesForAnyDateAPhotoCanHave() {
        // GIVEN dates across the years photosync meets, at every precision, and the edges of
        // days, leap days and milliseconds
        var generator = SystemRandomNumberGenerator()
        var dates = (0..<100_000).map { _ in
            Date(timeIntervalSince1970: Double.random(in: -1e9...4e9, using: &generator))
        }
        dates += (0..<2_000).map { _ in
            Date(timeIntervalSince1970: Double(Int.random(in: 0...4_000_000_000, using: &generator)) / 1000)
        }
        dates += [
            Date(timeIntervalSince1970: 0), Date(timeIntervalSince1970: -0.0005), Date(timeIntervalSince1970: 0.9995),
            Date(timeIntervalSince1970: 951_782_400), // 2000-02-29
            Date(timeIntervalSince1970: 4_107_542_399.999), // 2100-02-28 23:59:59.999
            Date(timeIntervalSinceReferenceDate: 0), Date(timeIntervalSinceReferenceDate: -0.001),
            Date(timeIntervalSince1970: 1_462_287_628), // a photo's created_at
        ]

        // WHEN each is made both ways, THEN the texts are the same
        for date in dates {
            #expect(StoredDate.text(date) == grdbText(date), "\(date.timeIntervalSince1970)")
        }
    }

    @Test func leavesYearsOutsideFourDigitsToGRDB() {
        // GIVEN dates before the year 1000 and after 9999
        for date in [Date.distantPast, Date(timeIntervalSince1970: 300_000_000_000), Date(timeIntervalSince1970: -40_000_000_000)] {
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
}
