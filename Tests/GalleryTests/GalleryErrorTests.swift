import Foundation
import GRDB
import Hummingbird
import HummingbirdTesting
import Mustache
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

@testable import Gallery

/// What the gallery answers when it cannot answer, over real HTTP on loopback: a status that
/// says so, in the route's shape, and never the database's path or SQLite's words (those go to
/// the log).
@Suite struct GalleryErrorTests {
    @Test func aReadThatFailsIs503WithoutThePathInEveryShape() async throws {
        // GIVEN a gallery whose database loses its photos table while it serves
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("one", day: 1)])
        let log = LogCapture()
        let gallery = Gallery(store: try PhotoStore.openExisting(path: fixture.path))
        try await fixture.serve(gallery, logger: log.logger(level: .info)) { client in
            #expect(try await client.execute(uri: "/healthz", method: .get).status == .ok)
            let damage = try DatabaseQueue(path: fixture.path)
            try await damage.write { db in try db.execute(sql: "ALTER TABLE photo RENAME TO photo_elsewhere") }
            try damage.close()

            // WHEN each kind of route reads it, THEN each answers 503 in its own shape
            let answers: [(uri: String, type: String)] = [
                ("/healthz", "text/plain; charset=utf-8"), ("/", "text/html; charset=utf-8"),
                ("/photos/one", "text/html; charset=utf-8"), ("/api/photos", "application/json"),
            ]
            for (uri, type) in answers {
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .serviceUnavailable, "\(uri)")
                #expect(response.headers[.contentType] == type, "\(uri)")
                #expect(response.text.contains("the database cannot be read just now"), "\(uri)")
                for secret in [fixture.directory.path, "photosync.sqlite", "no such table", "SELECT"] {
                    #expect(!response.text.contains(secret), "\(uri) tells \(secret)")
                }
            }
            let api = try await client.execute(uri: "/api/photos", method: .get)
            #expect(
                try JSONDecoder().decode([String: String].self, from: Data(buffer: api.body))
                    == ["error": "the database cannot be read just now"])
        }
        // AND the operator finds the path and SQLite's words in the log
        #expect(log.text.contains(fixture.path))
        #expect(log.text.contains("no such table"))
    }

    @Test func aTemplateThatFailsIs500NeverAnEmpty200() async throws {
        // GIVEN a gallery whose page templates cannot render (a library without them)
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("one", day: 1)])
        let log = LogCapture()
        let gallery = Gallery(
            store: try PhotoStore.openExisting(path: fixture.path), pageSize: 30, sources: nil,
            mirror: MirrorConfiguration(), templates: MustacheLibrary())
        try await fixture.serve(gallery, logger: log.logger(level: .info)) { client in
            for uri in ["/", "/?q=%22open", "/photos/one"] {
                // WHEN a page is asked for, THEN the answer is a 500 problem page, not an empty 200
                let response = try await client.execute(uri: uri, method: .get)
                #expect(response.status == .internalServerError, "\(uri)")
                #expect(response.headers[.contentType] == "text/html; charset=utf-8", "\(uri)")
                #expect(response.text.contains("this page could not be made"), "\(uri)")
            }
        }
        #expect(log.text.contains("template=grid"))
        #expect(log.text.contains("template=photo"))
    }

    @Test func badRequestsAndMissingPhotosKeepTheirStatusAndShape() async throws {
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.commit([Sample.photo("one", day: 1)])
        try await fixture.serve { client in
            let page = try await client.execute(uri: "/?page=0", method: .get)
            #expect(page.status == .badRequest)
            #expect(page.headers[.contentType] == "text/html; charset=utf-8")
            #expect(page.text.contains("<h1>Bad request</h1>"))
            let photo = try await client.execute(uri: "/photos/nothing", method: .get)
            #expect(photo.status == .notFound)
            #expect(photo.text.contains("There is no photo nothing in this database."))
            #expect(try await client.execute(uri: "/images/nothing", method: .get).status == .notFound)
            let anchor = try await client.execute(uri: "/api/photos?after=nothing", method: .get)
            #expect(anchor.status == .badRequest)
            #expect(
                try JSONDecoder().decode([String: String].self, from: Data(buffer: anchor.body))
                    == ["error": "after and before must name a stored photo (got 'nothing')"])
        }
    }
}
