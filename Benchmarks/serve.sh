#!/usr/bin/env bash
# The read side, run by hand:  [DATABASE=file] [BIN=dir] [POSTGRES=1] Benchmarks/serve.sh [PHOTOS] [SECONDS]
#
# Mirrors PHOTOS photos (default 1,000,000) from the stub on 127.0.0.1, metadata only
# (`--variant none`), into a fresh database and prints how long that took. DATABASE=file keeps
# that database there, or reuses it when it exists (building one takes several minutes).
# Then it serves the database with `photosync serve` and with Datasette side by side, and loads
# each request for SECONDS seconds (default 10) with `wrk -t2 -c16`, photosync's and Datasette's
# in turn, and prints requests per second and the 99th percentile latency of each, with the
# ratio of the two throughputs. Targets: p99 under 20 ms, and at least Datasette's throughput.
# Last, it times `photosync status` (the median of 20 runs; target under 100 ms).
# POSTGRES=1 copies the file into a throwaway PostgreSQL 15 cluster (`photosync copy`, timed)
# and serves photosync from there; POSTGRES=postgres://... serves that database as it is (a copy
# of the same file made earlier). Datasette reads the file as before.
#
# Datasette pages by key (`_next=`), so its deep pages are asked for by key; photosync is asked
# both by page number (offset) and by key (`after=`). Its searches go through its SQL page, the
# way a Datasette user ranks by bm25. Its time limit is raised so that it answers rather than
# stops a slow query.
#
# Prerequisites (apt-get installs the first three when missing, as root):
#   Debian's wrk, sqlite3 and python3-venv; Datasette from PyPI, into a virtual environment:
#     python3 -m venv .bench-venv && .bench-venv/bin/pip install datasette
#   (DATASETTE=path/to/datasette names another one; DATASETTE=none measures photosync alone,
#   for a before and after of two builds.)
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-1000000}
seconds=${2:-10}

source Benchmarks/lib.sh
need sqlite3 sqlite3
need wrk wrk
datasette=${DATASETTE:-.bench-venv/bin/datasette}
[[ $datasette == none || -x $datasette ]] || {
    echo "serve.sh: no Datasette at $datasette: python3 -m venv .bench-venv && .bench-venv/bin/pip install datasette" >&2
    exit 1
}

with_stub_and_photosync
database=${DATABASE:-$work/photosync.sqlite}
if [[ ! -f $database ]]; then
    start_stub --photos "$photos" --image-size 1000
    printf 'per_page: 30\n' > "$work/photosync.yaml"
    echo "mirroring $photos photos (metadata only) into $database..." >&2
    start=$(date +%s.%N)
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" \
        --api-base "$base" --database "$database" --variant none --no-download-tracking \
        --concurrency 8 > /dev/null 2>&1
    end=$(date +%s.%N)
    stop_stub
    python3 -c "import sys; s = float(sys.argv[2]) - float(sys.argv[1]); n = int(sys.argv[3]); \
print(f'sync: {n:,} photos, metadata only, in {s:.0f} s ({n / s:,.0f} photos/s)')" "$start" "$end" "$photos"
fi
stored=$(sqlite3 "$database" "SELECT count(*) FROM photo")
add_bench_collection "$database"
echo "database: $(du -h "$database" | cut -f1), $stored photos" >&2
served=$database
if [[ ${POSTGRES:-} == postgres://* ]]; then
    served=$POSTGRES
elif [[ -n ${POSTGRES:-} ]]; then
    start_postgres
    served=$(fresh_postgres_database served)
    start=$(date +%s.%N)
    "$bin/photosync" copy --from "$database" --to "$served" > /dev/null 2>&1
    end=$(date +%s.%N)
    python3 -c "import sys; print(f'copied into PostgreSQL in {float(sys.argv[2]) - float(sys.argv[1]):.0f} s')" \
        "$start" "$end"
fi

# photosync serve, on a free port it names on stderr.
# The Unsplash API's own rate limit (per key and hour) is raised so the load is answered, not refused.
in_memory "$database"
"$bin/photosync" serve --listen 127.0.0.1:0 --database "$served" --mirror-rate-limit 1000000 \
    2> "$work/serve.err" &
serve_pid=$!
datasette_pid=
trap 'kill $serve_pid ${datasette_pid:-} 2>/dev/null || true; stop_stub; [[ -n ${postgres_socket:-} ]] && stop_postgres; rm -rf "$work"' EXIT
for _ in $(seq 100); do grep -q "http://" "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
ours=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
[[ -n $ours ]] || { echo "serve.sh: photosync serve did not start: $(cat "$work/serve.err")" >&2; exit 1; }

port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
theirs=http://127.0.0.1:$port
if [[ $datasette != none ]]; then
    "$datasette" serve "$database" --host 127.0.0.1 --port "$port" \
        --setting sql_time_limit_ms 60000 --setting default_page_size 30 > "$work/datasette.out" 2>&1 &
    datasette_pid=$!
    for _ in $(seq 100); do curl -fs "$theirs/-/versions.json" > /dev/null && break; sleep 0.2; done
fi
serve_routes "$database"

# Datasette goes on running the SQL of requests wrk gave up on (up to its 60 s limit); the next
# measurement waits until it has stopped using the CPU, so that it does not measure its leftovers.
settle() {
    local before after
    for _ in $(seq 120); do
        before=$(awk '{print $14 + $15}' "/proc/$datasette_pid/stat")
        sleep 0.5
        after=$(awk '{print $14 + $15}' "/proc/$datasette_pid/stat")
        (( after - before < 5 )) && return
    done
}

printf '%-34s %22s %22s %8s\n' "request" "photosync req/s, p99" "Datasette req/s, p99" "ratio"
for request in "${requests[@]}"; do
    IFS='|' read -r name path other <<< "$request"
    curl -fs -o /dev/null -H "Authorization: Client-ID bench" "$ours$path" || echo "serve.sh: $path answered an error" >&2
    read -r our_rate our_p99 our_notes <<< "$(load "$ours$path")"
    if [[ -n $other && $datasette != none ]]; then
        curl -fs -o /dev/null "$other" || echo "serve.sh: Datasette's $other answered an error" >&2
        read -r their_rate their_p99 their_notes <<< "$(load "$other")"
        settle
        ratio=$(python3 -c "print(f'{$our_rate / max($their_rate, 1):.1f}x')")
        printf '%-34s %14s, %5s ms %14s, %5s ms %8s %s\n' "$name" "$our_rate" "$our_p99" "$their_rate" "$their_p99" \
            "$ratio" "$our_notes$their_notes"
    else
        printf '%-34s %14s, %5s ms %22s %8s %s\n' "$name" "$our_rate" "$our_p99" "" "" "$our_notes"
    fi
done

python3 - "$bin/photosync" "$served" <<'PY'
import statistics, subprocess, sys, time
binary, database = sys.argv[1], sys.argv[2]
def seconds():
    start = time.perf_counter()
    subprocess.run([binary, "status", "--database", database], stdout=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start
for _ in range(3):
    seconds()
print(f"photosync status: {statistics.median(seconds() for _ in range(20)) * 1000:.0f} ms (median of 20; target under 100 ms)")
PY
