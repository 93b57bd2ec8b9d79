#!/usr/bin/env bash
# `photosync copy`, run by hand:  [DATABASE=file] [BIN=dir] Benchmarks/copy.sh [PHOTOS]
#
# Mirrors PHOTOS photos (default 1,000,000) from the stub, metadata only, into an SQLite file as
# serve.sh does (DATABASE=file keeps or reuses it: building one takes several minutes), then, on
# a throwaway PostgreSQL 15 cluster (the server's default durability):
#
#   1. `photosync copy` from the file into an empty database: time, rows a second, peak RSS;
#   2. the floor of the same work: the same rows of the same tables (photos, sources,
#      memberships) exported by the `sqlite3` CLI as CSV and loaded by `psql`'s COPY into a
#      database with the same schema, its indexes and search trigger (what photosync's copy
#      must also maintain);
#   3. `photosync copy` back from PostgreSQL into a new file;
#   4. images: a mirror of 3,000 photos with 100 KB images (300 MB) copied into PostgreSQL,
#      in MB a second, beside `pg_dump | psql` of the copied database's image chunks.
#
# Prints each time and the ratio of photosync's copy to the floor.
# Prerequisites: Debian's sqlite3 and postgresql-15 (installed when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-1000000}

source Benchmarks/lib.sh
need sqlite3 sqlite3
need /usr/bin/time time
with_stub_and_photosync
start_postgres
export PGTZ=UTC

database=${DATABASE:-$work/photosync.sqlite}
if [[ ! -f $database ]]; then
    start_stub --photos "$photos" --image-size 1000
    printf 'per_page: 30\n' > "$work/photosync.yaml"
    echo "mirroring $photos photos (metadata only) into $database..." >&2
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" \
        --api-base "$base" --database "$database" --variant none --no-download-tracking \
        --concurrency 8 > /dev/null 2>&1
    stop_stub
fi
stored=$(sqlite3 "$database" "SELECT count(*) FROM photo")
members=$(sqlite3 "$database" "SELECT count(*) FROM photo_source")
echo "database: $(du -h "$database" | cut -f1), $stored photos, $members memberships" >&2

# timed LABEL COMMAND...: runs COMMAND under /usr/bin/time, prints LABEL, seconds and peak RSS,
# and leaves the seconds in $seconds.
timed() {
    local label=$1
    shift
    /usr/bin/time -f '%e %M' -o "$work/time" "$@" > "$work/out" 2> "$work/err" || {
        cat "$work/err" >&2
        exit 1
    }
    read -r seconds rss < "$work/time"
    printf '%-44s %8.1f s  %6.0f MiB peak\n' "$label" "$seconds" "$((rss / 1024))"
}

psql_in() {
    runuser -u postgres -- psql -q -v ON_ERROR_STOP=1 -h "$postgres_socket" -d "$1" "${@:2}"
}

# 1. photosync copy, file to PostgreSQL
target=$(fresh_postgres_database copied)
timed "photosync copy: file -> PostgreSQL" "$bin/photosync" copy --from "$database" --to "$target"
copy_seconds=$seconds
python3 -c "import sys; print(f'  {int(sys.argv[1]) / float(sys.argv[2]):,.0f} photos/s')" "$stored" "$copy_seconds"

# 2. the floor: the same rows through sqlite3's CSV and psql's COPY, into the same schema
fresh_postgres_database floor > /dev/null
runuser -u postgres -- pg_dump -h "$postgres_socket" --schema-only copied | psql_in floor > /dev/null
floor() {
    sqlite3 -csv "$database" "SELECT id, name, active, backfill_next, backfill_complete, catch_up_next,
        catch_up_baseline, last_page_at, backfill_stall_reason, backfill_stalled_at, error, error_at, object_json,
        object_fetched_at FROM source" | psql_in floor -c "\\copy source FROM STDIN CSV"
    sqlite3 -csv "$database" "SELECT id, sequence, created_at, updated_at, width, height, color, blur_hash,
        description, alt_description, user_username, user_name, likes, is_sponsored, download_location,
        download_tracked_at, is_plus, json, first_seen_at, last_seen_at FROM photo" |
        psql_in floor -c "\\copy photo (id, sequence, created_at, updated_at, width, height, color, blur_hash,
            description, alt_description, user_username, user_name, likes, is_sponsored, download_location,
            download_tracked_at, is_plus, json, first_seen_at, last_seen_at) FROM STDIN CSV"
    sqlite3 -csv "$database" "SELECT id, photo_id, source_id, first_seen_at, position FROM photo_source" |
        psql_in floor -c "\\copy photo_source FROM STDIN CSV"
}
export -f floor psql_in
export database postgres_socket
timed "floor: sqlite3 CSV | psql COPY" bash -c floor
floor_seconds=$seconds
python3 -c "import sys; print(f'  photosync / floor: {float(sys.argv[1]) / float(sys.argv[2]):.2f}x')" \
    "$copy_seconds" "$floor_seconds"

# 3. back: PostgreSQL to a new file
timed "photosync copy: PostgreSQL -> file" "$bin/photosync" copy --from "$target" --to "$work/back.sqlite"
timed "photosync verify (PostgreSQL)" "$bin/photosync" verify --database "$target"

# 4. images: 3,000 photos of 100 KB
start_stub --photos 3000 --image-size 100000
printf 'per_page: 30\n' > "$work/photosync.yaml"
UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" --api-base "$base" \
    --allowed-image-host 127.0.0.1 --database "$work/images.sqlite" --no-download-tracking --concurrency 8 \
    > /dev/null 2>&1
stop_stub
bytes=$(sqlite3 "$work/images.sqlite" "SELECT sum(byte_count) FROM image WHERE status = 'stored'")
images=$(fresh_postgres_database images)
timed "photosync copy: 3,000 images -> PostgreSQL" "$bin/photosync" copy --from "$work/images.sqlite" --to "$images"
python3 -c "import sys; print(f'  {int(sys.argv[1]) / float(sys.argv[2]) / 1e6:,.0f} MB/s')" "$bytes" "$seconds"
fresh_postgres_database imagefloor > /dev/null
timed "floor: pg_dump | psql of the same database" \
    bash -c "runuser -u postgres -- pg_dump -h '$postgres_socket' images |
        runuser -u postgres -- psql -q -h '$postgres_socket' -d imagefloor"
python3 -c "import sys; print(f'  {int(sys.argv[1]) / float(sys.argv[2]) / 1e6:,.0f} MB/s')" "$bytes" "$seconds"
