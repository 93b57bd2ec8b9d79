#!/usr/bin/env bash
# Issue 52's scale table, run by hand:
#   [DATASETS=dir] [BIN=dir] [STORES="sqlite postgres"] [POSTGRES_SIZES="..."] [ROUNDS=3]
#   [IMAGE_SIZE=15000] [WARMUP=1] [RESULTS=file] Benchmarks/scale.sh [SIZES] [SECONDS]
#
# Does the cost of each operation stay flat as the mirror grows? SIZES (default "100000 1000000
# 5000000") are mirrors of that many photos, each with its search entry and one small thumbnail,
# on SQLite and on PostgreSQL 15 (STORES). Each round takes every size of every store in turn,
# and measures at each:
#   1. a daemon's start to its first API request: `photosync run` exec'd against a listener that
#      times the first request it receives and stops the daemon there; cold (the page cache
#      dropped, PostgreSQL restarted) once, then warm (the median of three);
#   2. the sync of a new page: `run --once` against a stub whose feed is the mirror's and 30
#      photos more at its head, so the run stores 30 photos and their thumbnails, reads the
#      second page, finds it known and stops; its time and peak RSS;
#   3. `query --id` of the photo in the middle of the mirror (median of 9);
#   4. `status` (median of 5);
#   5. `serve`: each of serve.sh's 26 requests (lib.sh serve_routes) under `wrk -t2 -c16`, WARMUP
#      s unmeasured then SECONDS s (default 2); requests a second and p99; then serve's peak RSS.
# It prints, for each store, the median of the rounds at each size and the median of the rounds'
# ratios to the smallest size, which are the targets' terms (issue 52): the new page within 1.3x,
# query within 1.2x, each route's p99 within 1.5x and under 20 ms, the start under 2 s, status
# under 1 s, RSS within 1.5x. Last, the disk each photo takes, by table and index.
#
# The mirrors are made once into DATASETS (default .scale-datasets; a 5,000,000-photo one takes
# about 40 GB on each store) and reused by later runs; each round adds 30 photos to each. Every
# mirror, at every size and on both stores, is the stub's feed of that many photos as
# `photosync run --once --variant thumb` (30 a page) stores a sync of it, written by `scale-load`
# (Benchmarks/Loader): the stub's pages made in-process and stored through the store's own
# writes (page commits with the sync's cursors, the image writer's batches), in the sync's order,
# without HTTP and without painting a thumbnail a photo (a sync through the stub makes 150-600
# photos a second: 2 to 9 hours for 5,000,000); what is left is mostly each photo's own small
# painting, which its JSON's `color` and `blur_hash` are read from, about 2 ms of CPU a photo
# (Benchmarks/README.md has the rates). Each photo has one `thumb`: the stub's for it
# (IMAGE_SIZE is the stub's `regular` size; a thumbnail is a fifth of it: 3,000 bytes on
# average, from 1,500 to 4,500, a 64-96-pixel JPEG padded to its size), but painted with one of
# 1,000 pictures lent round robin. SQLite's in DATASETS/sqlite-SIZE.sqlite;
# PostgreSQL's loaded directly (not copied from the SQLite file) into a cluster in
# DATASETS/postgres (server defaults, fsync on) kept between runs; POSTGRES_SIZES limits which
# sizes (default all). A mirror the run did not finish is made again.
# BIN=dir names a release build's photosync, unsplash-stub and scale-load. Needs root (the page
# cache is dropped for the cold start), wrk, sqlite3 and python3.
set -euo pipefail
cd "$(dirname "$0")/.."

sizes=(${1:-100000 1000000 5000000})
seconds=${2:-2}
# SIZES is one argument: unquoted, its second size would be taken for SECONDS (and wrk would run
# for days).
[[ $seconds =~ ^[0-9]+$ ]] && ((seconds >= 1 && seconds <= 600)) ||
    { echo "scale.sh: SECONDS must be 1 to 600, not '$seconds' (quote SIZES: \"100000 1000000\")" >&2; exit 2; }
warmup=${WARMUP:-1}
rounds=${ROUNDS:-3}
stores=(${STORES:-sqlite postgres})
postgres_sizes=(${POSTGRES_SIZES:-${sizes[*]}})
image_size=${IMAGE_SIZE:-15000}
datasets=$(realpath -m "${DATASETS:-.scale-datasets}")

source Benchmarks/lib.sh
set -E
trap 'echo "scale.sh: failed at line $LINENO" >&2' ERR
need sqlite3 sqlite3
need wrk wrk
with_stub_and_photosync
if [[ -z ${BIN:-} ]]; then
    echo "building scale-load (release)..." >&2
    swift build -c release --product scale-load >/dev/null 2>&1
fi
[[ -x $bin/scale-load ]] || { echo "scale.sh: no scale-load in $bin" >&2; exit 1; }
mkdir -p "$datasets"
printf 'per_page: 30\n' > "$work/photosync.yaml"
sync_options=(--config "$work/photosync.yaml" --allowed-image-host 127.0.0.1 --variant thumb
    --no-download-tracking --concurrency 8)

say() { echo "scale.sh: $(date +%T) $*" >&2; }
sqlite_file() { echo "$datasets/sqlite-$1.sqlite"; }
postgres_url() { echo "postgres://postgres@/scale_$1?host=$postgres_socket"; }

# sqlite_disk FILE: the bytes of each table with its indexes (dbstat), for the disk table.
sqlite_disk() {
    sqlite3 -separator ' ' "$1" "SELECT coalesce(m.tbl_name, d.name), sum(d.pgsize) FROM dbstat AS d
        LEFT JOIN sqlite_schema AS m ON m.name = d.name GROUP BY 1 ORDER BY 2 DESC"
}

# postgres_disk URL: each table's heap, TOAST and indexes, in bytes.
postgres_disk() {
    psql -qAt -F ' ' "$1" -c "SELECT relname, pg_table_size(oid), pg_indexes_size(oid) FROM pg_class
        WHERE relkind = 'r' AND relnamespace = 'public'::regnamespace ORDER BY pg_total_relation_size(oid) DESC"
}

# load DATABASE SIZE: the stub's feed of SIZE photos into DATABASE (a new file, or an empty
# PostgreSQL database) by scale-load, its URLs naming a stub at 127.0.0.1:8080.
load_mirror() {
    say "loading $2 photos into $1 ($(df --output=avail -B1G "$datasets" | tail -1) GB free)"
    "$bin/scale-load" --database "$1" --photos "$2" --image-size "$image_size" > "$work/load.out" 2> "$work/load.err" ||
        { tail "$work/load.err" >&2; exit 1; }
    say "$(cat "$work/load.out")"
}

# The mirrors: a file or database and a marker that it was finished.
for size in "${sizes[@]}"; do
    [[ " ${stores[*]} " == *" sqlite "* ]] || break
    file=$(sqlite_file "$size")
    [[ -f $file.loaded ]] && continue
    [[ -e $file ]] && say "removing $file: an earlier scale.sh's, or a load that did not finish"
    rm -rf "$file" "$file-wal" "$file-shm" "$file.lock" "$file.downloads"
    load_mirror "$file" "$size"
    add_bench_collection "$file"
    sqlite_disk "$file" > "$file.disk"
    touch "$file.loaded"
done
if [[ " ${stores[*]} " == *" postgres "* ]]; then
    start_postgres "$datasets/postgres"
    for size in "${postgres_sizes[@]}"; do
        [[ -f $datasets/postgres-$size.loaded ]] && continue
        load_mirror "$(fresh_postgres_database "scale_$size")" "$size"
        add_bench_collection "$(postgres_url "$size")"
        postgres_disk "$(postgres_url "$size")" > "$datasets/postgres-$size.disk"
        touch "$datasets/postgres-$size.loaded"
    done
fi

# The measurements.
results=${RESULTS:-$work/results}  # RESULTS=file keeps each figure of each round there
: > "$results"
record() { echo "$*" >> "$results"; }
median_of() { python3 -c "import statistics, sys; print(f'{statistics.median(map(float, sys.argv[1:])):.4f}')" "$@"; }
time_of() { python3 -c "import subprocess, sys, time; s = time.perf_counter(); \
subprocess.run(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True); \
print(f'{time.perf_counter() - s:.4f}')" "$@"; }

# first_request DATABASE: seconds from exec'ing `photosync run` to its first API request. The
# listener answers it 503 and SIGTERMs the daemon, which lets go of the database (and of
# PostgreSQL's writer lease) as it would under systemd.
first_request() {
    python3 - "$bin/photosync" "$1" "${sync_options[@]}" <<'PY'
import os, signal, socket, subprocess, sys, time
binary, database, options = sys.argv[1], sys.argv[2], sys.argv[3:]
listener = socket.create_server(("127.0.0.1", 0))
listener.settimeout(120)
port = listener.getsockname()[1]
command = [binary, "run", *options, "--api-base", f"http://127.0.0.1:{port}", "--database", database]
start = time.perf_counter()
daemon = subprocess.Popen(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
                          env=dict(os.environ, UNSPLASH_ACCESS_KEY="bench"))
connection, _ = listener.accept()
request = b""
while b"\r\n" not in request:
    request += connection.recv(4096)
elapsed = time.perf_counter() - start
connection.sendall(b"HTTP/1.1 503 Service Unavailable\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
connection.close()
daemon.send_signal(signal.SIGTERM)
try:
    daemon.wait(timeout=60)
except subprocess.TimeoutExpired:
    daemon.kill()
    daemon.wait()
print(f"{elapsed:.4f}")
PY
}

# A stub whose feed holds COUNT photos: a mirror's, which is the stub's feed of the photos it
# holds, and 30 more at the head. The two stores' mirrors of a size hold the same photos, so one
# stub serves both in a round; it is warmed (the pages and the thumbnails made once) so that no
# store pays for the stub's first request.
stub_count=
stub_for() {
    [[ $stub_count == "$1" ]] && return
    stop_stub
    start_stub --photos "$1" --image-size "$image_size"
    stub_count=$1
    python3 - "$base" <<'PY'
import json, sys, urllib.request
base = sys.argv[1]
def get(url):
    request = urllib.request.Request(url, headers={"Authorization": "Client-ID bench"})
    with urllib.request.urlopen(request) as response:
        return response.read()
for page in (1, 2):
    for photo in json.loads(get(f"{base}/photos?page={page}&per_page=30")):
        get(photo["urls"]["thumb"])
PY
}

serve_pid=
stop_serve() {
    if [[ -n $serve_pid ]]; then
        kill "$serve_pid" 2>/dev/null || true
        wait "$serve_pid" 2>/dev/null || true
    fi
    serve_pid=
}
on_exit() { trap 'stop_serve; stop_stub; [[ -n ${postgres_socket:-} ]] && stop_postgres; rm -rf "$work"' EXIT; }
on_exit

# pick STORE SIZE: sets $file, $database (the store's URL or file) and $stored, its photos; fails
# for a size the store does not hold.
pick() {
    file=$(sqlite_file "$2")
    if [[ $1 == sqlite ]]; then
        database=$file
        stored=$(sqlite3 "$file" "SELECT count(*) FROM photo")
    else
        [[ " ${postgres_sizes[*]} " == *" $2 "* ]] || return 1
        database=$(postgres_url "$2")
        stored=$(psql -qAt "$database" -c "SELECT count(*) FROM photo")
    fi
}

# warm_up: reads the store's files once when they fit in half the memory there is, so that what
# is measured is photosync, not the disk (lib.sh in_memory); a 5,000,000-photo mirror (40 GB
# on a 24 GB machine) cannot be, and is read by what the measurements ask of it.
warm_up() {
    local files=("$file") bytes
    if [[ $store == postgres ]]; then
        files=("$datasets/postgres/data/base/$(psql -qAt "$database" -c "SELECT oid FROM pg_database
            WHERE datname = current_database()")")
    fi
    bytes=$(du -scb "${files[@]}" | tail -1 | cut -f1)
    (( bytes < $(awk '/MemAvailable/ {print $2}' /proc/meminfo) * 512 )) || return 0
    find "${files[@]}" -type f -exec cat {} + > /dev/null
}

# measure: the new page, query, status and serve on $database, recorded under $at.
measure() {
    stub_for $(( stored + 30 ))
    warm_up
    UNSPLASH_ACCESS_KEY=bench /usr/bin/time -o "$work/run.time" -f "%e %M" "$bin/photosync" run --once \
        "${sync_options[@]}" --api-base "$base" --database "$database" > /dev/null 2> "$work/run.err" || true
    grep -q "(30 new)" "$work/run.err" ||
        { echo "scale.sh: the new page was not stored:" >&2; tail -3 "$work/run.err" >&2; exit 1; }
    read -r elapsed kilobytes < "$work/run.time"
    record "$at new_page $elapsed"
    record "$at run_rss_mib $(( kilobytes / 1024 ))"

    id=$(db_sql "$database" "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET $(( size / 2 ))")
    query=("$bin/photosync" query --id "$id" --database "$database" --config "$work/photosync.yaml")
    time_of "${query[@]}" > /dev/null; time_of "${query[@]}" > /dev/null
    record "$at query $(median_of $(for _ in $(seq 9); do time_of "${query[@]}"; done))"
    status=("$bin/photosync" status --database "$database")
    time_of "${status[@]}" > /dev/null
    record "$at status $(median_of $(for _ in $(seq 5); do time_of "${status[@]}"; done))"

    "$bin/photosync" serve --listen 127.0.0.1:0 --database "$database" --mirror-rate-limit 1000000 \
        2> "$work/serve.err" &
    serve_pid=$!
    for _ in $(seq 300); do grep -q "http://" "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
    ours=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
    [[ -n $ours ]] || { echo "scale.sh: serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }
    theirs=
    serve_routes "$database"
    number=0
    for request in "${requests[@]}"; do
        IFS='|' read -r name path _ <<< "$request"
        number=$(( number + 1 ))
        # The first request builds what serve keeps until the data changes (a listing's anchors,
        # its count, a search's ranking): a serve that has just started, or whose mirror has
        # just taken a new page, pays it once.
        first=$(curl -fs -o /dev/null -w '%{time_total}' --max-time 900 -H "Authorization: Client-ID bench" \
            "$ours$path") || echo "scale.sh: $path answered an error" >&2
        read -r rate p99 notes <<< "$(load "$ours$path")"
        record "$at route$number $rate $p99 $name${notes:+ $notes}"
        record "$at first$number ${first:-nan}"
    done
    record "$at serve_rss_mib $(( $(awk '/VmHWM/ {print $2}' "/proc/$serve_pid/status") / 1024 ))"
    stop_serve
}

# measure_start: the daemon's start to its first request, cold (the page cache dropped and
# PostgreSQL restarted: the store as after a reboot) then warm, recorded under $at.
measure_start() {
    sync
    echo 3 > /proc/sys/vm/drop_caches
    if [[ $store == postgres ]]; then
        stop_postgres
        start_postgres "$datasets/postgres"
        on_exit
        sync
        echo 3 > /proc/sys/vm/drop_caches
    fi
    record "$at start_cold $(first_request "$database")"
    first_request "$database" > /dev/null
    record "$at start_warm $(median_of $(for _ in 1 2 3; do first_request "$database"; done))"
}

# Each round: everything but the start at every size of every store (both stores of a size
# together, so that one stub serves them), then the starts (which empty the page cache) at each.
for (( round = 1; round <= rounds; round++ )); do
    for phase in measure measure_start; do
        for size in "${sizes[@]}"; do
            for store in "${stores[@]}"; do
                pick "$store" "$size" || continue
                say "round $round, $phase, $store, $size photos (holds $stored)"
                at="$store $size $round"
                "$phase"
            done
        done
    done
done
stop_stub

python3 - "$results" "$datasets" "${sizes[*]}" <<'PY'
import collections, statistics, sys
results, datasets, sizes = sys.argv[1], sys.argv[2], [int(s) for s in sys.argv[3].split()]
values = collections.defaultdict(dict)  # (store, metric) -> {(size, round): value}
names = {}
for line in open(results):
    store, size, round_, metric, value, *rest = line.split()
    key = (int(size), int(round_))
    if metric.startswith("route"):
        values[(store, metric + " p99")][key] = float(rest[0])
        values[(store, metric + " req/s")][key] = float(value)
        names[metric] = " ".join(rest[1:])
    else:
        values[(store, metric)][key] = float(value)

labels = {
    "new_page": ("sync of a new page of 30 photos", "s", "<= 1.3x"),
    "start_warm": ("start to first API request, warm", "s", "< 2 s"),
    "start_cold": ("start to first API request, cold", "s", ""),
    "query": ("query --id", "s", "<= 1.2x"),
    "status": ("status", "s", "< 1 s"),
    "run_rss_mib": ("peak RSS of run --once", "MiB", "<= 1.5x"),
    "serve_rss_mib": ("peak RSS of serve after the routes", "MiB", "<= 1.5x"),
}
def cell(series, size, base):
    here = [v for (s, r), v in series.items() if s == size]
    if not here:
        return "-"
    text = f"{statistics.median(here):.4g}"
    if size != base:
        ratios = [v / series[(base, r)] for (s, r), v in series.items() if s == size and (base, r) in series]
        if ratios:
            text += f" ({statistics.median(ratios):.2f}x)"
    return text
base = sizes[0]
for store in sorted({store for store, _ in values}):
    print(f"\n{store}: medians of the rounds, and in brackets the median of the rounds' ratios to {base:,}")
    print(f"{'':44}" + "".join(f"{size:>22,}" for size in sizes) + "  target")
    for metric, (label, unit, target) in labels.items():
        series = values.get((store, metric))
        if series:
            print(f"{label + ', ' + unit:44}" + "".join(f"{cell(series, size, base):>22}" for size in sizes) + f"  {target}")
    routes = sorted({m.split()[0] for s, m in values if s == store and m.startswith("route")}, key=lambda m: int(m[5:]))
    for metric in routes:
        series = values[(store, metric + " p99")]
        rates = values[(store, metric + " req/s")]
        largest = [v for (s, _), v in rates.items() if s == sizes[-1]]
        print(f"{names[metric][:36] + ', p99 ms':44}" + "".join(f"{cell(series, size, base):>22}" for size in sizes)
              + f"  <= 1.5x, < 20 ms" + (f" ({statistics.median(largest):,.0f}/s at {sizes[-1]:,})" if largest else ""))
    print("the first request of each route, s (serve just started, or the mirror just changed)")
    for metric in routes:
        series = values.get((store, "first" + metric[5:]))
        if series:
            print(f"{names[metric][:36]:44}" + "".join(f"{cell(series, size, base):>22}" for size in sizes))

print("\ndisk a photo, bytes (table with its indexes)")
for kind in ("sqlite", "postgres"):
    for size in sizes:
        try:
            lines = open(f"{datasets}/{kind}-{size}{'.sqlite' if kind == 'sqlite' else ''}.disk").read().split("\n")
        except FileNotFoundError:
            continue
        rows = [line.split() for line in lines if line.strip()]
        parts = collections.Counter()
        for name, *sizes_of in rows:
            parts["photo_search" if name.startswith("photo_search") else name] += sum(map(int, sizes_of))
        parts = parts.most_common()
        total = sum(b for _, b in parts)
        shown = ", ".join(f"{name} {b / size:,.0f}" for name, b in parts if b / size >= 10)
        print(f"{kind} {size:>9,}: {total / size:,.0f} ({shown})")
PY
