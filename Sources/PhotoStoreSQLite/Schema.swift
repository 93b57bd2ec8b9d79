import GRDB
import PhotoStore

/// The database schema, as a list of named migrations.
///
/// Migrations are append-only history: never edit or reorder one that has shipped, add a new one.
/// They use plain SQL and no application type, so that an old database always migrates the way
/// it did when the migration was written.
///
/// Conventions the rest of the store relies on:
/// - Dates are TEXT in GRDB's form, "YYYY-MM-DD HH:MM:SS.SSS" in UTC: ISO-8601 as SQLite's date
///   functions read it, and ordered the same as text and as time.
/// - `photo.json` is TEXT so that SQLite's JSON functions can read it (SQLite 3.40 refuses BLOBs).
/// - Image bytes live in `image_data`, apart from the job row in `image`, so that queue queries
///   and statistics never read a blob page. `image_data` is a rowid table so that incremental
///   blob I/O can address its rows.
/// - Page cursors are path and query ("/photos?page=2&per_page=30"), resolved against the
///   configured API base on every request, so that the database is not tied to one host. They
///   were kept in `sync_state` (the feed's, before v6) and are kept per source in `source` since.
/// - `photo_source` says which sources listed a photo; a photo itself is stored once.
/// - `rejected_photo` keeps the feed's elements that are not usable photos (no id, a field of the
///   wrong type), one row per distinct JSON text, so that one bad photo does not block its page.
enum Schema {
    /// `PRAGMA application_id` of a photosync database ("PSNC"): tells our files from other
    /// SQLite databases. Migration v1 writes this value as a literal; keep both equal.
    static let applicationID: Int32 = 0x5053_4E43

    /// Builds the search index over every stored photo: the one migration that takes a while.
    static let searchMigration = "v4 full-text search"

    /// Lets an image's bytes be pruned to keep within `storage_limit`, and keeps the total of
    /// stored bytes.
    static let storageBudgetMigration = "v8 storage budget"

    /// Keeps each photo's full object, and lets search find a photo by its place and tags.
    static let photoDetailsMigration = "v15 photo details"

    static var migrator: DatabaseMigrator {
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1 photos, images, sync state") { db in
            try db.execute(
                sql: """
                    CREATE TABLE photo (
                        id TEXT NOT NULL PRIMARY KEY CHECK (id <> ''),
                        sequence INTEGER NOT NULL UNIQUE CHECK (sequence > 0),
                        created_at TEXT,
                        updated_at TEXT,
                        width INTEGER CHECK (width >= 0),
                        height INTEGER CHECK (height >= 0),
                        color TEXT,
                        blur_hash TEXT,
                        description TEXT,
                        alt_description TEXT,
                        user_username TEXT,
                        user_name TEXT,
                        likes INTEGER CHECK (likes >= 0),
                        is_sponsored INTEGER NOT NULL CHECK (is_sponsored IN (0, 1)),
                        download_location TEXT,
                        download_tracked_at TEXT,
                        json TEXT NOT NULL CHECK (json_valid(json)),
                        first_seen_at TEXT NOT NULL,
                        last_seen_at TEXT NOT NULL
                    );
                    CREATE INDEX photo_created_at ON photo(created_at);
                    CREATE INDEX photo_user_username ON photo(user_username);
                    CREATE INDEX photo_download_untracked ON photo(sequence)
                        WHERE download_tracked_at IS NULL AND download_location IS NOT NULL;

                    CREATE TABLE image (
                        id INTEGER PRIMARY KEY,
                        photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                        variant TEXT NOT NULL CHECK (variant <> ''),
                        status TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'stored', 'failed')),
                        source_url TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        last_error TEXT,
                        next_attempt_at TEXT,
                        content_type TEXT,
                        byte_count INTEGER CHECK (byte_count >= 0),
                        sha256 TEXT CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
                        fetched_at TEXT,
                        UNIQUE (photo_id, variant),
                        CHECK (status <> 'stored' OR (content_type IS NOT NULL AND byte_count IS NOT NULL
                            AND sha256 IS NOT NULL AND fetched_at IS NOT NULL))
                    );
                    CREATE INDEX image_queue ON image(status, variant, next_attempt_at);

                    CREATE TABLE image_data (
                        image_id INTEGER PRIMARY KEY REFERENCES image(id) ON DELETE CASCADE,
                        bytes BLOB NOT NULL
                    );

                    CREATE TABLE sync_state (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        backfill_next TEXT,
                        backfill_complete INTEGER NOT NULL DEFAULT 0 CHECK (backfill_complete IN (0, 1)),
                        catch_up_next TEXT,
                        catch_up_baseline INTEGER,
                        last_page_at TEXT,
                        CHECK ((catch_up_next IS NULL) = (catch_up_baseline IS NULL))
                    );
                    INSERT INTO sync_state (id) VALUES (1);

                    PRAGMA application_id = 1347636803;
                    """)
        }
        migrator.registerMigration("v2 page cursors relative to the API") { db in
            // Cursors were absolute `Link` URLs, which tied the database to one API host. Keep
            // their path and query only ("/photos?page=2&per_page=30"); a value of another shape
            // becomes NULL, which restarts that walk from page 1: refetching is safe, skipping is not.
            func relative(_ column: String) -> String {
                let rest = "substr(\(column), instr(\(column), '://') + 3)"
                return """
                    CASE
                        WHEN \(column) IS NULL OR \(column) LIKE '/%' THEN \(column)
                        WHEN instr(\(column), '://') > 0 AND instr(\(rest), '/') > 0
                            THEN substr(\(rest), instr(\(rest), '/'))
                        ELSE NULL
                    END
                    """
            }
            // One statement, so that a catch-up losing its cursor loses its baseline with it
            // (sync_state's CHECK): in progress means catch_up_next IS NOT NULL.
            try db.execute(
                sql: """
                    UPDATE sync_state SET
                        backfill_next = \(relative("backfill_next")),
                        catch_up_next = \(relative("catch_up_next")),
                        catch_up_baseline = CASE WHEN \(relative("catch_up_next")) IS NULL THEN NULL ELSE catch_up_baseline END
                    """)
        }
        migrator.registerMigration("v3 rejected photos, backfill stalls") { db in
            try db.execute(
                sql: """
                    CREATE TABLE rejected_photo (
                        id INTEGER PRIMARY KEY,
                        photo_id TEXT,
                        json TEXT NOT NULL UNIQUE,
                        reason TEXT NOT NULL,
                        first_seen_at TEXT NOT NULL,
                        last_seen_at TEXT NOT NULL
                    );
                    CREATE INDEX rejected_photo_photo_id ON rejected_photo(photo_id);

                    ALTER TABLE sync_state ADD COLUMN backfill_stall_reason TEXT;
                    ALTER TABLE sync_state ADD COLUMN backfill_stalled_at TEXT;
                    """)
        }
        migrator.registerMigration(searchMigration) { db in
            // An FTS5 index over what people search photos by. Triggers keep it current inside
            // the transaction that stores each page, so search never sees half a page. Its
            // rowid is the photo's sequence. Written out here, not derived from app types:
            // a migration must not change when the code does.
            let document = v4SearchDocument
            try db.execute(
                sql: """
                    CREATE VIRTUAL TABLE photo_search USING fts5(
                        description, alt_description, user_name, user_username, location, tags,
                        tokenize = 'unicode61 remove_diacritics 2');

                    INSERT INTO photo_search (rowid, description, alt_description, user_name, user_username, location, tags)
                    SELECT photo.sequence, \(document("photo")) FROM photo;

                    CREATE TRIGGER photo_search_insert AFTER INSERT ON photo BEGIN
                        INSERT INTO photo_search (rowid, description, alt_description, user_name, user_username, location, tags)
                        VALUES (new.sequence, \(document("new")));
                    END;
                    CREATE TRIGGER photo_search_update AFTER UPDATE ON photo BEGIN
                        DELETE FROM photo_search WHERE rowid = old.sequence;
                        INSERT INTO photo_search (rowid, description, alt_description, user_name, user_username, location, tags)
                        VALUES (new.sequence, \(document("new")));
                    END;
                    CREATE TRIGGER photo_search_delete AFTER DELETE ON photo BEGIN
                        DELETE FROM photo_search WHERE rowid = old.sequence;
                    END;
                    """)
        }
        migrator.registerMigration("v5 search index follows only its columns") { db in
            // v4's update trigger re-indexed a photo on any change to its row, so that marking
            // its download tracked rewrote its search entry: five times the cost of that small
            // write. The document is built from these columns alone (see v4).
            try db.execute(
                sql: """
                    DROP TRIGGER photo_search_update;
                    CREATE TRIGGER photo_search_update
                    AFTER UPDATE OF description, alt_description, user_name, user_username, json ON photo BEGIN
                        DELETE FROM photo_search WHERE rowid = old.sequence;
                        INSERT INTO photo_search (rowid, description, alt_description, user_name, user_username, location, tags)
                        VALUES (new.sequence, \(v4SearchDocument("new")));
                    END;
                    """)
        }
        migrator.registerMigration("v6 sources and memberships, Unsplash+ photos") { db in
            // Each source keeps the cursors sync_state kept for the feed, which become the feed's
            // row: a database from before sources resumes the feed where it stopped. sync_state
            // stays, unused, so that the history above keeps working.
            // photo_source's id orders memberships as a catch-up baseline; the feed's are
            // created with the photo's sequence as id, so a catch-up baseline in progress (a
            // sequence) keeps its meaning.
            try db.execute(
                sql: """
                    CREATE TABLE source (
                        id INTEGER PRIMARY KEY,
                        name TEXT NOT NULL UNIQUE CHECK (name <> ''),
                        active INTEGER NOT NULL DEFAULT 1 CHECK (active IN (0, 1)),
                        backfill_next TEXT,
                        backfill_complete INTEGER NOT NULL DEFAULT 0 CHECK (backfill_complete IN (0, 1)),
                        catch_up_next TEXT,
                        catch_up_baseline INTEGER,
                        last_page_at TEXT,
                        backfill_stall_reason TEXT,
                        backfill_stalled_at TEXT,
                        error TEXT,
                        error_at TEXT,
                        CHECK ((catch_up_next IS NULL) = (catch_up_baseline IS NULL))
                    );
                    INSERT INTO source (name, backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                                        last_page_at, backfill_stall_reason, backfill_stalled_at)
                    SELECT 'feed', backfill_next, backfill_complete, catch_up_next, catch_up_baseline,
                           last_page_at, backfill_stall_reason, backfill_stalled_at
                    FROM sync_state
                    WHERE id = 1 AND (backfill_next IS NOT NULL OR backfill_complete = 1 OR catch_up_next IS NOT NULL
                                      OR last_page_at IS NOT NULL OR EXISTS (SELECT 1 FROM photo));

                    CREATE TABLE photo_source (
                        id INTEGER PRIMARY KEY,
                        photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                        source_id INTEGER NOT NULL REFERENCES source(id) ON DELETE CASCADE,
                        first_seen_at TEXT NOT NULL,
                        UNIQUE (photo_id, source_id)
                    );
                    CREATE INDEX photo_source_source ON photo_source(source_id, photo_id);
                    INSERT INTO photo_source (id, photo_id, source_id, first_seen_at)
                    SELECT photo.sequence, photo.id, source.id, photo.first_seen_at
                    FROM photo, source WHERE source.name = 'feed';

                    ALTER TABLE photo ADD COLUMN is_plus INTEGER NOT NULL DEFAULT 0 CHECK (is_plus IN (0, 1));
                    """)
        }
        migrator.registerMigration("v7 an index of Unsplash+ photos") { db in
            // `status` counts the Unsplash+ photos, in all and per source. Without an index that
            // read every photo row, JSON and all: 0.5 s of a `status` on 100,000 photos. Only
            // the few Unsplash+ photos are in this one.
            try db.execute(sql: "CREATE INDEX photo_plus ON photo(id) WHERE is_plus = 1")
        }
        migrator.registerMigration(storageBudgetMigration) { db in
            // An image whose bytes were freed to keep within `storage_limit` is `pruned`: its row
            // keeps size, SHA-256 and fetch time, so the photo still knows what it had. A CHECK
            // cannot be altered in SQLite, so the image table is rebuilt (SQLite's "making other
            // kinds of table schema changes"); it holds no bytes, so this is quick. GRDB runs
            // migrations with foreign keys off, so dropping the old table leaves image_data be.
            // `image_storage` is the total of stored bytes, kept by triggers in the transaction
            // of every change, so the budget is checked without summing every row.
            try db.execute(
                sql: """
                    CREATE TABLE new_image (
                        id INTEGER PRIMARY KEY,
                        photo_id TEXT NOT NULL REFERENCES photo(id) ON DELETE CASCADE,
                        variant TEXT NOT NULL CHECK (variant <> ''),
                        status TEXT NOT NULL DEFAULT 'pending'
                            CHECK (status IN ('pending', 'stored', 'failed', 'pruned')),
                        source_url TEXT NOT NULL,
                        attempts INTEGER NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                        last_error TEXT,
                        next_attempt_at TEXT,
                        content_type TEXT,
                        byte_count INTEGER CHECK (byte_count >= 0),
                        sha256 TEXT CHECK (length(sha256) = 64 AND sha256 NOT GLOB '*[^0-9a-f]*'),
                        fetched_at TEXT,
                        UNIQUE (photo_id, variant),
                        CHECK (status NOT IN ('stored', 'pruned') OR (content_type IS NOT NULL
                            AND byte_count IS NOT NULL AND sha256 IS NOT NULL AND fetched_at IS NOT NULL))
                    );
                    INSERT INTO new_image SELECT id, photo_id, variant, status, source_url, attempts, last_error,
                        next_attempt_at, content_type, byte_count, sha256, fetched_at FROM image;
                    DROP TABLE image;
                    ALTER TABLE new_image RENAME TO image;
                    CREATE INDEX image_queue ON image(status, variant, next_attempt_at);
                    CREATE INDEX image_stored_by_fetch ON image(fetched_at, id) WHERE status = 'stored';

                    CREATE TABLE image_storage (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        stored_bytes INTEGER NOT NULL CHECK (stored_bytes >= 0)
                    );
                    INSERT INTO image_storage (id, stored_bytes)
                    SELECT 1, COALESCE(SUM(byte_count), 0) FROM image WHERE status = 'stored';
                    CREATE TRIGGER image_storage_insert AFTER INSERT ON image WHEN new.status = 'stored' BEGIN
                        UPDATE image_storage SET stored_bytes = stored_bytes + new.byte_count;
                    END;
                    CREATE TRIGGER image_storage_update AFTER UPDATE OF status, byte_count ON image
                    WHEN old.status = 'stored' OR new.status = 'stored' BEGIN
                        UPDATE image_storage SET stored_bytes = stored_bytes
                            - CASE WHEN old.status = 'stored' THEN old.byte_count ELSE 0 END
                            + CASE WHEN new.status = 'stored' THEN new.byte_count ELSE 0 END;
                    END;
                    CREATE TRIGGER image_storage_delete AFTER DELETE ON image WHEN old.status = 'stored' BEGIN
                        UPDATE image_storage SET stored_bytes = stored_bytes - old.byte_count;
                    END;
                    """)
        }
        migrator.registerMigration("v9 image retries") { db in
            // A failure is transient (a 5xx, a cut connection: retried with a backoff, forever)
            // or permanent (404, 410, a refused host, over the size cap, not an image: final).
            // Before, every failure became final after 5 attempts, whatever its cause, and was
            // never asked for again: each such image gets one more try, which classifies it.
            try db.execute(
                sql: """
                    ALTER TABLE image ADD COLUMN failure_class TEXT
                        CHECK (failure_class IN ('transient', 'permanent'));
                    UPDATE image SET failure_class = 'transient' WHERE status = 'pending' AND attempts > 0;
                    UPDATE image SET status = 'pending', failure_class = 'transient', next_attempt_at = NULL
                    WHERE status = 'failed';
                    """)
        }
        migrator.registerMigration("v10 downloads requested through the mirror") { db in
            // A client of `serve`'s Unsplash API asked for a photo's download: the sync's tracker
            // then tells Unsplash, once, even when no image of the photo is stored. `serve` writes
            // only here, never to a row `run` writes.
            try db.execute(
                sql: """
                    CREATE TABLE download_request (
                        photo_id TEXT NOT NULL PRIMARY KEY REFERENCES photo(id) ON DELETE CASCADE,
                        requested_at TEXT NOT NULL
                    ) WITHOUT ROWID;
                    """)
        }
        migrator.registerMigration("v11 read-side indexes") { db in
            // A listing's orders as indexes, so that a page is a range of one index found by key,
            // read without sorting and without the rows it skips: on 1,000,000 photos a deep
            // page took seconds. Plain columns, not expressions: SQLite 3.40 neither reads an
            // expression from its index nor seeks one by key. `id` is in the newest-first index
            // for the source filter's membership lookup; the username index compares without
            // case, as the filter does. photo_created_at is a prefix of photo_newest. A source's own order
            // (the Unsplash API's lists) is its memberships' ids.
            try db.execute(
                sql: """
                    CREATE INDEX photo_newest ON photo(created_at, sequence, id);
                    DROP INDEX photo_created_at;
                    CREATE INDEX photo_user_newest ON photo(user_username COLLATE NOCASE, created_at, sequence);
                    CREATE INDEX photo_most_liked ON photo(likes, created_at, sequence);
                    CREATE INDEX photo_source_order ON photo_source(source_id, id);
                    """)
        }
        migrator.registerMigration("v12 operations") { db in
            // When `run` last loaded its configuration, at its start or on SIGHUP: `status` shows
            // an operator whether an edit of the file has taken effect. One row.
            try db.execute(
                sql: """
                    CREATE TABLE configuration_load (
                        id INTEGER PRIMARY KEY CHECK (id = 1),
                        loaded_at TEXT NOT NULL,
                        reason TEXT NOT NULL CHECK (reason IN ('start', 'reload'))
                    )
                    """)
        }
        migrator.registerMigration("v13 source positions") { db in
            // A source's own order (the Unsplash API's lists) is where the source lists each
            // photo, not when it was stored: a head catch-up stores photos that Unsplash lists
            // before the backfill's. Positions above 0 are the backfill's, in page order; each
            // catch-up walk takes a block below 0, a newer walk a lower one. Existing memberships
            // keep the order they had, their ids. Unique, so a page of a listing is a range of it.
            try db.execute(
                sql: """
                    ALTER TABLE photo_source ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
                    UPDATE photo_source SET position = id;
                    CREATE UNIQUE INDEX photo_source_position ON photo_source(source_id, position);
                    DROP INDEX photo_source_order;
                    """)
        }
        migrator.registerMigration("v14 source objects") { db in
            // The collection, topic or profile a source lists the photos of, as Unsplash describes
            // it (`GET /collections/:id`...), for the mirror to serve; NULL until the sync fetched
            // it. TEXT, as photo.json is, so that SQLite's JSON functions can read it.
            try db.execute(
                sql: """
                    ALTER TABLE source ADD COLUMN object_json TEXT
                        CHECK (object_json IS NULL OR json_valid(object_json));
                    ALTER TABLE source ADD COLUMN object_fetched_at TEXT;
                    """)
        }
        migrator.registerMigration(photoDetailsMigration, migrate: v15PhotoDetails)
        // With foreign keys on: GRDB checks a deferred migration's keys in every table after it,
        // about 11 s at a million photos, and this one only adds a table without any.
        migrator.registerMigration("v16 image walks", foreignKeyChecks: .immediate) { db in
            // How far the walk that queues a variant's images for photos stored earlier has come
            // (`ImageQueue.queuedThrough`): a daemon's start walks on from there, not through a
            // million photos' rows again. Empty at first: the next start walks every photo once.
            try db.execute(
                sql: """
                    CREATE TABLE image_walk (
                        variant TEXT NOT NULL PRIMARY KEY CHECK (variant <> ''),
                        through_sequence INTEGER NOT NULL CHECK (through_sequence >= 0)
                    );
                    """)
        }
        migrator.registerMigration("v17 image tallies") { db in
            // The images of each status and their bytes, kept by triggers in the transaction of
            // every change, as `image_storage` kept the stored bytes alone (it goes): `status`
            // counted them by reading every image row, 0.22 s at a million photos and growing
            // with the mirror. A trigger fires only for a change of status or size.
            try db.execute(
                sql: """
                    DROP TRIGGER image_storage_insert;
                    DROP TRIGGER image_storage_update;
                    DROP TRIGGER image_storage_delete;
                    DROP TABLE image_storage;
                    CREATE TABLE image_tally (
                        status TEXT NOT NULL PRIMARY KEY,
                        images INTEGER NOT NULL CHECK (images >= 0),
                        bytes INTEGER NOT NULL CHECK (bytes >= 0)
                    ) WITHOUT ROWID;
                    INSERT INTO image_tally (status, images, bytes)
                    SELECT status.value,
                           (SELECT count(*) FROM image WHERE image.status = status.value),
                           (SELECT coalesce(sum(byte_count), 0) FROM image WHERE image.status = status.value)
                    FROM json_each('["pending", "stored", "failed", "pruned"]') AS status;
                    CREATE TRIGGER image_tally_insert AFTER INSERT ON image BEGIN
                        UPDATE image_tally SET images = images + 1, bytes = bytes + coalesce(new.byte_count, 0)
                        WHERE status = new.status;
                    END;
                    CREATE TRIGGER image_tally_update AFTER UPDATE OF status, byte_count ON image
                    WHEN old.status IS NOT new.status OR old.byte_count IS NOT new.byte_count BEGIN
                        UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(old.byte_count, 0)
                        WHERE status = old.status;
                        UPDATE image_tally SET images = images + 1, bytes = bytes + coalesce(new.byte_count, 0)
                        WHERE status = new.status;
                    END;
                    CREATE TRIGGER image_tally_delete AFTER DELETE ON image BEGIN
                        UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(old.byte_count, 0)
                        WHERE status = old.status;
                    END;
                    """)
        }
        migrator.registerMigration("v18 image tallies by variant") { db in
            // The tallies of v17, by variant as well as status: `run --once`'s summary and every
            // metrics scrape count the images of the configured variants, which read every entry
            // of `image_queue` (0.5-0.9 s at five million photos). `status` adds the variants up.
            // A variant's rows come with its first image (an upsert); a tally never goes below 0.
            try db.execute(
                sql: """
                    DROP TRIGGER image_tally_insert;
                    DROP TRIGGER image_tally_update;
                    DROP TRIGGER image_tally_delete;
                    DROP TABLE image_tally;
                    CREATE TABLE image_tally (
                        variant TEXT NOT NULL,
                        status TEXT NOT NULL,
                        images INTEGER NOT NULL CHECK (images >= 0),
                        bytes INTEGER NOT NULL CHECK (bytes >= 0),
                        PRIMARY KEY (variant, status)
                    ) WITHOUT ROWID;
                    INSERT INTO image_tally (variant, status, images, bytes)
                    SELECT variant, status, count(*), coalesce(sum(byte_count), 0) FROM image GROUP BY variant, status;
                    CREATE TRIGGER image_tally_insert AFTER INSERT ON image BEGIN
                        INSERT INTO image_tally (variant, status, images, bytes)
                        VALUES (new.variant, new.status, 1, coalesce(new.byte_count, 0))
                        ON CONFLICT (variant, status) DO UPDATE SET images = images + 1, bytes = bytes + excluded.bytes;
                    END;
                    CREATE TRIGGER image_tally_update AFTER UPDATE OF variant, status, byte_count ON image
                    WHEN old.variant IS NOT new.variant OR old.status IS NOT new.status
                        OR old.byte_count IS NOT new.byte_count BEGIN
                        UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(old.byte_count, 0)
                        WHERE variant = old.variant AND status = old.status;
                        INSERT INTO image_tally (variant, status, images, bytes)
                        VALUES (new.variant, new.status, 1, coalesce(new.byte_count, 0))
                        ON CONFLICT (variant, status) DO UPDATE SET images = images + 1, bytes = bytes + excluded.bytes;
                    END;
                    CREATE TRIGGER image_tally_delete AFTER DELETE ON image BEGIN
                        UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(old.byte_count, 0)
                        WHERE variant = old.variant AND status = old.status;
                    END;
                    """)
        }
        migrator.registerMigration("v19 image due order") { db in
            // The due images in their photos' order, read from an index as PostgreSQL's
            // `image_due`: the fetchers asked for the first few by `photo.sequence`, which joined
            // and sorted every pending image for each read. A backlog of 100,000 images (a
            // variant added to a mirror) was handed out at about 57 a second. Every image row
            // takes its photo's sequence when it is written, whoever writes it. The rows there
            // are take theirs from `photo_newest`, which holds every photo's id and sequence: a
            // lookup of each photo's own row read the whole `photo` table at random.
            try db.execute(
                sql: """
                    ALTER TABLE image ADD COLUMN photo_sequence INTEGER;
                    WITH known AS MATERIALIZED (SELECT id, sequence FROM photo INDEXED BY photo_newest)
                    UPDATE image SET photo_sequence = known.sequence FROM known WHERE known.id = image.photo_id;
                    CREATE INDEX image_due ON image(photo_sequence, variant) WHERE status = 'pending';
                    CREATE TRIGGER image_photo_sequence AFTER INSERT ON image BEGIN
                        UPDATE image SET photo_sequence = (SELECT sequence FROM photo WHERE photo.id = new.photo_id)
                        WHERE id = new.id;
                    END;
                    """)
        }
        return migrator
    }
}

extension Schema {
    /// The search document of the photo row named `row` ("new", "photo"), as migration v4 wrote
    /// it: the values of photo_search's columns, in order. Frozen with v4; a new document needs a
    /// new migration and a new function.
    static func v4SearchDocument(_ row: String) -> String {
        """
        \(row).description, \(row).alt_description, \(row).user_name, \(row).user_username,
        trim(coalesce(json_extract(\(row).json, '$.location.name'), '') || ' '
             || coalesce(json_extract(\(row).json, '$.location.city'), '') || ' '
             || coalesce(json_extract(\(row).json, '$.location.country'), '')),
        (SELECT group_concat(json_extract(tag.value, '$.title'), ' ') FROM json_each(\(row).json, '$.tags') AS tag)
        """
    }
}

extension Schema {
    /// Migration v15: see ``photoDetailsMigration``.
    static func v15PhotoDetails(_ db: Database) throws {
        // A photo's full object (`GET /photos/:id`: exif, location, tags...) beside its list
        // version, fetched by the sync (`photo_details: all`) or asked for by a client of the
        // mirror (`on-demand`: `requested_at`, with `json` NULL until it is fetched). The
        // search document reads the full object's location and tags when there is one, and
        // a trigger re-indexes the photo in the transaction that stores its details.
        let document = v15SearchDocument
        let columns = "rowid, description, alt_description, user_name, user_username, location, tags"
        let reindex = """
            DELETE FROM photo_search WHERE rowid = (SELECT sequence FROM photo WHERE id = new.photo_id);
            INSERT INTO photo_search (\(columns))
            SELECT photo.sequence, \(document("photo")) FROM photo WHERE photo.id = new.photo_id;
            """
        try db.execute(
            sql: """
                CREATE TABLE photo_details (
                    photo_id TEXT NOT NULL PRIMARY KEY REFERENCES photo(id) ON DELETE CASCADE,
                    requested_at TEXT,
                    json TEXT CHECK (json IS NULL OR json_valid(json)),
                    fetched_at TEXT
                );
                CREATE INDEX photo_details_requested ON photo_details(requested_at) WHERE json IS NULL;

                DROP TRIGGER photo_search_insert;
                CREATE TRIGGER photo_search_insert AFTER INSERT ON photo BEGIN
                    INSERT INTO photo_search (\(columns)) VALUES (new.sequence, \(document("new")));
                END;
                DROP TRIGGER photo_search_update;
                CREATE TRIGGER photo_search_update
                AFTER UPDATE OF description, alt_description, user_name, user_username, json ON photo BEGIN
                    DELETE FROM photo_search WHERE rowid = old.sequence;
                    INSERT INTO photo_search (\(columns)) VALUES (new.sequence, \(document("new")));
                END;
                CREATE TRIGGER photo_details_search_insert AFTER INSERT ON photo_details
                WHEN new.json IS NOT NULL BEGIN
                    \(reindex)
                END;
                CREATE TRIGGER photo_details_search_update AFTER UPDATE OF json ON photo_details BEGIN
                    \(reindex)
                END;
                """)
    }
}

extension Schema {
    /// The search document of migration v15: v4's, except that the location and the tags come
    /// from the photo's full object (`photo_details.json`) when it has one, and from its list
    /// version otherwise. Frozen with v15.
    static func v15SearchDocument(_ row: String) -> String {
        let json =
            "coalesce((SELECT details.json FROM photo_details AS details WHERE details.photo_id = \(row).id), \(row).json)"
        return """
            \(row).description, \(row).alt_description, \(row).user_name, \(row).user_username,
            trim(coalesce(json_extract(\(json), '$.location.name'), '') || ' '
                 || coalesce(json_extract(\(json), '$.location.city'), '') || ' '
                 || coalesce(json_extract(\(json), '$.location.country'), '')),
            (SELECT group_concat(json_extract(tag.value, '$.title'), ' ') FROM json_each(\(json), '$.tags') AS tag)
            """
    }
}
