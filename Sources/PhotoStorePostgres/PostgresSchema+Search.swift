import PhotoStore

/// Search that matches the photos SQLite's FTS5 index matches (schema version 8).
extension PostgresSchema {
    /// Version 8: the search document and the searched words split as FTS5's `unicode61
    /// remove_diacritics 2` splits them, each field apart, with the location and tags kept beside
    /// it for the ranking (``SearchRanking``, which ranks the matches on both stores alike).
    ///
    /// Versions 1 and 2 folded text with `unaccent` and split it with PostgreSQL's parser:
    /// measured on the recorded Unsplash fixtures, 19 of their 79 photos' documents had other words
    /// than FTS5's. The parser reads `puppyhero.com/breed/jack-russell-terrier` as a host and a
    /// path, so `puppyhero` and `breed` found nothing; it keeps `short-coated` whole beside its
    /// parts; `unaccent` writes `®` as `(R)` (a word `r`) and `ß` as `ss`; and it turned a
    /// typographic apostrophe into a quote inside the `tsquery`'s text, so `women’s` was an error.
    /// Now (`photosync_words`): ASCII punctuation and the common punctuation, symbols and emoji
    /// of other blocks are spaces, on any locale (on a `C` locale the parser counts every
    /// non-ASCII character as a letter); a Latin letter loses its diacritics as FTS5's own table
    /// says (the 490 letters it folds, and `Ǡ`, `ǡ`, which it does not; `ø` and `ł` keep theirs,
    /// as there); and the fields are a position apart,
    /// so that a phrase does not run from one field into the next, as FTS5's columns keep it from
    /// doing. The fixtures' documents then have FTS5's words, every one.
    ///
    /// A search's terms are `photosync_term`s (a phrase of the term's words, its last word a
    /// prefix for `word*`), joined with the `tsquery` operators: no text of a search is read as
    /// `tsquery` syntax. Every photo's search is computed again, and its index built after.
    static let version8Search: [String] = [
        // FTS5's folding, step by step: the diacritics written apart from their letter dropped;
        // then, in a text with a Latin letter FTS5 folds (U+00C0-U+024F, U+1E00-U+1EFF, the
        // Kelvin and Angstrom signs), each letter whose decomposition is an ASCII letter and marks
        // replaced by that letter (`ſ` and `ẛ`, which FTS5 folds to `s`, by hand); then the
        // separators as spaces. `translate` with FTS5's table of 490 letters did the same at
        // 170 µs a text (it looks each character up in the table); decomposing, under a tenth of
        // that. `normalize` needs a UTF8 database: on another, `unaccent` folds as before.
        #"""
        CREATE FUNCTION photosync_words(text) RETURNS text
        LANGUAGE plpgsql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
        AS $$
        DECLARE
            words text := regexp_replace($1,
                '[\u0300-\u0304\u0306-\u030C\u030F\u0311\u031B\u0323-\u0328\u032D-\u032E\u0330-\u0331]', '', 'g');
        BEGIN
            IF words ~ '[\u00C0-\u024F\u1E00-\u1EFF\u212A\u212B]' THEN
                IF current_setting('server_encoding') = 'UTF8' THEN
                    words := translate(
                        normalize(regexp_replace(normalize(words, NFD), '([A-Za-z])[\u0300-\u036F]+', '\1', 'g'), NFC),
                        'ſẛ', 'ss');
                ELSE
                    words := photosync_fold(words);
                END IF;
            END IF;
            RETURN regexp_replace(words,
                '[!-/:-@[-`{-~\u0080-\u00A9\u00AB-\u00B1\u00B4\u00B6-\u00B8\u00BB\u00BF\u00D7\u00F7\u2000-\u206F\u20A0-\u20CF\u2190-\u245F\u2500-\u2775\u2794-\u2BFF\u2E00-\u2E7F\u3000-\u3004\u3008-\u3020\u3030\uFF01-\uFF0F\uFF1A-\uFF20\uFF3B-\uFF40\uFF5B-\uFF65\U0001F000-\U0001FAFF]',
                ' ', 'g');
        END
        $$
        """#,
        """
        CREATE FUNCTION photosync_search_location(document jsonb) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$
            SELECT nullif(concat_ws(' ', document -> 'location' ->> 'name', document -> 'location' ->> 'city',
                document -> 'location' ->> 'country'), '')
        $$
        """,
        """
        CREATE FUNCTION photosync_search_tags(document jsonb) RETURNS text
        LANGUAGE sql IMMUTABLE PARALLEL SAFE
        AS $$
            SELECT string_agg(tag ->> 'title', ' ')
            FROM jsonb_array_elements(
                CASE jsonb_typeof(document -> 'tags') WHEN 'array' THEN document -> 'tags' ELSE '[]' END) AS tag
            WHERE jsonb_typeof(tag) = 'object'
        $$
        """,
        // Each field's words, a position between fields: `photosync-gap` holds it and is deleted
        // (no document or search keeps a hyphen to make that word).
        """
        CREATE FUNCTION photosync_search_document(
            description text, alt_description text, user_name text, user_username text, location text, tags text
        ) RETURNS tsvector
        LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE SET search_path FROM CURRENT
        AS $$
        DECLARE
            gap tsvector := '''photosync-gap'':1';
        BEGIN
            RETURN ts_delete(
                to_tsvector('simple', coalesce(photosync_words(description), '')) || gap
                || to_tsvector('simple', coalesce(photosync_words(alt_description), '')) || gap
                || to_tsvector('simple', coalesce(photosync_words(user_name), '')) || gap
                || to_tsvector('simple', coalesce(photosync_words(user_username), '')) || gap
                || to_tsvector('simple', coalesce(photosync_words(location), '')) || gap
                || to_tsvector('simple', coalesce(photosync_words(tags), '')),
                'photosync-gap');
        END
        $$
        """,
        // A search's word or phrase: its words in a row, the last a prefix when `prefix`.
        """
        CREATE FUNCTION photosync_term(words text, prefix boolean) RETURNS tsquery
        LANGUAGE sql IMMUTABLE STRICT PARALLEL SAFE SET search_path FROM CURRENT
        AS $$
            SELECT CASE WHEN prefix AND numnode(phrase) > 0 THEN (phrase::text || ':*')::tsquery ELSE phrase END
            FROM (SELECT phraseto_tsquery('simple', photosync_words(words)) AS phrase) AS term
        $$
        """,
        "ALTER TABLE photo ADD COLUMN search_location text, ADD COLUMN search_tags text",
        """
        CREATE OR REPLACE FUNCTION photosync_index_photo() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        DECLARE
            document jsonb;
        BEGIN
            IF TG_OP = 'UPDATE' AND NEW.json IS NOT DISTINCT FROM OLD.json
                AND NEW.description IS NOT DISTINCT FROM OLD.description
                AND NEW.alt_description IS NOT DISTINCT FROM OLD.alt_description
                AND NEW.user_name IS NOT DISTINCT FROM OLD.user_name
                AND NEW.user_username IS NOT DISTINCT FROM OLD.user_username THEN
                RETURN NEW;
            END IF;
            document := (CASE WHEN TG_OP = 'INSERT' THEN NEW.json
                ELSE coalesce((SELECT details.json FROM photo_details AS details
                               WHERE details.photo_id = NEW.id AND details.json IS NOT NULL), NEW.json) END)::jsonb;
            NEW.search_location := photosync_search_location(document);
            NEW.search_tags := photosync_search_tags(document);
            NEW.search := photosync_search_document(NEW.description, NEW.alt_description, NEW.user_name,
                NEW.user_username, NEW.search_location, NEW.search_tags);
            RETURN NEW;
        END
        $$
        """,
        """
        CREATE OR REPLACE FUNCTION photosync_index_details() RETURNS trigger
        LANGUAGE plpgsql SET search_path FROM CURRENT
        AS $$
        DECLARE
            document jsonb := NEW.json::jsonb;
        BEGIN
            UPDATE photo SET search_location = photosync_search_location(document),
                search_tags = photosync_search_tags(document),
                search = photosync_search_document(description, alt_description, user_name, user_username,
                    photosync_search_location(document), photosync_search_tags(document))
            WHERE id = NEW.photo_id;
            RETURN NULL;
        END
        $$
        """,
        "DROP FUNCTION photosync_search_document(text, text, text, text, text)",
        // Every photo again, the index built once after: kept, it would be updated row by row.
        "DROP INDEX photo_search",
        """
        UPDATE photo SET search_location = photosync_search_location(document.j),
            search_tags = photosync_search_tags(document.j),
            search = photosync_search_document(photo.description, photo.alt_description, photo.user_name,
                photo.user_username, photosync_search_location(document.j), photosync_search_tags(document.j))
        FROM (SELECT photo.id, coalesce(details.json, photo.json)::jsonb AS j
              FROM photo LEFT JOIN photo_details AS details ON details.photo_id = photo.id AND details.json IS NOT NULL
             ) AS document
        WHERE document.id = photo.id
        """,
        "CREATE INDEX photo_search ON photo USING gin (search)",
    ]
}
