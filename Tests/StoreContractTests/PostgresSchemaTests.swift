import Foundation
import Logging
import PhotoStore
import PhotoStoreSQLite
import TestSupport
import Testing

@testable import PhotoStorePostgres

/// PostgreSQL's schema is versioned as SQLite's: a database photosync did not make, or a newer
/// photosync migrated, is refused with one line, and nothing in it is changed.
@Suite("PostgreSQL's schema and its identity")
struct PostgresSchemaTests {
    let logger = Logger(label: "photosync.contract")

    /// Puts version 9's image tallies, by status alone, back in place of version 10's.
    static let withoutVersion10 = """
        DROP TABLE image_tally;
        DROP FUNCTION photosync_tally_images, photosync_tally_image_change CASCADE;
        \(PostgresSchema.version9ImageTallies.joined(separator: ";\n"));
        """

    /// Takes version 9's image tallies out of a database.
    static let withoutVersion9 = """
        DROP TABLE image_tally;
        DROP FUNCTION photosync_tally_images, photosync_tally_image_change CASCADE;
        """

    /// Takes version 8's search, and what came after it, out of a database: version 2's
    /// functions back, every photo's search computed by them, the location and tags columns gone.
    static let withoutVersion8 = """
        \(withoutVersion9)
        \(PostgresSchema.version2Search.joined(separator: ";\n"));
        DROP FUNCTION photosync_search_document(text, text, text, text, text, text), photosync_words(text),
            photosync_term(text, boolean), photosync_search_location(jsonb), photosync_search_tags(jsonb);
        ALTER TABLE photo DROP COLUMN search_location, DROP COLUMN search_tags;
        UPDATE photo SET search = photosync_search_document(description, alt_description, user_name, user_username,
            coalesce((SELECT json FROM photo_details WHERE photo_id = photo.id AND json IS NOT NULL), json));
        """

    /// Takes version 7's record of the image walks, and what came after it, out of a database.
    static let withoutVersion7 = withoutVersion8 + "DROP TABLE image_walk;"

    /// Takes version 7 out, and puts the tracking marks back in the photos' rows, as version 5
    /// kept them.
    static let withoutVersion6 = """
        \(withoutVersion7)
        ALTER TABLE photo ADD COLUMN download_tracked_at timestamptz;
        UPDATE photo SET download_tracked_at = tracking.tracked_at
            FROM download_tracking AS tracking WHERE tracking.photo_id = photo.id;
        CREATE INDEX photo_download_untracked ON photo (sequence)
            WHERE download_tracked_at IS NULL AND download_location IS NOT NULL;
        DROP TABLE download_tracking;
        DROP FUNCTION photosync_download_due CASCADE;
        """

    /// Takes version 5's colour indexes and what came after them out of a database.
    static let withoutVersion5 = withoutVersion6 + "DROP INDEX " + colorIndexes.joined(separator: ", ")

    /// Version 5's index of each colour.
    static let colorIndexes = PhotoColor.allCases.map { "photo_color_\($0.rawValue)" }

    /// Takes version 4's tallies and what came after them out of a database.
    static let withoutVersion4 = """
        \(withoutVersion5);
        DROP TABLE photo_total, source_tally;
        DROP FUNCTION photosync_tally_photos, photosync_tally_memberships CASCADE;
        """

    @Test func anEmptyDatabaseIsMigratedAndOpensAgainAsItIs() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit([Sample.photo("a")])
        try store.close()

        let again = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? again.close() }
        #expect(try await again.ledger.maxSequence() == 1)
    }

    @Test func theReadingCommandsOpenOnlyAMirrorThatRunMade() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        // An empty database holds no mirror yet: `run` makes it, a reader changes nothing.
        await #expect(throws: StoreError.missing(path: location.description)) {
            _ = try await PostgresStore.openExisting(location, password: nil, logger: logger)
        }
        try await PostgresTestCluster.shared.execute(
            "DO $$ BEGIN IF to_regclass('photosync_schema') IS NOT NULL THEN RAISE 'migrated'; END IF; END $$",
            in: url)

        let writer = try await PostgresStore.open(location, password: nil, logger: logger)
        try await writer.ledger.commit([Sample.photo("a")])
        try writer.close()
        let reader = try await PostgresStore.openExisting(location, password: nil, logger: logger)
        defer { try? reader.close() }
        #expect(try await reader.catalog.hasPhoto(id: "a"))
    }

    @Test func aDatabaseOfAnotherApplicationIsRefusedAndLeftAsItIs() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        try await PostgresTestCluster.shared.execute("CREATE TABLE invoices (id integer)", in: url)
        let location = try PostgresLocation(parsing: url)
        await #expect(throws: StoreError.notAPhotosyncDatabase(path: location.description)) {
            _ = try await PostgresStore.open(location, password: nil, logger: logger)
        }
        // Still theirs alone: no table of photosync's was made beside it.
        try await PostgresTestCluster.shared.execute(
            "DO $$ BEGIN IF to_regclass('photo') IS NOT NULL THEN RAISE 'photo was created'; END IF; END $$", in: url)
    }

    @Test func aVersion1DatabaseIsRefusedByReadersUntilMigratedThenItsDetailsIndexIt() async throws {
        // GIVEN a database as version 1 left it: its details re-indexed a photo by touching its
        // JSON, which version 2's trigger takes for no change, and its username index was
        // version 3's prefix
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit([Sample.photo("a")])
        try store.close()
        try await PostgresTestCluster.shared.execute(
            """
            UPDATE photosync_schema SET version = 1;
            \(Self.withoutVersion4)
            DROP INDEX photo_user_newest;
            CREATE INDEX photo_username ON photo (lower(user_username));
            CREATE OR REPLACE FUNCTION photosync_index_details() RETURNS trigger LANGUAGE plpgsql AS $$
            BEGIN UPDATE photo SET json = json WHERE id = NEW.photo_id; RETURN NULL; END $$;
            """, in: url)

        // THEN a reader refuses it, and the writer's open migrates it
        await #expect(throws: StoreError.olderSchema(path: location.description)) {
            _ = try await PostgresStore.openExisting(location, password: nil, logger: logger)
        }
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }
        let details = #"{"id": "a", "tags": [{"title": "volcano"}]}"#
        #expect(try await migrated.photoDetails.store(Data(details.utf8), photoID: "a", at: Date()))
        #expect(try await migrated.catalog.photos(matching: PhotoQuery(text: "volcano")).map(\.id) == ["a"])
        try await PostgresStore.openExisting(location, password: nil, logger: logger).close()
    }

    @Test func aVersion3DatabaseIsTalliedWhenMigratedAndItsTalliesFollowEveryChange() async throws {
        // GIVEN a database as version 3 left it, without tallies, two photos in the feed and one
        // of them in a user's photos too
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit([Sample.photo("a"), Sample.photo("b")])
        try await store.ledger.commit([Sample.photo("a")], source: "user:ann")
        try store.close()
        try await PostgresTestCluster.shared.execute(
            """
            UPDATE photosync_schema SET version = 3;
            \(Self.withoutVersion4)
            """, in: url)

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN the counts the tallies answer are what was there
        func counts() async throws -> [Int] {
            var counts: [Int] = []
            for source in [nil, "feed", "user:ann"] {
                counts.append(try await migrated.catalog.count(matching: PhotoQuery(source: source)))
            }
            let statistics = try await migrated.catalog.statistics()
            return counts + [Int(statistics.photos)] + statistics.sources.map { Int($0.photos) }
        }
        #expect(try await counts() == [2, 2, 1, 2, 2, 1])
        // AND they follow every change: a new photo, one deleted with its memberships, and all
        try await migrated.ledger.commit([Sample.photo("c")], source: "user:ann")
        #expect(try await counts() == [3, 2, 2, 3, 2, 2])
        try await PostgresTestCluster.shared.execute("DELETE FROM photo WHERE id = 'a'", in: url)
        #expect(try await counts() == [2, 1, 1, 2, 1, 1])
        try await PostgresTestCluster.shared.execute("TRUNCATE photo CASCADE", in: url)
        #expect(try await counts() == [0, 0, 0, 0, 0, 0])
    }

    @Test func aVersion8DatabaseCountsItsImagesWhenMigratedAndItsTalliesFollowEveryChange() async throws {
        // GIVEN a database as version 8 left it, without image tallies: a stored image of 8
        // bytes, one failed for good, one pending
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commit(["a", "b", "c"].map { Sample.photo($0) })
        try await store.archive.storeImages(
            [Sample.image("a", variant: Sample.variant, data: Sample.bytes(count: 8), fetchedAt: Instant.t(1))],
            failures: [ImageAttemptFailure(photoID: "b", variant: Sample.variant, error: "410", retryAt: nil)])
        try store.close()
        try await PostgresTestCluster.shared.execute(
            "UPDATE photosync_schema SET version = 8; \(Self.withoutVersion9)", in: url)

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN `status` and the budget count what was there
        func figures() async throws -> [Int64] {
            let statistics = try await migrated.catalog.statistics()
            return [
                statistics.imagesStored, statistics.imagesFailed, statistics.imagesPending, statistics.bytesStored,
                try await migrated.archive.storedBytes(),
            ]
        }
        #expect(try await figures() == [1, 1, 1, 8, 8])
        // AND they follow every change: a photo deleted with its image, and all
        try await PostgresTestCluster.shared.execute("DELETE FROM photo WHERE id = 'a'", in: url)
        #expect(try await figures() == [0, 1, 1, 0, 0])
        try await PostgresTestCluster.shared.execute("TRUNCATE image CASCADE", in: url)
        #expect(try await figures() == [0, 0, 0, 0, 0])
    }

    @Test func aVersion9DatabaseCountsItsImagesByVariantWhenMigratedAndItsTalliesFollowEveryChange() async throws {
        // GIVEN a database as version 9 left it, with tallies by status alone: of two photos'
        // regular images one stored (8 bytes), one pending; their small images pending
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        try await store.ledger.commitPage(
            ["a", "b"].map { Sample.photo($0) }, rejected: [], variant: .regular, moreVariants: [.small], source: .feed,
            now: Instant.t0
        ) { _ in .backfill(next: nil) }
        try await store.archive.storeImages(
            [Sample.image("a", variant: .regular, data: Sample.bytes(count: 8), fetchedAt: Instant.t(1))])
        try store.close()
        try await PostgresTestCluster.shared.execute(
            "UPDATE photosync_schema SET version = 9; \(Self.withoutVersion10)", in: url)
        #expect(try await PostgresTestCluster.shared.query("SELECT count(*) FROM image_tally", in: url) == "4")

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN each variant's images are counted apart, and `status` and the budget add them up
        func figures() async throws -> [Int64] {
            let (regular, small) = (
                try await migrated.imageQueue.imageCounts(variants: [.regular]),
                try await migrated.imageQueue.imageCounts(variants: [.small])
            )
            let statistics = try await migrated.catalog.statistics()
            return [
                regular.stored, regular.pending, small.stored, small.pending, statistics.imagesStored,
                statistics.imagesPending, try await migrated.archive.storedBytes(),
            ]
        }
        #expect(try await figures() == [1, 1, 0, 2, 1, 3, 8])
        // AND they follow every change: a small image stored, a photo deleted with its images, and all
        try await migrated.archive.storeImages(
            [Sample.image("b", variant: .small, data: Sample.bytes(count: 3), fetchedAt: Instant.t(2))])
        #expect(try await figures() == [1, 1, 1, 1, 2, 2, 11])
        try await PostgresTestCluster.shared.execute("DELETE FROM photo WHERE id = 'a'", in: url)
        #expect(try await figures() == [0, 1, 1, 0, 1, 1, 3])
        try await PostgresTestCluster.shared.execute("TRUNCATE image CASCADE", in: url)
        #expect(try await figures() == [0, 0, 0, 0, 0, 0, 0])
    }

    @Test func aVersion7DatabaseIsSearchedAsSQLiteSplitsWordsOnceMigrated() async throws {
        // GIVEN a database as version 7 left it, its documents split by PostgreSQL's parser: a
        // URL's path and a hyphenated word kept whole, a phrase running from one field into the
        // next, the place and tags of a photo's details in its search alone
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        let store = try await PostgresStore.open(location, password: nil, logger: logger)
        var photo = Sample.photo("a")
        (photo.description, photo.altDescription) = ("see puppyhero.com/breed/terrier, a black", "dog short-coated")
        try await store.ledger.commit([photo])
        let details = #"{"id": "a", "tags": [{"title": "volcano"}], "location": {"city": "Reykjavík"}}"#
        #expect(try await store.photoDetails.store(Data(details.utf8), photoID: "a", at: Date()))
        try store.close()
        try await PostgresTestCluster.shared.execute(
            "UPDATE photosync_schema SET version = 7; \(Self.withoutVersion8)", in: url)
        let before = try await PostgresTestCluster.shared.query(
            "SELECT search @@ to_tsquery('simple', 'breed'), search @@ to_tsquery('simple', 'black <-> dog') FROM photo",
            in: url)
        #expect(before == "f|t")

        // WHEN the writer's open migrates it
        let migrated = try await PostgresStore.open(location, password: nil, logger: logger)
        defer { try? migrated.close() }

        // THEN every photo's search has FTS5's words, field by field, and the details' place
        // and tags are kept for the ranking
        func ids(_ text: String) async throws -> [String] {
            try await migrated.catalog.photos(matching: PhotoQuery(text: text, sort: .relevance)).map(\.id)
        }
        for found in ["breed", "puppyhero", "\"short coated\"", "short", "volcano", "reykjavik", "dog"] {
            #expect(try await ids(found) == ["a"], "\(found)")
        }
        #expect(try await ids("\"black dog\"").isEmpty, "a phrase stays within its field")
        let kept = try await PostgresTestCluster.shared.query("SELECT search_location, search_tags FROM photo", in: url)
        #expect(kept == "Reykjavík|volcano")
    }

    @Test func aDatabaseANewerPhotosyncMigratedIsRefused() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase()
        let location = try PostgresLocation(parsing: url)
        try await PostgresStore.open(location, password: nil, logger: logger).close()
        try await PostgresTestCluster.shared.execute("UPDATE photosync_schema SET version = 99", in: url)
        await #expect(throws: StoreError.newerSchema(path: location.description)) {
            _ = try await PostgresStore.open(location, password: nil, logger: logger)
        }
    }

    @Test func aServerThatCannotBeReachedIsOneLineNamingIt() async throws {
        let location = try PostgresLocation(parsing: "postgres://nobody@/photos?host=/nonexistent-photosync-socket")
        do {
            _ = try await PostgresStore.open(location, password: nil, logger: logger)
            Issue.record("opened a database that does not exist")
        } catch {
            guard case .unavailable(let name, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == location.description)
            #expect(reason.contains("No such file or directory"), "the network's reason: \(reason)")
        }
    }

    @Test func aWrongPasswordIsRefusedAndTheRightOneLetsAnOrdinaryRoleMigrate() async throws {
        let url = try await PostgresTestCluster.shared.makeDatabase(owner: PostgresTestCluster.passwordUser)
        let location = try PostgresLocation(parsing: url)
        do {
            _ = try await PostgresStore.open(location, password: "wrong", logger: logger)
            Issue.record("a wrong password was let in")
        } catch {
            guard case .loginRefused(let name, let reason) = error else {
                Issue.record("\(error)")
                return
            }
            #expect(name == location.description && reason.contains("28P01"), "\(reason)")
            #expect(!error.localizedDescription.contains("wrong"), "the password is never said")
        }
        // No superuser: the database's owner creates `unaccent` (a trusted extension) and the tables.
        let store = try await PostgresStore.open(location, password: PostgresTestCluster.password, logger: logger)
        defer { try? store.close() }
        try await store.ledger.commit([Sample.photo("a")])
        #expect(try await store.catalog.hasPhoto(id: "a"))
    }
}
