# Shared by the benchmark scripts: `source` it.

# need COMMAND PACKAGE: installs Debian's PACKAGE (as root) when COMMAND is missing, or fails
# saying which package to install.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    [[ $(id -u) -eq 0 ]] || { echo "$(basename "$0"): $1 is missing; install the '$2' package" >&2; exit 1; }
    apt-get install -y -qq "$2" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$2" >/dev/null; }
}

# with_stub_and_photosync: makes $work (removed on exit), builds photosync and unsplash-stub in
# release mode into $bin, and gives start_stub a stub to stop on exit. BIN=DIR uses the two
# binaries already in DIR instead (an older commit's release build, say, for a before/after).
with_stub_and_photosync() {
    work=$(mktemp -d)
    stub_pid=
    trap 'stop_stub; rm -rf "$work"' EXIT
    if [[ -n ${BIN:-} ]]; then
        bin=$BIN
    else
        echo "building photosync and unsplash-stub (release)..." >&2
        swift build -c release --product photosync >/dev/null 2>&1
        swift build -c release --product unsplash-stub >/dev/null 2>&1
        bin=$(swift build -c release --show-bin-path)
    fi
    [[ -x $bin/photosync && -x $bin/unsplash-stub ]] || { echo "$(basename "$0"): no photosync or unsplash-stub in $bin" >&2; exit 1; }
}

# start_stub [unsplash-stub options...]: serves the stub on a free port of 127.0.0.1 and sets
# $base to its URL. With no access key it answers any key; the rate limit is set high enough
# not to interfere, unless the options set their own.
start_stub() {
    "$bin/unsplash-stub" --port 0 --rate-limit 10000000 "$@" > "$work/stub.out" &
    stub_pid=$!
    # A million photos take the stub some seconds to make before it listens (minutes on a
    # loaded machine); scale.sh's five million, up to ten.
    for _ in $(seq 6000); do grep -q "http://" "$work/stub.out" 2>/dev/null && break; sleep 0.1; done
    base=$(grep -o 'http://[0-9.:]*' "$work/stub.out" | head -1 || true)
    [[ -n $base ]] || { echo "$(basename "$0"): the stub did not start" >&2; exit 1; }
}

stop_stub() {
    [[ -n ${stub_pid:-} ]] && kill "$stub_pid" 2>/dev/null || true
    stub_pid=
}

# start_postgres [DIR]: a PostgreSQL 15 cluster on a unix socket, with the server's default
# durability (fsync on), stopped on exit; sets $postgres_socket. Without DIR a throwaway one in
# $work/postgres; with DIR the cluster there, made when DIR has none and kept after (scale.sh's
# databases, too long to copy again each run). Installs Debian's postgresql-15 when missing (as
# root). initdb refuses root: the cluster runs as the postgres user.
start_postgres() {
    [[ -x /usr/lib/postgresql/15/bin/initdb ]] || need /usr/lib/postgresql/15/bin/initdb postgresql-15
    postgres_dir=${1:-$work/postgres}
    postgres_socket=$postgres_dir/socket
    mkdir -p "$postgres_socket"
    chown postgres "$postgres_dir" "$postgres_socket"
    chmod 0755 "$work" "$postgres_dir"
    [[ -f $postgres_dir/data/PG_VERSION ]] ||
        runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$postgres_dir/data" -A trust -U postgres >/dev/null
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$postgres_dir/data" -l "$postgres_dir/log" -w \
        -o "-c listen_addresses='' -k $postgres_socket" start >/dev/null
    trap 'stop_stub; stop_postgres; rm -rf "$work"' EXIT
}

stop_postgres() {
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$postgres_dir/data" -m fast -w stop >/dev/null 2>&1 || true
}

# fresh_postgres_database NAME: drops and creates NAME on the cluster, and prints its URL.
fresh_postgres_database() {
    runuser -u postgres -- psql -q -h "$postgres_socket" -d postgres -c "DROP DATABASE IF EXISTS $1" >/dev/null
    runuser -u postgres -- psql -q -h "$postgres_socket" -d postgres -c "CREATE DATABASE $1" >/dev/null
    echo "postgres://postgres@/$1?host=$postgres_socket"
}

# in_memory FILE: reads FILE (and its -wal, when there is one) once, so that the load measures
# serve, not the disk. The machines here have been seen to drop the page cache of a file just
# written: a million-photo file served cold gave 30 random photos a p99 of 396 ms, warm 18 ms.
in_memory() {
    cat "$1" "$1-wal" > /dev/null 2>&1 || true
}

# load URL: prints "requests/s p99-ms [notes]" of `wrk -t2 -c16` over $seconds s, after
# ${warmup:-2} s of the same load unmeasured: each of photosync's readers keeps a listing's
# anchors, count and ranking until the data changes, and the first request on each pays for
# them (the single requests in Benchmarks/HISTORY.md). For serve.sh, writing.sh and scale.sh.
load() {
    local output
    wrk -t2 -c16 -d"${warmup:-2}s" --timeout 10s -H "Authorization: Client-ID bench" "$1" > /dev/null 2>&1
    # The Unsplash API's routes want a client key (any one, on loopback); the others ignore it.
    output=$(wrk -t2 -c16 -d"${seconds}s" --timeout 10s --latency -H "Authorization: Client-ID bench" "$1" 2>&1)
    python3 - "$output" <<'PY'
import re, sys
text = sys.argv[1]
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
match = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", text)
p99 = float(match.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[match.group(2)] if match else float("nan")
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
notes = (f" ({bad.group(1)} non-2xx)" if bad else "") + (f" (socket errors: {errors.group(1)})" if errors else "")
print(f"{rate:.0f} {p99:.1f}{notes}")
PY
}

# start_nginx: nginx serving $work/www on a free port of 127.0.0.1 (two workers, `sendfile on`,
# no access log), as the peer that serves files; sets $nginx_port. The caller stops it by
# $work/nginx.pid. Its workers run as an unprivileged user: $work/www must be theirs to read.
start_nginx() {
    mkdir -p "$work/www" "$work/tmp"
    chmod a+rx "$work"
    nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
    cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nodelay on;
    keepalive_requests 100000;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$nginx_port;
        root $work/www;
        default_type image/jpeg;
    }
}
CONF
    nginx -c "$work/nginx.conf" -p "$work"
}

# db_sql DATABASE SQL: the rows SQL reads from DATABASE, an SQLite file or a postgres:// URL,
# their columns separated by spaces.
db_sql() {
    if [[ $1 == postgres://* ]]; then
        psql -qAt -F ' ' -v ON_ERROR_STOP=1 "$1" -c "$2"
    else
        sqlite3 -separator ' ' "$1" "$2"
    fi
}

# add_bench_collection DATABASE: a source in an order of its own for the Unsplash API's source
# routes (/collections/ID/photos walks a source's positions, not the photos' dates): every tenth
# photo, added by SQL to a database the benchmark owns (an SQLite file or a postgres:// URL), as
# a collection sync would have listed them, and the collection's object as the sync stores it (a
# recorded collection's), for /collections/ID. Adds nothing a second time. For serve_routes.
add_bench_collection() {
    if [[ $1 == postgres://* ]]; then
        psql -q -v ON_ERROR_STOP=1 -v object="$(cat Tests/TestSupport/Fixtures/collection.json)" "$1" <<'SQL'
INSERT INTO source (name) SELECT 'collection:bench'
    WHERE NOT EXISTS (SELECT 1 FROM source WHERE name = 'collection:bench');
INSERT INTO photo_source (photo_id, source_id, first_seen_at, position)
    SELECT id, (SELECT id FROM source WHERE name = 'collection:bench'), first_seen_at, sequence
    FROM photo WHERE sequence % 10 = 0 ORDER BY sequence ON CONFLICT DO NOTHING;
UPDATE source SET object_json = (:'object')::jsonb::text, object_fetched_at = now()
    WHERE name = 'collection:bench' AND object_json IS NULL;
SQL
        return
    fi
    sqlite3 "$1" "INSERT INTO source (name) SELECT 'collection:bench'
            WHERE NOT EXISTS (SELECT 1 FROM source WHERE name = 'collection:bench');
        INSERT OR IGNORE INTO photo_source (photo_id, source_id, first_seen_at, position)
            SELECT id, (SELECT id FROM source WHERE name = 'collection:bench'), first_seen_at, sequence
            FROM photo WHERE sequence % 10 = 0;
        UPDATE source SET object_json = json(readfile('Tests/TestSupport/Fixtures/collection.json')),
            object_fetched_at = strftime('%Y-%m-%d %H:%M:%f', 'now')
            WHERE name = 'collection:bench' AND object_json IS NULL;"
}

# serve_routes DATABASE: sets $requests to the read side's 26 requests on the photos of DATABASE
# (an SQLite file or a postgres:// URL, after add_bench_collection), one "name|photosync
# path|Datasette URL" each, the URL empty where Datasette has no equivalent; its URLs name
# $theirs, Datasette's base URL. serve.sh loads them all; scale.sh loads the photosync paths at
# each size. Two stores holding the same photos get the same paths.
serve_routes() {
    local database=$1 stored members middle last user photo common rare collection_sql table db rowid=rowid
    local middle_id middle_date middle_time middle_rowid last_id last_date last_time last_rowid
    # Datasette's keys are SQLite's rowids; PostgreSQL has none, and no Datasette either.
    [[ $database == postgres://* ]] && rowid=sequence
    stored=$(db_sql "$database" "SELECT count(*) FROM photo")
    members=$(db_sql "$database" "SELECT count(*) FROM photo_source
        WHERE source_id = (SELECT id FROM source WHERE name = 'collection:bench')")
    db=$(basename "$database"); db=${db%.*}

    # The photos at the start of the middle and of the last page, newest first, and their keys.
    middle=$(( stored / 2 ))
    last=$(( stored > 30 ? stored - 30 : 0 ))
    at() { db_sql "$database" "SELECT id, created_at, $rowid FROM photo
        ORDER BY created_at DESC, sequence DESC LIMIT 1 OFFSET $1"; }
    read -r middle_id middle_date middle_time middle_rowid <<< "$(at $(( middle - 1 )))"
    read -r last_id last_date last_time last_rowid <<< "$(at $(( last - 1 )))"
    user=$(db_sql "$database" "SELECT user_username FROM photo GROUP BY user_username
        ORDER BY count(*), user_username LIMIT 1")
    photo=$(db_sql "$database" "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET $middle")
    common=a
    rare='"sleeping cat" zoë kyoto'
    urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
    next() { urlencode "$1 $2,$3"; }
    ranked() {
        urlencode "select photo.id, photo.created_at, photo.user_username, photo.alt_description
from photo_search join photo on photo.sequence = photo_search.rowid
where photo_search match :q order by rank limit 30"
    }
    # The same page of the collection in its own order, each photo's JSON, through Datasette's SQL page.
    collection_sql=$(urlencode "select photo.json from photo_source join photo on photo.id = photo_source.photo_id
where photo_source.source_id = (select id from source where name = 'collection:bench')
order by photo_source.position limit 30")
    # Datasette's table page counts the rows and suggests facets unless told not to: 2 s a page at
    # a million photos, so it is asked for the page alone, its quickest answer.
    table="${theirs:-}/$db/photo.json?_size=30&_sort_desc=created_at&_nocount=1&_nofacet=1&_nosuggest=1"

    # name | photosync path | Datasette URL (empty: no equivalent)
    requests=(
        "first page, JSON|/api/photos?limit=30|$table"
        "middle page by number, JSON|/api/photos?limit=30&offset=$middle|"
        "middle page by key, JSON|/api/photos?limit=30&after=$middle_id|$table&_next=$(next "$middle_date" "$middle_time" "$middle_rowid")"
        "last page by number, JSON|/api/photos?limit=30&offset=$last|"
        "last page by key, JSON|/api/photos?limit=30&after=$last_id|$table&_next=$(next "$last_date" "$last_time" "$last_rowid")"
        "gallery, first page|/|"
        "gallery, middle page|/?page=$(( middle / 30 + 1 ))|"
        "gallery, last page|/?page=$(( (stored + 29) / 30 ))|"
        "source filter, last page|/api/photos?source=feed&limit=30&offset=$last|"
        "user filter, JSON|/api/photos?user=$user&limit=30|$table&user_username=$user"
        "user filter, last page|/api/photos?user=$user&limit=30&offset=$(( $(db_sql "$database" "SELECT count(*) FROM photo WHERE user_username = '$user'") - 30 ))|"
        "search, a word every photo has|/api/photos?limit=30&q=$common|${theirs:-}/$db.json?sql=$(ranked)&q=$common"
        "search, a rare phrase|/api/photos?limit=30&q=$(urlencode "$rare")|${theirs:-}/$db.json?sql=$(ranked)&q=$(urlencode "$rare")"
        "gallery search, every photo|/?q=$common|"
        "one photo's page|/photos/$photo|${theirs:-}/$db/photo/$photo"
        "Unsplash API, feed, first page|/unsplash/photos?per_page=30|$table"
        "Unsplash API, feed, last page|/unsplash/photos?per_page=30&page=$(( (stored + 29) / 30 ))|$table&_next=$(next "$last_date" "$last_time" "$last_rowid")"
        "Unsplash API, one photo|/unsplash/photos/$photo|${theirs:-}/$db/photo/$photo.json"
        "Unsplash API, random photo|/unsplash/photos/random|"
        "Unsplash API, 30 random photos|/unsplash/photos/random?count=30|"
        "Unsplash API, search, every photo|/unsplash/search/photos?query=$common&per_page=30|${theirs:-}/$db.json?sql=$(ranked)&q=$common"
        "Unsplash API, search, rare|/unsplash/search/photos?query=kyoto&per_page=30|${theirs:-}/$db.json?sql=$(ranked)&q=kyoto"
        "Unsplash API, search, colour|/unsplash/search/photos?query=$common&color=blue&per_page=30|"
        "Unsplash API, collection|/unsplash/collections/bench|"
        "Unsplash API, collection, first page|/unsplash/collections/bench/photos?per_page=30|${theirs:-}/$db.json?sql=$collection_sql"
        "Unsplash API, collection, last page|/unsplash/collections/bench/photos?per_page=30&page=$(( (members + 29) / 30 ))|"
    )
}
