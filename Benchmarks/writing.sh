#!/usr/bin/env bash
# Reads while the daemon writes, run by hand:  [DATABASE=file] [BIN=dir] Benchmarks/writing.sh [PHOTOS] [SECONDS]
#
# Mirrors PHOTOS photos (default 100,000) from the stub, metadata and thumbnails, into a fresh
# database (DATABASE=file keeps it there, or reuses it). Then it serves that file with `photosync serve`
# and loads six routes in turn with `wrk -t2 -c16` (2 s unmeasured, then SECONDS s, default 8):
# first while nothing writes the file, then while `photosync run` backfills a second feed (a stub
# with other photos) into it, metadata and thumbnails, all on the same cores. It prints each
# route's requests per second and 99th percentile latency, idle and while writing, and how many
# times its throughput fell.
#
# The plain photo lookup measures what sharing the CPU with the writer costs. Target: every other
# route falls at most 1.5 times as far as the lookup, and keeps p99 under 100 ms while writing.
#
# Prerequisites: Debian's wrk and sqlite3 (apt-get installs them when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-100000}
seconds=${2:-8}

source Benchmarks/lib.sh
need sqlite3 sqlite3
need wrk wrk

with_stub_and_photosync
database=${DATABASE:-$work/photosync.sqlite}
if [[ ! -f $database ]]; then
    start_stub --photos "$photos" --image-size 1000
    printf 'per_page: 30\n' > "$work/photosync.yaml"
    echo "mirroring $photos photos (metadata and thumbnails) into $database..." >&2
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" \
        --api-base "$base" --database "$database" --variant thumb --allowed-image-host 127.0.0.1 \
        --no-download-tracking --concurrency 8 > /dev/null 2>&1
    stop_stub
fi
stored=$(sqlite3 "$database" "SELECT count(*) FROM photo")
echo "database: $(du -h "$database" | cut -f1), $stored photos" >&2

in_memory "$database"
"$bin/photosync" serve --listen 127.0.0.1:0 --database "$database" --mirror-rate-limit 1000000 \
    2> "$work/serve.err" &
serve_pid=$!
writer_pid=
trap 'kill $serve_pid ${writer_pid:-} 2>/dev/null || true; stop_stub; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "http://" "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
ours=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
[[ -n $ours ]] || { echo "writing.sh: photosync serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }

photo=$(sqlite3 "$database" "SELECT id FROM photo LIMIT 1 OFFSET $(( stored / 2 ))")
deep=$(( stored / 10 / 3 ))
# name | path: the routes of issue 32's table (Unsplash's pages are 10 photos unless asked)
routes=(
    "Unsplash API, one photo|/unsplash/photos/$photo"
    "Unsplash API, feed, first page|/unsplash/photos"
    "Unsplash API, feed, page $deep|/unsplash/photos?page=$deep"
    "Unsplash API, search, a word most photos have|/unsplash/search/photos?query=a"
    "Unsplash API, search, colour|/unsplash/search/photos?query=a&color=blue"
    "gallery, page $deep|/?page=$deep"
)


declare -A idle
for route in "${routes[@]}"; do
    IFS='|' read -r name path <<< "$route"
    curl -fs -o /dev/null -H "Authorization: Client-ID bench" "$ours$path" || echo "writing.sh: $path answered an error" >&2
    idle[$name]=$(load "$ours$path")
done

# The writer: a second feed of other photos (another seed), more than it can store while the
# routes are measured, metadata and thumbnails, into the same file. Its total differs from the
# first feed's, so the daemon's first look at the head finds it new, and walks it.
start_stub --photos $(( 3 * photos )) --image-size 1000 --seed 7
printf 'per_page: 30\n' > "$work/writer.yaml"
UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --config "$work/writer.yaml" --api-base "$base" \
    --database "$database" --variant thumb --no-download-tracking --allowed-image-host 127.0.0.1 \
    --concurrency 8 > /dev/null 2> "$work/writer.err" &
writer_pid=$!
before=$(sqlite3 "$database" "SELECT count(*) FROM photo")
sleep 3
started=$(date +%s.%N)

printf '%-46s %20s %20s %8s\n' "route" "idle: req/s, p99" "writing: req/s, p99" "fell"
for route in "${routes[@]}"; do
    IFS='|' read -r name path <<< "$route"
    read -r idle_rate idle_p99 _ <<< "${idle[$name]}"
    read -r rate p99 _ <<< "$(load "$ours$path")"
    kill -0 "$writer_pid" 2>/dev/null || { echo "writing.sh: the writer stopped: $(tail -3 "$work/writer.err")" >&2; exit 1; }
    printf '%-46s %12s, %5s ms %12s, %5s ms %7sx\n' "$name" "$idle_rate" "$idle_p99" "$rate" "$p99" \
        "$(python3 -c "print(f'{$idle_rate / max($rate, 1):.1f}')")"
done
ended=$(date +%s.%N)
after=$(sqlite3 "$database" "SELECT count(*) FROM photo")
python3 -c "import sys; n = int(sys.argv[2]) - int(sys.argv[1]); s = float(sys.argv[4]) - float(sys.argv[3]); \
print(f'the writer stored {n:,} photos meanwhile ({n / s:,.0f} a second, from 3 s after its start)')" \
    "$before" "$after" "$started" "$ended"
