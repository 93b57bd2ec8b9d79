import Foundation
import PhotoStore
import PostgresNIO

/// photosync's tables in PostgreSQL: one versioned list of migrations, as SQLite's, and the row
/// that says the database is photosync's and at which version (`photosync_schema`).
///
/// The same tables as SQLite's, with PostgreSQL's types: `timestamptz` for times, `boolean`,
/// `bigint` keys. `photo.json` is `text`, not `jsonb`: the API's original JSON is served byte for
/// byte, and `jsonb` would reorder its keys. Images are chunk rows of about 1 MiB
/// (`image_chunk`), written with their status in one transaction: postgres-nio holds a whole
/// `bytea` value in memory, and chunks keep a 20 MB image's memory bounded both ways.
enum PostgresSchema {
    /// What `photosync_schema.application` says of a photosync database.
    static let application = "photosync"

    /// The migrations, in order, each a list of statements (the extended query protocol runs
    /// one at a time, and a function's body holds semicolons of its own); the version of a
    /// database is the number it has applied.
    static let migrations: [[String]] = [
        version1 + version1Search + version1Reads + PostgresWriterLease.schema, version2Search, version3Reads,
        version4Tallies, version5Colors, version6Tracking, version7Walks, version8Search, version9ImageTallies,
        version10ImageTalliesByVariant,
    ]

    /// The images of each status and their bytes, as SQLite's "v17 image tallies": `status`
    /// counted them by reading every image row, and a sync with a `storage_limit` added up the
    /// stored bytes so before every image it stored, a read of every image row each time.
    ///
    /// A statement trigger for the rows a statement adds or removes (a page's images come in
    /// one statement); a row trigger for a change of status or size, the only updates that
    /// move a tally (a transition table would take every update of an image: its attempts, its
    /// retry time). The triggers come before the tallies are counted, as ``version4Tallies``'.
    static let version9ImageTallies = [
        """
        CREATE TABLE image_tally (
            status text PRIMARY KEY,
            images bigint NOT NULL CHECK (images >= 0),
            bytes bigint NOT NULL CHECK (bytes >= 0)
        )
        """,
        """
        INSERT INTO image_tally (status, images, bytes)
        SELECT status, 0, 0 FROM unnest(ARRAY['pending', 'stored', 'failed', 'pruned']) AS status
        """,
        """
        CREATE FUNCTION photosync_tally_images() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE image_tally SET images = image_tally.images + came.images, bytes = image_tally.bytes + came.bytes
                FROM (SELECT status, count(*) AS images, coalesce(sum(byte_count), 0) AS bytes
                      FROM added GROUP BY status) AS came
                WHERE image_tally.status = came.status;
            ELSIF TG_OP = 'DELETE' THEN
                UPDATE image_tally SET images = image_tally.images - gone.images, bytes = image_tally.bytes - gone.bytes
                FROM (SELECT status, count(*) AS images, coalesce(sum(byte_count), 0) AS bytes
                      FROM removed GROUP BY status) AS gone
                WHERE image_tally.status = gone.status;
            ELSE
                UPDATE image_tally SET images = 0, bytes = 0;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE FUNCTION photosync_tally_image_change() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(OLD.byte_count, 0)
            WHERE status = OLD.status;
            UPDATE image_tally SET images = images + 1, bytes = bytes + coalesce(NEW.byte_count, 0)
            WHERE status = NEW.status;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER image_added AFTER INSERT ON image REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_images()
        """,
        """
        CREATE TRIGGER image_removed AFTER DELETE ON image REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_images()
        """,
        "CREATE TRIGGER image_truncated AFTER TRUNCATE ON image EXECUTE FUNCTION photosync_tally_images()",
        """
        CREATE TRIGGER image_changed AFTER UPDATE OF status, byte_count ON image FOR EACH ROW
        WHEN (OLD.status IS DISTINCT FROM NEW.status OR OLD.byte_count IS DISTINCT FROM NEW.byte_count)
        EXECUTE FUNCTION photosync_tally_image_change()
        """,
        """
        UPDATE image_tally SET images = counted.images, bytes = counted.bytes
        FROM (SELECT status, count(*) AS images, coalesce(sum(byte_count), 0) AS bytes
              FROM image GROUP BY status) AS counted
        WHERE image_tally.status = counted.status
        """,
    ]

    /// The tallies of ``version9ImageTallies`` by variant as well as status, as SQLite's "v18
    /// image tallies by variant": `run --once`'s summary and every metrics scrape count the
    /// images of the configured variants, which read every image row. `status` adds the variants
    /// up. A variant's rows come with its first image (an upsert); the triggers of version 9 go
    /// with their functions and come back under the same names.
    static let version10ImageTalliesByVariant = [
        "DROP FUNCTION photosync_tally_images, photosync_tally_image_change CASCADE",
        "DROP TABLE image_tally",
        """
        CREATE TABLE image_tally (
            variant text NOT NULL,
            status text NOT NULL,
            images bigint NOT NULL CHECK (images >= 0),
            bytes bigint NOT NULL CHECK (bytes >= 0),
            PRIMARY KEY (variant, status)
        )
        """,
        """
        CREATE FUNCTION photosync_tally_images() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                INSERT INTO image_tally (variant, status, images, bytes)
                SELECT variant, status, count(*), coalesce(sum(byte_count), 0) FROM added GROUP BY variant, status
                ON CONFLICT (variant, status) DO UPDATE
                SET images = image_tally.images + excluded.images, bytes = image_tally.bytes + excluded.bytes;
            ELSIF TG_OP = 'DELETE' THEN
                UPDATE image_tally SET images = image_tally.images - gone.images, bytes = image_tally.bytes - gone.bytes
                FROM (SELECT variant, status, count(*) AS images, coalesce(sum(byte_count), 0) AS bytes
                      FROM removed GROUP BY variant, status) AS gone
                WHERE image_tally.variant = gone.variant AND image_tally.status = gone.status;
            ELSE
                UPDATE image_tally SET images = 0, bytes = 0;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE FUNCTION photosync_tally_image_change() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            UPDATE image_tally SET images = images - 1, bytes = bytes - coalesce(OLD.byte_count, 0)
            WHERE variant = OLD.variant AND status = OLD.status;
            INSERT INTO image_tally (variant, status, images, bytes)
            VALUES (NEW.variant, NEW.status, 1, coalesce(NEW.byte_count, 0))
            ON CONFLICT (variant, status) DO UPDATE
            SET images = image_tally.images + 1, bytes = image_tally.bytes + excluded.bytes;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER image_added AFTER INSERT ON image REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_images()
        """,
        """
        CREATE TRIGGER image_removed AFTER DELETE ON image REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_images()
        """,
        "CREATE TRIGGER image_truncated AFTER TRUNCATE ON image EXECUTE FUNCTION photosync_tally_images()",
        """
        CREATE TRIGGER image_changed AFTER UPDATE OF variant, status, byte_count ON image FOR EACH ROW
        WHEN (OLD.variant IS DISTINCT FROM NEW.variant OR OLD.status IS DISTINCT FROM NEW.status
              OR OLD.byte_count IS DISTINCT FROM NEW.byte_count)
        EXECUTE FUNCTION photosync_tally_image_change()
        """,
        """
        INSERT INTO image_tally (variant, status, images, bytes)
        SELECT variant, status, count(*), coalesce(sum(byte_count), 0) FROM image GROUP BY variant, status
        ON CONFLICT (variant, status) DO UPDATE SET images = excluded.images, bytes = excluded.bytes
        """,
    ]

    /// How far the walk that queues a variant's images for photos stored earlier has come
    /// (`ImageQueue.queuedThrough`), as SQLite's "v16 image walks": empty at first, so the next
    /// start walks every photo once.
    static let version7Walks = [
        """
        CREATE TABLE image_walk (
            variant text PRIMARY KEY CHECK (variant <> ''),
            through_sequence bigint NOT NULL CHECK (through_sequence >= 0)
        )
        """
    ]

    /// The schema of the first PostgreSQL version: every table SQLite's fifteen migrations made.
    static let version1 = statements(
        of: """
            CREATE TABLE photo (
                id text PRIMARY KEY CHECK (id <> ''),
                sequence bigint NOT NULL UNIQUE CHECK (sequence > 0),
                created_at timestamptz,
                updated_at timestamptz,
                width integer CHECK (width >= 0),
                height integer CHECK (height >= 0),
                color text,
                blur_hash text,
                description text,
                alt_description text,
                user_username text,
                user_name text,
                likes integer CHECK (likes >= 0),
                is_sponsored boolean NOT NULL,
                download_location text,
                download_tracked_at timestamptz,
                is_plus boolean NOT NULL DEFAULT false,
                json text NOT NULL CHECK (json::jsonb IS NOT NULL),
                first_seen_at timestamptz NOT NULL,
                last_seen_at timestamptz NOT NULL
            );
            CREATE INDEX photo_download_untracked ON photo (sequence)
                WHERE download_tracked_at IS NULL AND download_location IS NOT NULL;

            CREATE TABLE source (
                id bigserial PRIMARY KEY,
                name text NOT NULL UNIQUE CHECK (name <> ''),
                active boolean NOT NULL DEFAULT true,
                backfill_next text,
                backfill_complete boolean NOT NULL DEFAULT false,
                catch_up_next text,
                catch_up_baseline bigint,
                last_page_at timestamptz,
                backfill_stall_reason text,
                backfill_stalled_at timestamptz,
                error text,
                error_at timestamptz,
                object_json text CHECK (object_json IS NULL OR object_json::jsonb IS NOT NULL),
                object_fetched_at timestamptz,
                CHECK ((catch_up_next IS NULL) = (catch_up_baseline IS NULL))
            );

            CREATE TABLE photo_source (
                id bigserial PRIMARY KEY,
                photo_id text NOT NULL REFERENCES photo (id) ON DELETE CASCADE,
                source_id bigint NOT NULL REFERENCES source (id) ON DELETE CASCADE,
                first_seen_at timestamptz NOT NULL,
                position bigint NOT NULL,
                UNIQUE (photo_id, source_id),
                UNIQUE (source_id, position)
            );

            CREATE TABLE image (
                id bigserial PRIMARY KEY,
                photo_id text NOT NULL REFERENCES photo (id) ON DELETE CASCADE,
                -- The photo's sequence, which never changes: the queue is due in the photos' order,
                -- and an index orders the pending jobs by it without a join.
                photo_sequence bigint NOT NULL,
                variant text NOT NULL CHECK (variant <> ''),
                status text NOT NULL DEFAULT 'pending' CHECK (status IN ('pending', 'stored', 'failed', 'pruned')),
                source_url text NOT NULL,
                attempts integer NOT NULL DEFAULT 0 CHECK (attempts >= 0),
                last_error text,
                next_attempt_at timestamptz,
                failure_class text CHECK (failure_class IN ('transient', 'permanent')),
                content_type text,
                byte_count bigint CHECK (byte_count >= 0),
                sha256 text CHECK (sha256 ~ '^[0-9a-f]{64}$'),
                fetched_at timestamptz,
                UNIQUE (photo_id, variant),
                CHECK (status NOT IN ('stored', 'pruned') OR (content_type IS NOT NULL
                    AND byte_count IS NOT NULL AND sha256 IS NOT NULL AND fetched_at IS NOT NULL))
            );
            CREATE INDEX image_queue ON image (status, variant, next_attempt_at);
            CREATE INDEX image_due ON image (photo_sequence, variant) WHERE status = 'pending';
            CREATE INDEX image_stored_by_fetch ON image (fetched_at, id) WHERE status = 'stored';

            CREATE TABLE image_chunk (
                image_id bigint NOT NULL REFERENCES image (id) ON DELETE CASCADE,
                index integer NOT NULL CHECK (index >= 0),
                bytes bytea NOT NULL,
                PRIMARY KEY (image_id, index)
            );
            -- Image bytes are compressed already: not worth PostgreSQL's attempt at it.
            ALTER TABLE image_chunk ALTER COLUMN bytes SET STORAGE EXTERNAL;

            CREATE TABLE rejected_photo (
                id bigserial PRIMARY KEY,
                photo_id text,
                json text NOT NULL UNIQUE,
                reason text NOT NULL,
                first_seen_at timestamptz NOT NULL,
                last_seen_at timestamptz NOT NULL
            );
            CREATE INDEX rejected_photo_photo_id ON rejected_photo (photo_id);

            CREATE TABLE configuration_load (
                id integer PRIMARY KEY CHECK (id = 1),
                loaded_at timestamptz NOT NULL,
                reason text NOT NULL CHECK (reason IN ('start', 'reload'))
            );

            CREATE TABLE photo_details (
                photo_id text PRIMARY KEY REFERENCES photo (id) ON DELETE CASCADE,
                requested_at timestamptz,
                json text CHECK (json IS NULL OR json::jsonb IS NOT NULL),
                fetched_at timestamptz
            );
            CREATE INDEX photo_details_requested ON photo_details (requested_at) WHERE json IS NULL;

            CREATE TABLE download_request (
                photo_id text PRIMARY KEY REFERENCES photo (id) ON DELETE CASCADE,
                requested_at timestamptz NOT NULL
            );
            """)

    /// Version 6: the tracking marks beside the photos (`download_tracking`), not in their rows.
    ///
    /// A mark set `photo.download_tracked_at`, and the partial index of untracked photos made
    /// that update touch every index of `photo`: the search's GIN, the eleven colour judgements
    /// (a call of `photosync_colors` each), the listings' orders. And the look for downloads to
    /// track walked every untracked photo, most of them with no image stored yet during a
    /// backfill. Now a photo gets a narrow row here once its
    /// download is due (its image stored, or a client's download asked for: a trigger on each, so
    /// every path that stores an image, `copy`'s too, makes it due), and a mark fills in the row's
    /// time. The index of untracked rows holds the due downloads alone, in the photos' order; one
    /// without a download location yet waits there until its listing gives it one.
    static let version6Tracking =
        statements(
            of: """
                CREATE TABLE download_tracking (
                    photo_id text PRIMARY KEY REFERENCES photo (id) ON DELETE CASCADE,
                    -- The photo's sequence, which never changes: marks are due in the photos' order.
                    photo_sequence bigint NOT NULL,
                    tracked_at timestamptz
                );
                INSERT INTO download_tracking (photo_id, photo_sequence, tracked_at)
                    SELECT id, sequence, download_tracked_at FROM photo
                    WHERE download_tracked_at IS NOT NULL
                        OR EXISTS (SELECT 1 FROM image WHERE image.photo_id = photo.id AND image.status = 'stored')
                        OR EXISTS (SELECT 1 FROM download_request WHERE download_request.photo_id = photo.id);
                CREATE INDEX download_due ON download_tracking (photo_sequence) WHERE tracked_at IS NULL;
                DROP INDEX photo_download_untracked;
                ALTER TABLE photo DROP COLUMN download_tracked_at
                """) + [
            """
            CREATE FUNCTION photosync_download_due() RETURNS trigger
            LANGUAGE plpgsql SET search_path FROM CURRENT
            AS $$
            BEGIN
                INSERT INTO download_tracking (photo_id, photo_sequence)
                SELECT id, sequence FROM photo WHERE id = NEW.photo_id
                ON CONFLICT (photo_id) DO NOTHING;
                RETURN NULL;
            END
            $$
            """,
            """
            CREATE TRIGGER image_stored_download_due AFTER INSERT OR UPDATE OF status ON image
            FOR EACH ROW WHEN (NEW.status = 'stored') EXECUTE FUNCTION photosync_download_due()
            """,
            """
            CREATE TRIGGER download_requested_due AFTER INSERT ON download_request
            FOR EACH ROW EXECUTE FUNCTION photosync_download_due()
            """,
        ]

    /// Brings the database to the newest version, in one transaction, after checking that it is
    /// photosync's (or empty) and not newer than this build.
    ///
    /// - Throws: `StoreError.notAPhotosyncDatabase` for a database with tables of its own and no
    ///   `photosync_schema`, `.newerSchema` for one a newer photosync migrated; nothing is
    ///   changed then.
    static func migrate(_ database: PostgresDatabase) async throws(StoreError) {
        let name = database.name
        let logger = database.logger
        try await database.write("migrating the schema") { connection in
            // One migrator at a time: a second `run` starting at the same moment waits here.
            try await connection.guardedQuery(
                "SELECT pg_advisory_xact_lock(hashtext('photosync_schema'))", logger: logger)
            let version = try await Self.version(connection, name: name, logger: logger)
            guard version <= migrations.count else { throw StoreError.newerSchema(path: name) }
            if version == 0 {
                try await connection.guardedQuery(
                    "CREATE TABLE photosync_schema (application text NOT NULL, version integer NOT NULL)",
                    logger: logger)
                try await connection.guardedQuery(
                    "INSERT INTO photosync_schema (application, version) VALUES (\(application), 0)", logger: logger)
            }
            for (index, migration) in migrations.enumerated() where index >= version {
                for statement in migration {
                    try await connection.guardedQuery(PostgresQuery(unsafeSQL: statement), logger: logger)
                }
                try await connection.guardedQuery(
                    "UPDATE photosync_schema SET version = \(index + 1)", logger: logger)
            }
        }
    }

    /// The version a database is at: 0 for an empty one.
    /// - Throws: `StoreError.notAPhotosyncDatabase` when it holds tables and is not photosync's.
    static func version(_ connection: PostgresConnection, name: String, logger: Logger) async throws -> Int {
        let hasSchemaRow =
            try await connection.boolean(
                "SELECT to_regclass('photosync_schema') IS NOT NULL", logger: logger)
        guard hasSchemaRow else {
            let tables =
                try await connection.guardedQuery(
                    "SELECT count(*) FROM pg_tables WHERE schemaname = current_schema()", logger: logger
                ).collect().first?.decode(Int.self) ?? 0
            guard tables == 0 else { throw StoreError.notAPhotosyncDatabase(path: name) }
            return 0
        }
        let rows = try await connection.guardedQuery(
            "SELECT application, version FROM photosync_schema", logger: logger
        ).collect()
        guard rows.count == 1, let (application, version) = try? rows[0].decode((String, Int).self),
            application == Self.application
        else { throw StoreError.notAPhotosyncDatabase(path: name) }
        return version
    }

    /// The statements of `sql`, which has no semicolon but those that end them.
    static func statements(of sql: String) -> [String] {
        sql.components(separatedBy: ";").map { $0.trimmingCharacters(in: .whitespacesAndNewlines) }
            .filter { !$0.isEmpty }
    }
}
