import Crypto
import Foundation
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing
import UnsplashStub

/// `photosync list` on a database synced from the stub.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ListEndToEndTests {
        @Test func listsEveryStoredPhotoInEachFormat() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 45)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                func list(_ arguments: [String]) async throws -> PhotosyncProcess.Result {
                    try await PhotosyncProcess.run(
                        ["list", "--database", world.database, "--config", world.config] + arguments)
                }

                let json = try await list(["--json"])
                #expect(json.status == 0, "\(json.stderr)")
                let objects = try json.stdout.split(separator: "\n").map { line in
                    try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                }
                #expect(objects.count == 45)
                for object in objects {
                    let id = try #require(object["id"] as? String)
                    let image = try #require(object["image"] as? [String: Any], "\(id) has no image")
                    #expect(image["sha256"] as? String == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                    #expect((object["user"] as? [String: Any])?["username"] is String)
                }
                let dates = objects.compactMap { $0["created_at"] as? String }
                #expect(dates == dates.sorted(by: >), "newest first")

                let ids = try await list(["--ids", "--sort", "oldest", "--limit", "5", "--offset", "1"])
                #expect(ids.stdout.split(separator: "\n").count == 5)
                #expect(!ids.stdout.contains(" "))

                let csv = try await list(["--csv", "--limit", "3"])
                #expect(csv.stdout.hasPrefix("id,created_at,width,height,"))
                #expect(csv.stdout.split(separator: "\n").count == 4)

                let table = try await PhotosyncProcess.run(
                    ["list", "--database", world.database, "--config", world.config, "--limit", "3"],
                    environment: ["COLUMNS": "80"])
                let lines = table.stdout.split(separator: "\n")
                #expect(lines.first?.hasPrefix("ID") == true && lines.count == 4)
                #expect(lines.allSatisfy { $0.count <= 80 }, "the table fits the terminal")

                let bad = try await list(["--since", "last tuesday"])
                #expect(bad.status == 64)
                #expect(bad.stderr.hasPrefix("photosync: --since must be a date"))
            }
        }
    }
}

/// `photosync search` on a database synced from the stub.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct SearchEndToEndTests {
        @Test func searchFindsWordsPhrasesAndPrefixesAndRefusesWhatItCannotParse() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 120)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                func search(_ arguments: [String]) async throws -> PhotosyncProcess.Result {
                    try await PhotosyncProcess.run(
                        ["search", "--database", world.database, "--config", world.config] + arguments)
                }
                func photos(_ result: PhotosyncProcess.Result) throws -> [[String: Any]] {
                    try result.stdout.split(separator: "\n").map { line in
                        try #require(try JSONSerialization.jsonObject(with: Data(line.utf8)) as? [String: Any])
                    }
                }
                let all = try photos(
                    try await PhotosyncProcess.run([
                        "list", "--json", "--database", world.database, "--config", world.config,
                    ]))
                let inZurich = Set(
                    all.filter { ($0["description"] as? String)?.contains("Zürich") == true }.compactMap {
                        $0["id"] as? String
                    })
                #expect(!inZurich.isEmpty, "the stub's world has photos taken in Zürich")

                let found = try await search(["zurich", "--json"])
                #expect(found.status == 0, "\(found.stderr)")
                #expect(
                    Set(try photos(found).compactMap { $0["id"] as? String }) == inZurich, "diacritics do not matter")

                let phrase = try await search(["\"quiet moments in zürich\"", "--ids"])
                #expect(Set(phrase.stdout.split(separator: "\n").map(String.init)) == inZurich)

                let prefix = try await search(["zür*", "--ids"])
                #expect(Set(prefix.stdout.split(separator: "\n").map(String.init)) == inZurich)

                let bad = try await search(["\"unclosed"])
                #expect(bad.status == 64)
                #expect(bad.stderr.hasPrefix("photosync: cannot search for"))
                #expect(!bad.stderr.contains("SQLite") && !bad.stderr.contains("database error"))
                #expect(bad.stderr.split(separator: "\n").count == 1)
            }
        }
    }
}

/// `photosync export` on a database synced from the stub.
extension EndToEnd {
    @Suite(.serialized, .timeLimit(.minutes(5))) struct ExportEndToEndTests {
        @Test func exportsExactBytesWithAttributionAndASecondExportWritesNothing() async throws {
            let world = try await PhotosyncEndToEndTests.World.start(photos: 40)
            try await withTeardown(await world.stop()) {
                #expect(try await world.sync().status == 0)
                let directory = world.directory.appending(path: "export")
                func export(_ extra: [String] = []) async throws -> PhotosyncProcess.Result {
                    try await PhotosyncProcess.run(
                        ["export", "--database", world.database, "--config", world.config, "--to", directory.path]
                            + extra)
                }

                let first = try await export()
                #expect(first.status == 0, "\(first.stderr)")
                #expect(first.stdout.contains("40 written"))
                let ids = await world.stub.photoIDs()
                for id in ids {
                    let bytes = try Data(contentsOf: directory.appending(path: "\(id).jpg"))
                    #expect(SHA256Hex.of(bytes) == world.stub.expectedSHA256(photoID: id, variant: "regular"))
                }
                let manifest = try String(contentsOf: directory.appending(path: "photos.jsonl"), encoding: .utf8)
                let lines = manifest.split(separator: "\n")
                #expect(lines.count == 40)
                let entry = try #require(try JSONSerialization.jsonObject(with: Data(lines[0].utf8)) as? [String: Any])
                let attribution = try #require(entry["attribution"] as? [String: Any])
                #expect((attribution["text"] as? String)?.hasPrefix("Photo by ") == true)
                #expect(
                    (attribution["photographer_url"] as? String)?.hasSuffix("?utm_source=photosync&utm_medium=referral")
                        == true)
                let modified =
                    try FileManager.default.attributesOfItem(atPath: directory.appending(path: "\(ids[0]).jpg").path)[
                        .modificationDate] as? Date

                let second = try await export()
                #expect(second.stdout.contains("0 written, 40 unchanged"), "\(second.stdout)")
                #expect(
                    try FileManager.default.attributesOfItem(atPath: directory.appending(path: "\(ids[0]).jpg").path)[
                        .modificationDate] as? Date == modified)
                let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.path).filter {
                    $0.hasSuffix(".partial")
                }
                #expect(leftovers.isEmpty)

                let file = world.directory.appending(path: "not-a-directory")
                try Data().write(to: file)
                let refused = try await PhotosyncProcess.run([
                    "export", "--database", world.database, "--config", world.config, "--to", file.path,
                ])
                #expect(refused.status == 73)
                #expect(refused.stderr.hasPrefix("photosync: cannot create"))
            }
        }
    }
}

/// Lowercase hex SHA-256, as the store records it.
enum SHA256Hex {
    static func of(_ data: Data) -> String {
        SHA256.hash(data: data).map { String(format: "%02x", $0) }.joined()
    }
}
