import GRDB
import TestSupport
import Testing

@testable import PhotoStore
@testable import PhotoStoreSQLite

@Suite("A colour filter on SQLite: its SQL function, on every connection")
struct PhotoColorSQLFunctionTests {
    @Test func listingsFilterByColourThroughTheSQLFunction() async throws {
        try await withStore { store, _ in
            var photos = ["a", "b", "c"].map { Sample.photo($0) }
            photos[0].color = "#0000ff"
            photos[1].color = "#1030c0"
            photos[2].color = "#ff0000"
            try await store.ledger.commit(photos)
            var query = PhotoQuery(sort: .newest)
            query.color = .blue
            #expect(Set(try await store.catalog.photos(matching: query).map(\.id)) == ["a", "b"])
            #expect(try await store.catalog.count(matching: query) == 2)
            query.text = "photo"
            #expect(try await store.catalog.originalJSONPage(matching: query).total == 2)

            let reader = try PhotoStore.openExisting(path: store.path, readers: 2)
            query.color = .red
            #expect(try await reader.catalog.photos(matching: query).map(\.id) == ["c"], "every connection has it")
        }
    }
}
