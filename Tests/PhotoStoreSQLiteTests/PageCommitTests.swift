import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Committing pages on SQLite: the photo table's columns")
struct PageCommitTests {
    @Test("a photo row writes every column of the photo table, and only those")
    func photoRowWritesEveryColumn() async throws {
        try await withStore { store, _ in
            let written = try PhotoRow(Sample.photo("a"), sequence: 1, seenAt: Instant.t0).databaseDictionary
            let columns = try await store.pool.read { db in try db.columns(in: "photo").map(\.name) }
            #expect(Set(written.keys) == Set(columns))
            #expect(Set(written.keys) == Set(PhotoRow.CodingKeys.allCases.map(\.rawValue)))
        }
    }
}
