import Foundation
import Gallery
import Hummingbird
import HummingbirdTesting
import Logging
import PhotoStore
import PhotoStorePostgres
import PhotoStoreSQLite
import TestSupport
import Testing

/// A client written by someone else for `api.unsplash.com`, given only the mirror's base URL:
/// `python-unsplash` (PyPI), whose `Auth.BASE_API_URL` is the base every request starts from.
/// `.ci/run` installs it; without it this test fails and says so, never skips.
@Suite(.timeLimit(.minutes(5))) struct PythonUnsplashClientTests {
    static let script = """
        import sys
        try:
            from unsplash.api import Api
            from unsplash.auth import Auth
        except ImportError as error:
            print("python-unsplash is not installed (pip install python-unsplash): %s" % error)
            sys.exit(3)
        auth = Auth("any-client-key", "", "")
        auth.BASE_API_URL = sys.argv[1]
        api = Api(auth)
        photos = api.photo.all(per_page=30)
        print("list", ",".join(photo.id for photo in photos))
        print("page2", ",".join(photo.id for photo in api.photo.all(page=2, per_page=2)))
        found = api.search.photos("lake")
        print("search", found["total"], ",".join(photo.id for photo in found["results"]))
        print("random", len(api.photo.random(count=2)))
        print("get", api.photo.get("lake").id)
        print("slug", api.photo.get("a-street-at-night-Street_00-1").id)
        print("download", api.photo.download("lake")["url"])
        """

    @Test(arguments: StoreKind.allCases) func itListsSearchesGetsARandomPhotoAndTriggersADownload(_ kind: StoreKind)
        async throws
    {
        // GIVEN a mirror of a feed of three photos, one of them a lake, and a user's street photo
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        var lake = Sample.photo(
            "lake", day: 3, description: "A quiet lake",
            json: #", "links": {"download": "https://unsplash.com/photos/lake/download"}"#)
        lake.downloadLocation = "https://api.unsplash.com/photos/lake/download?ixid=L"
        try await fixture.commit([lake, Sample.photo("city", day: 2), Sample.photo("road", day: 1)], source: "feed")
        try await fixture.commit([Sample.photo("Street_00-1", day: 9)], source: "user:ann")
        let scriptFile = fixture.directory.appending(path: "client.py")
        try Data(Self.script.utf8).write(to: scriptFile)
        // On PostgreSQL: the same mirror, moved there as `photosync copy` moves one.
        let store: PhotoStore
        switch kind {
        case .sqlite:
            store = try PhotoStore.openExisting(path: fixture.path)
        case .postgres:
            store = try await PostgresStore.open(
                try PostgresLocation(parsing: try await PostgresTestCluster.shared.makeDatabase()), password: nil,
                logger: Logger(label: "PythonUnsplashClientTests"))
            _ = try await MirrorCopy(from: fixture.writer, to: store, origin: fixture.path).run()
        }
        defer { try? store.close() }
        let requests = try (kind == .sqlite ? fixture.writer : store).storage.openDownloadRequests()
        defer { try? requests.close() }

        var logger = Logger(label: "PythonUnsplashClientTests")
        logger.logLevel = .warning
        let gallery = Gallery(store: store, mirror: MirrorConfiguration(downloadRequests: requests))
        try await fixture.serve(gallery, logger: logger) { client in
            let port = try #require(client.port)
            // WHEN the client is pointed at the mirror's base URL
            let (status, output) = try await Self.python(scriptFile.path, "http://127.0.0.1:\(port)/unsplash")

            // THEN it lists, searches, draws and downloads as it would from Unsplash
            #expect(status != 3, "\(output)")
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.contains("list lake,city,road"), "the feed alone, in its order: \(output)")
            #expect(lines.contains("page2 road"), "\(output)")
            #expect(lines.contains("search 1 lake"), "\(output)")
            #expect(lines.contains("random 2"), "\(output)")
            #expect(lines.contains("get lake"), "\(output)")
            #expect(lines.contains("slug Street_00-1"), "\(output)")
            #expect(lines.contains("download https://unsplash.com/photos/lake/download"), "\(output)")
        }
        #expect(try await requests.requested().keys.sorted() == ["lake"], "the download is queued for Unsplash")
    }

    static let collectionsScript = """
        import sys
        from unsplash.api import Api
        from unsplash.auth import Auth
        auth = Auth("any-client-key", "", "")
        auth.BASE_API_URL = sys.argv[1]
        api = Api(auth)
        collections = api.collection.all(per_page=10)
        print("collections", ",".join("%s:%s" % (c.id, c.title.strip()) for c in collections))
        print("page2", ",".join(str(c.id) for c in api.collection.all(page=2, per_page=1)))
        first = collections[0]
        print("owner", first.user.username, first.user.links.self)
        print("links", first.links.self, first.links.html)
        print("cover", first.cover_photo.id)
        """

    @Test func itListsTheMirrorsCollections() async throws {
        // GIVEN the recorded collection and the 2019 one (a numeric id), stored with their photos
        let fixture = try GalleryFixture()
        defer { fixture.remove() }
        try await fixture.storeRecordedCollections()
        let scriptFile = fixture.directory.appending(path: "collections.py")
        try Data(Self.collectionsScript.utf8).write(to: scriptFile)
        let owner = try #require(try JSONShape.parse(try Fixture.collection.data)["user"]?["username"]?.text)

        try await fixture.serve(mirror: MirrorConfiguration()) { client in
            let base = "http://127.0.0.1:\(try #require(client.port))"
            // WHEN python-unsplash lists all collections from the mirror
            let (status, output) = try await Self.python(scriptFile.path, base + "/unsplash")

            // THEN it reads both, newest first, a page at a time, with their owners and links
            #expect(status == 0, "\(output)")
            let lines = output.split(separator: "\n").map(String.init)
            #expect(lines.contains("collections 3773378:Neon Signage,201:Explore Iceland"), "\(output)")
            #expect(lines.contains("page2 201"), "\(output)")
            #expect(
                lines.contains("owner \(owner) \(base)/unsplash/users/\(owner)"), "links a client can follow: \(output)"
            )
            #expect(
                lines.contains(
                    "links \(base)/unsplash/collections/3773378 https://unsplash.com/collections/3773378/neon-signage"),
                "\(output)")
            #expect(lines.contains("cover 32Kch97sX1A"), "\(output)")
        }
    }

    /// Runs `python3 script argument`; its exit status and its output, stderr included.
    static func python(_ script: String, _ argument: String) async throws -> (Int32, String) {
        let pipe = try Spawned.pipe()
        let process = try Spawned(
            "/usr/bin/env", ["python3", script, argument], output: pipe.write.fileDescriptor,
            error: pipe.write.fileDescriptor)
        try? pipe.write.close()
        // A blocking read on a thread of its own: the concurrency pool has as many threads as
        // cores, and the server the script talks to answers on them.
        let output = await withCheckedContinuation { continuation in
            Thread.detachNewThread {
                let output = pipe.read.readDataToEndOfFile()
                try? pipe.read.close()
                continuation.resume(returning: output)
            }
        }
        return (await process.ending().status, String(decoding: output, as: UTF8.self))
    }
}
