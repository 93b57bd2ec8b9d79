#!/usr/bin/env bash
# Two builds in turn, run by hand:  BEFORE=DIR AFTER=DIR Benchmarks/ab.sh [ROUNDS]
#
# For a change that must not make photosync slower (a redesign: issue 55's "no regression").
# BEFORE and AFTER each hold a release `photosync` (the stub is AFTER's). On the same data, the
# two builds take turns, before then after, ROUNDS times (default 3); each figure printed is the
# median of its rounds, with the ratio after/before:
#   1. the sync: `photosync run --once` of PHOTOS photos (default 3,000, 100 KB images) from the
#      stub into a new SQLite file, then into a new database of a throwaway PostgreSQL cluster;
#   2. with SQLITE=FILE and/or POSTGRES=URL (scale.sh's 100,000-photo mirrors, say), `serve`'s
#      answers to nine of the read side's routes (`serve_routes`) on each, requests a second
#      and p99 over SECONDS (default 3) of `wrk -t2 -c16` after 2 s unmeasured;
#   3. with SQLITE=FILE, `query --id` of one of its photos: the median of 10 runs a round.
# Rounds alternate, so a machine whose speed drifts (a neighbour's build) moves both alike.
set -euo pipefail
cd "$(dirname "$0")/.."
source Benchmarks/lib.sh

rounds=${1:-3}
photos=${PHOTOS:-3000}
seconds=${SECONDS_PER_ROUTE:-3}
[[ -x ${BEFORE:-}/photosync && -x ${AFTER:-}/photosync && -x $AFTER/unsplash-stub ]] || {
    echo "ab.sh: BEFORE and AFTER must name folders with a release photosync (AFTER's unsplash-stub too)" >&2
    exit 2
}
need wrk wrk
need curl curl
BIN=$AFTER with_stub_and_photosync
start_postgres
start_stub --photos "$photos" --image-size 100000
printf 'per_page: 30\n' > "$work/photosync.yaml"

# record NAME BUILD VALUE: one round's figure.
record() { echo "$3" >> "$work/$1.$2"; }

sync_once() { # sync_once BUILD DATABASE: wall seconds of one run --once
    local start end
    start=$(date +%s.%N)
    UNSPLASH_ACCESS_KEY=bench "${!1}/photosync" run --once --config "$work/photosync.yaml" --api-base "$base" \
        --allowed-image-host 127.0.0.1 --database "$2" > /dev/null 2> "$work/sync.err" || {
            cat "$work/sync.err" >&2; echo "ab.sh: $1's sync failed" >&2; exit 1; }
    end=$(date +%s.%N)
    python3 -c "import sys; print(f'{float(sys.argv[2]) - float(sys.argv[1]):.3f}')" "$start" "$end"
}

# serve_load BUILD DATABASE STORE: starts BUILD's serve on DATABASE and loads the routes.
serve_load() {
    local pid url line name path
    "${!1}/photosync" serve --listen 127.0.0.1:0 --database "$2" --mirror-rate-limit 1000000 2> "$work/serve.err" &
    pid=$!
    for _ in $(seq 100); do grep -q "http://" "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
    url=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
    [[ -n $url ]] || { echo "ab.sh: $1's serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }
    for line in "${chosen[@]}"; do
        IFS='|' read -r name path _ <<< "$line"
        # A load that fails (the server gone, say) is said, not fatal: the other figures stand.
        record "$3 $name" "$1" "$(load "$url$path" || echo "0 nan (the load failed: $(tail -c 300 "$work/serve.err"))")"
    done
    if ! kill "$pid" 2>/dev/null; then
        echo "ab.sh: $1's serve on $3 had ended before its routes were done: $(tail -c 500 "$work/serve.err")" >&2
        cp "$work/serve.err" "/tmp/ab-serve-$1-$3.err"
    fi
    wait "$pid" 2>/dev/null || true
}

# The routes measured: nine of the read side's 26, one of each kind.
pick_routes() {
    serve_routes "$1"
    chosen=()
    local line
    for line in "${requests[@]}"; do
        case ${line%%|*} in
            "first page, JSON" | "middle page by key, JSON" | "gallery, first page" | "one photo's page" | \
                "Unsplash API, feed, first page" | "Unsplash API, one photo" | "Unsplash API, search, rare" | \
                "Unsplash API, 30 random photos" | "Unsplash API, collection, first page") chosen+=("$line") ;;
        esac
    done
}

for round in $(seq "$rounds"); do
    for build in BEFORE AFTER; do
        echo "round $round of $rounds, $build: the sync..." >&2
        rm -rf "$work"/sync.sqlite*
        record "sync, SQLite (s)" $build "$(sync_once $build "$work/sync.sqlite")"
        record "sync, PostgreSQL (s)" $build "$(sync_once $build "$(fresh_postgres_database sync)")"
    done
done

# query.py PHOTOSYNC DATABASE ID: the median of 10 runs of `query --id`, in milliseconds.
cat > "$work/query.py" <<'PY'
import statistics, subprocess, sys, time
times = []
for _ in range(10):
    start = time.monotonic()
    subprocess.run([sys.argv[1], "query", "--database", sys.argv[2], "--id", sys.argv[3]],
                   check=True, stdout=subprocess.DEVNULL)
    times.append((time.monotonic() - start) * 1000)
print(f"{statistics.median(times):.1f}")
PY

if [[ -n ${SQLITE:-} ]]; then
    add_bench_collection "$SQLITE"
    pick_routes "$SQLITE"
    id=$(db_sql "$SQLITE" "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET 1000")
    in_memory "$SQLITE"
    for round in $(seq "$rounds"); do
        for build in BEFORE AFTER; do
            echo "round $round of $rounds, $build: serve and query on SQLite..." >&2
            serve_load $build "$SQLITE" "SQLite"
            record "query --id, SQLite (ms)" $build "$(python3 "$work/query.py" "${!build}/photosync" "$SQLITE" "$id")"
        done
    done
fi
if [[ -n ${POSTGRES:-} ]]; then
    add_bench_collection "$POSTGRES"
    pick_routes "$POSTGRES"
    for round in $(seq "$rounds"); do
        for build in BEFORE AFTER; do
            echo "round $round of $rounds, $build: serve on PostgreSQL..." >&2
            serve_load $build "$POSTGRES" "PostgreSQL"
        done
    done
fi

python3 - "$work" <<'PY'
import glob, os, statistics, sys
work = sys.argv[1]
names = sorted({os.path.basename(p).rsplit(".", 1)[0] for p in glob.glob(f"{work}/*.BEFORE")})
print(f"{'figure':58} {'before':>16} {'after':>16} {'after/before':>13}")
for name in names:
    rows = {b: [l.split() for l in open(f"{work}/{name}.{b}")] for b in ("BEFORE", "AFTER")}
    for b in rows:
        for row in rows[b]:
            if len(row) > 2:
                print(f"ab.sh: {name}, {b}: {' '.join(row[2:])}", file=sys.stderr)
    if name.endswith("(s)") or name.endswith("(ms)"):
        b, a = (statistics.median(float(r[0]) for r in rows[x]) for x in ("BEFORE", "AFTER"))
        print(f"{name:58} {b:>16.3f} {a:>16.3f} {a / b:>12.2f}x")
    else:  # a route: requests a second and p99 ms
        (rb, pb), (ra, pa) = ([statistics.median(float(r[i]) for r in rows[x]) for i in (0, 1)]
                              for x in ("BEFORE", "AFTER"))
        print(f"{name + ' (req/s, p99)':58} {rb:>8.0f} {pb:>5.1f} ms {ra:>8.0f} {pa:>5.1f} ms {ra / rb:>12.2f}x")
PY
