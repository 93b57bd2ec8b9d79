import Foundation
import GRDB
import Synchronization
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("Committing pages on SQLite: the photo table's columns")
struct PageCommitTests {
    @Test("a page commit writes every column of the photo table, and keeps only its own")
    func pageCommitsWriteEveryColumn() async throws {
        try await withStore { store, _ in
            let written = MirrorPhoto.mapping.description.columns.map(\.name)
            let columns = try await store.pool.read { db in try db.columns(in: "photo").map(\.name) }
            #expect(Set(written) == Set(columns))
            #expect(LedgerStatements.keptByPageCommits.isSubset(of: Set(columns)))
        }
    }
}
