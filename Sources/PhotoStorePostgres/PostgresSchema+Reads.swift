import PhotoStore

/// The parts of the schema that the read side stands on: search, the listings' orders, colours,
/// and the counter that tells a cache that the data changed.
extension PostgresSchema {
    /// Search: a `tsvector` per photo with a GIN index, over the same document as SQLite's FTS5
    /// index (description, alt description, the photographer's name and username, location and
    /// tag titles, the last two from the photo's full object when it has one), accents folded
    /// with `unaccent` and words kept as they are (the `simple` configuration: no stemming, as
    /// FTS5's `unicode61` tokenizer).
    ///
    /// A trigger keeps it, not a generated column: the document reads `photo_details`, another
    /// table, which a generated column cannot. It runs in the transaction that stores a page or
    /// a photo's details, so search never sees half a page.
    static let version1Search: [String] = [
        "CREATE EXTENSION IF NOT EXISTS unaccent",
        // IMMUTABLE, and its search path fixed at creation, so that an index may use it.
        """
        CREATE FUNCTION photosync_fold(text) RETURNS text
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
        AS $$ SELECT unaccent('unaccent'::regdictionary, $1) $$
        """,
        """
        CREATE FUNCTION photosync_search_document(
            description text, alt_description text, user_name text, user_username text, json text
        ) RETURNS tsvector
        LANGUAGE sql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
        AS $$
            SELECT to_tsvector('simple', photosync_fold(concat_ws(' ', description, alt_description, user_name,
                user_username, document.j -> 'location' ->> 'name', document.j -> 'location' ->> 'city',
                document.j -> 'location' ->> 'country',
                (SELECT string_agg(tag ->> 'title', ' ')
                 FROM jsonb_array_elements(
                     CASE jsonb_typeof(document.j -> 'tags') WHEN 'array' THEN document.j -> 'tags' ELSE '[]' END
                 ) AS tag
                 WHERE jsonb_typeof(tag) = 'object'))))
            FROM (SELECT json::jsonb AS j) AS document
        $$
        """,
        "ALTER TABLE photo ADD COLUMN search tsvector NOT NULL DEFAULT ''",
        """
        CREATE FUNCTION photosync_index_photo() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            NEW.search := photosync_search_document(
                NEW.description, NEW.alt_description, NEW.user_name, NEW.user_username,
                coalesce((SELECT details.json FROM photo_details AS details
                          WHERE details.photo_id = NEW.id AND details.json IS NOT NULL), NEW.json));
            RETURN NEW;
        END
        $$
        """,
        """
        CREATE TRIGGER photo_search BEFORE INSERT OR UPDATE OF description, alt_description, user_name,
            user_username, json ON photo
        FOR EACH ROW EXECUTE FUNCTION photosync_index_photo()
        """,
        // A photo's details re-index it: touching its JSON runs the trigger above.
        """
        CREATE FUNCTION photosync_index_details() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            UPDATE photo SET json = json WHERE id = NEW.photo_id;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE TRIGGER photo_details_search AFTER INSERT OR UPDATE OF json ON photo_details
        FOR EACH ROW WHEN (NEW.json IS NOT NULL) EXECUTE FUNCTION photosync_index_details()
        """,
        "CREATE INDEX photo_search ON photo USING gin (search)",
    ]

    /// Version 2: the search document computed in PL/pgSQL, and only when what it reads changed.
    ///
    /// Version 1's document was an SQL function, which the server cannot inline (its fixed search
    /// path) and, called from the trigger, set up again for every row: 200 µs a photo, most of a
    /// page's commit (3,000 inserts took 780 ms with it, 120 ms without; a PL/pgSQL function keeps
    /// its plans, and the same inserts take 330-510 ms). The trigger now leaves `search` as it was
    /// when a listing stores a photo again unchanged, as every poll does; a photo being inserted
    /// has no details yet (their row references it), so it reads none. A photo's details index it
    /// themselves, since touching its JSON no longer does.
    static let version2Search: [String] = [
        """
        CREATE OR REPLACE FUNCTION photosync_search_document(
            description text, alt_description text, user_name text, user_username text, json text
        ) RETURNS tsvector
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
        AS $$
        DECLARE
            document jsonb := json::jsonb;
        BEGIN
            RETURN to_tsvector('simple', photosync_fold(concat_ws(' ', description, alt_description, user_name,
                user_username, document -> 'location' ->> 'name', document -> 'location' ->> 'city',
                document -> 'location' ->> 'country',
                (SELECT string_agg(tag ->> 'title', ' ')
                 FROM jsonb_array_elements(
                     CASE jsonb_typeof(document -> 'tags') WHEN 'array' THEN document -> 'tags' ELSE '[]' END
                 ) AS tag
                 WHERE jsonb_typeof(tag) = 'object'))));
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION photosync_index_photo() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            IF TG_OP = 'UPDATE' AND NEW.json IS NOT DISTINCT FROM OLD.json
                AND NEW.description IS NOT DISTINCT FROM OLD.description
                AND NEW.alt_description IS NOT DISTINCT FROM OLD.alt_description
                AND NEW.user_name IS NOT DISTINCT FROM OLD.user_name
                AND NEW.user_username IS NOT DISTINCT FROM OLD.user_username THEN
                RETURN NEW;
            END IF;
            NEW.search := photosync_search_document(
                NEW.description, NEW.alt_description, NEW.user_name, NEW.user_username,
                CASE WHEN TG_OP = 'INSERT' THEN NEW.json
                     ELSE coalesce((SELECT details.json FROM photo_details AS details
                                    WHERE details.photo_id = NEW.id AND details.json IS NOT NULL), NEW.json) END);
            RETURN NEW;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION photosync_index_details() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            UPDATE photo SET search = photosync_search_document(
                description, alt_description, user_name, user_username, NEW.json)
            WHERE id = NEW.photo_id;
            RETURN NULL;
        END
        $$
        """,
    ]

    /// A user's photos newest (or oldest) first, as SQLite's `photo_user_newest` lists them: the
    /// username index alone left a deep page of a user's photos to walk the whole newest-first
    /// index and test each photo's username (9,000 rows for a page 700 photos deep, 6 ms). With
    /// the order's keys in the index, the page is a range of it (0.6 ms). Its first key is the
    /// old username index's, which it replaces.
    static let version3Reads: [String] = [
        """
        CREATE INDEX photo_user_newest ON photo (
            (lower(user_username)), (coalesce(created_at, '-infinity'::timestamptz)), sequence)
        """,
        "DROP INDEX photo_username",
    ]

    /// Version 4: how many photos the store holds, and each source, kept by triggers in the
    /// statement that adds or removes the rows (`photo_total`, `source_tally`).
    ///
    /// A listing filtered by a source every photo is in (the feed, usually) checked each photo's
    /// membership: a deep page skips up to a thousand photos, a lookup each (4 ms of a page's
    /// 4.5 at a million photos). With the tallies, its statement asks in its own snapshot
    /// whether the source still holds every photo (two rows) and skips the lookups when it does
    /// (``PostgresListing``): exact, unlike a verdict kept from an earlier snapshot. And the count
    /// of a source's photos, or of all, is one row, not a scan of a million.
    ///
    /// Statement triggers with transition tables: a page's commit adds its rows in one statement
    /// each, and pays one update of a tally for each, not one per row. The triggers come before
    /// the tallies are counted: they lock out a writer that would add rows in between.
    static let version4Tallies: [String] = [
        """
        CREATE TABLE photo_total (
            only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),
            photos bigint NOT NULL CHECK (photos >= 0)
        )
        """,
        """
        CREATE TABLE source_tally (
            source_id bigint PRIMARY KEY REFERENCES source (id) ON DELETE CASCADE,
            photos bigint NOT NULL CHECK (photos >= 0)
        )
        """,
        """
        CREATE FUNCTION photosync_tally_photos() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            IF TG_OP = 'INSERT' THEN
                UPDATE photo_total SET photos = photos + (SELECT count(*) FROM added);
            ELSIF TG_OP = 'DELETE' THEN
                UPDATE photo_total SET photos = photos - (SELECT count(*) FROM removed);
            ELSE
                UPDATE photo_total SET photos = 0;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        """
        CREATE FUNCTION photosync_tally_memberships() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        BEGIN
            IF TG_OP IN ('DELETE', 'UPDATE') THEN
                UPDATE source_tally SET photos = source_tally.photos - gone.photos
                FROM (SELECT source_id, count(*) AS photos FROM removed GROUP BY source_id) AS gone
                WHERE source_tally.source_id = gone.source_id;
            END IF;
            IF TG_OP IN ('INSERT', 'UPDATE') THEN
                INSERT INTO source_tally (source_id, photos)
                SELECT source_id, count(*) FROM added GROUP BY source_id
                ON CONFLICT (source_id) DO UPDATE SET photos = source_tally.photos + excluded.photos;
            END IF;
            IF TG_OP = 'TRUNCATE' THEN
                UPDATE source_tally SET photos = 0;
            END IF;
            RETURN NULL;
        END
        $$
        """,
        // A transition table belongs to a trigger of one event: one trigger each.
        """
        CREATE TRIGGER photo_added AFTER INSERT ON photo REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_photos()
        """,
        """
        CREATE TRIGGER photo_removed AFTER DELETE ON photo REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_photos()
        """,
        "CREATE TRIGGER photo_truncated AFTER TRUNCATE ON photo EXECUTE FUNCTION photosync_tally_photos()",
        """
        CREATE TRIGGER photo_source_added AFTER INSERT ON photo_source REFERENCING NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_memberships()
        """,
        """
        CREATE TRIGGER photo_source_removed AFTER DELETE ON photo_source REFERENCING OLD TABLE AS removed
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_memberships()
        """,
        """
        CREATE TRIGGER photo_source_moved AFTER UPDATE ON photo_source
        REFERENCING OLD TABLE AS removed NEW TABLE AS added
        FOR EACH STATEMENT EXECUTE FUNCTION photosync_tally_memberships()
        """,
        """
        CREATE TRIGGER photo_source_truncated AFTER TRUNCATE ON photo_source
        EXECUTE FUNCTION photosync_tally_memberships()
        """,
        "INSERT INTO photo_total (photos) SELECT count(*) FROM photo",
        "INSERT INTO source_tally (source_id, photos) SELECT source_id, count(*) FROM photo_source GROUP BY source_id",
    ]

    /// Version 5: the photos of each colour, newest stored first (`photo_color_blue`, ...).
    ///
    /// A search by colour over many matches lists them most recently stored first
    /// (``PostgresListing``), and judged each photo's colour with `photosync_colors` until the page
    /// was full: about 200 calls for a page of blue photos, 0.44 ms of the server's time (at a
    /// million photos, against 0.05 ms with the index). A partial index for each colour holds its
    /// photos' judgement: the page is its first rows, each checked against the search's words.
    /// Its condition is ``colorCondition(_:)``, which the listing writes word for word, with the
    /// colour's name as a literal: the server proves that a statement's condition implies an
    /// index's only for a value it can see. A new photo costs a call for each colour, about 25 µs,
    /// and so did a tracking mark until version 6 moved the marks out of the photo's row.
    /// The indexes hold the function's answers: a migration that changes `photosync_colors` must
    /// rebuild them (`REINDEX`) in the same transaction.
    static let version5Colors: [String] = PhotoColor.allCases.map { color in
        "CREATE INDEX photo_color_\(color.rawValue) ON photo (sequence) WHERE \(colorCondition(color))"
    }

    /// The condition that a photo has `color`, as the partial index of `color` states it
    /// (``version5Colors``). The name is one of ``PhotoColor``'s, never a client's text.
    static func colorCondition(_ color: PhotoColor) -> String {
        "'\(color.rawValue)' = ANY (photosync_colors(photo.color))"
    }

    /// The listings' orders, each an index whose keys are never NULL, so that one row
    /// comparison says where a page continues: a photo without a creation date sorts as the
    /// oldest, and one without likes below every count, as SQLite sorts NULL. Searched by the
    /// same expressions (``PostgresListing``). Beside them: the username without regard to case,
    /// the Unsplash+ photos `status` counts, and dominant colours.
    static let version1Reads: [String] = [
        "CREATE INDEX photo_newest ON photo ((coalesce(created_at, '-infinity'::timestamptz)), sequence)",
        """
        CREATE INDEX photo_most_liked ON photo (
            (coalesce(likes, -1)), (coalesce(created_at, '-infinity'::timestamptz)), sequence)
        """,
        "CREATE INDEX photo_username ON photo (lower(user_username))",
        "CREATE INDEX photo_plus ON photo (id) WHERE is_plus",
        "CREATE INDEX photo_source_photo ON photo_source (source_id, photo_id)",
        // PhotoColor's rule, step for step, in SQL: the same photos match on both stores.
        """
        CREATE FUNCTION photosync_colors(hex text) RETURNS text[]
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE
        AS $$
        DECLARE
            digits text := CASE WHEN left(hex, 1) = '#' THEN substr(hex, 2) ELSE hex END;
            r float8; g float8; b float8; brightest float8; darkest float8; chroma float8; hue float8;
            names text[] := '{}';
        BEGIN
            IF digits IS NULL OR digits !~ '^[0-9A-Fa-f]{6}$' THEN RETURN names; END IF;
            r := ('x' || substr(digits, 1, 2))::bit(8)::integer::float8 / 255;
            g := ('x' || substr(digits, 3, 2))::bit(8)::integer::float8 / 255;
            b := ('x' || substr(digits, 5, 2))::bit(8)::integer::float8 / 255;
            brightest := greatest(r, g, b);
            darkest := least(r, g, b);
            chroma := brightest - darkest;
            IF chroma < 0.12 THEN names := names || 'black_and_white'::text; END IF;
            IF brightest < 0.2 THEN names := names || 'black'::text; END IF;
            IF darkest > 0.85 THEN names := names || 'white'::text; END IF;
            IF chroma >= 0.12 AND brightest >= 0.2 AND darkest <= 0.85 THEN
                IF brightest = r THEN hue := (g - b) / chroma;
                ELSIF brightest = g THEN hue := (b - r) / chroma + 2;
                ELSE hue := (r - g) / chroma + 4;
                END IF;
                hue := hue * 60;
                hue := hue - 360 * trunc(hue / 360);
                IF hue < 0 THEN hue := hue + 360; END IF;
                names := names || CASE
                    WHEN hue < 15 THEN 'red' WHEN hue < 45 THEN 'orange' WHEN hue < 70 THEN 'yellow'
                    WHEN hue < 160 THEN 'green' WHEN hue < 195 THEN 'teal' WHEN hue < 255 THEN 'blue'
                    WHEN hue < 290 THEN 'purple' WHEN hue < 340 THEN 'magenta' ELSE 'red' END;
            END IF;
            RETURN names;
        END
        $$
        """,
    ]
}
