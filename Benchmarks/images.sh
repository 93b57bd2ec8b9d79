#!/usr/bin/env bash
# Images against nginx, run by hand:  [BIN=dir] [ROUNDS=3] [SIZES="204800 2097152"] Benchmarks/images.sh [SECONDS]
#
# For each size in SIZES (default 200 KB and 2 MB), mirrors one photo with its image of about
# that many bytes from the stub on 127.0.0.1 into a SQLite file, and copies the file into a
# throwaway PostgreSQL 15 cluster (`photosync copy`). Then `photosync serve` answers
# `/images/ID?variant=regular` from each store, and nginx the same bytes from a file (fetched
# from serve, `sendfile on`, two workers). Each is loaded with `wrk -t2 -c16` for SECONDS
# seconds (default 5) after two unmeasured ones, in turn, ROUNDS rounds; the medians of
# requests per second and p99 are printed, with each store's ratio to nginx. Target
# (issue 52): at least 0.8x nginx on both stores at both sizes.
#
# Prerequisites (apt-get installs them when missing, as root): Debian's wrk, nginx-light,
# sqlite3, postgresql-15.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-5}
rounds=${ROUNDS:-3}
sizes=${SIZES:-204800 2097152}

source Benchmarks/lib.sh
need wrk wrk
need nginx nginx-light
need sqlite3 sqlite3

with_stub_and_photosync
start_postgres
serve_pids=()
trap 'kill "${serve_pids[@]}" 2>/dev/null || true; [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null;
    stop_stub; stop_postgres; rm -rf "$work"' EXIT

# serve DATABASE: starts `photosync serve` on DATABASE and sets $served to its URL.
serve() {
    local err=$work/serve.${#serve_pids[@]}.err
    "$bin/photosync" serve --listen 127.0.0.1:0 --database "$1" --mirror-rate-limit 1000000 > /dev/null 2> "$err" &
    serve_pids+=($!)
    for _ in $(seq 100); do grep -q "http://" "$err" 2>/dev/null && break; sleep 0.1; done
    served=$(grep -o 'http://[0-9.:]*' "$err" | head -1 || true)
    [[ -n $served ]] || { echo "images.sh: serve did not start: $(cat "$err")" >&2; exit 1; }
}

start_nginx
port=$nginx_port

declare -A url
for size in $sizes; do
    database=$work/images-$size.sqlite
    start_stub --photos 1 --image-size "$size"
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --api-base "$base" --database "$database" \
        --variant regular --allowed-image-host 127.0.0.1 --no-download-tracking > /dev/null 2>&1
    stop_stub
    id=$(sqlite3 "$database" "SELECT photo_id FROM image WHERE status = 'stored' LIMIT 1")
    [[ -n $id ]] || { echo "images.sh: no image was stored at size $size" >&2; exit 1; }
    postgres=$(fresh_postgres_database "images_$size")
    "$bin/photosync" copy --from "$database" --to "$postgres" > /dev/null 2>&1
    serve "$database"
    url[sqlite-$size]=$served/images/$id?variant=regular
    serve "$postgres"
    url[postgres-$size]=$served/images/$id?variant=regular
    curl --silent --fail -o "$work/www/$id-$size.jpg" "${url[sqlite-$size]}"
    chmod a+r "$work/www/$id-$size.jpg"
    url[nginx-$size]=http://127.0.0.1:$port/$id-$size.jpg
    cmp -s "$work/www/$id-$size.jpg" <(curl --silent --fail "${url[postgres-$size]}") \
        || { echo "images.sh: the stores serve different bytes at size $size" >&2; exit 1; }
    echo "size $size: $(stat -c %s "$work/www/$id-$size.jpg") bytes, photo $id" >&2
done

: > "$work/results"
for round in $(seq "$rounds"); do
    for size in $sizes; do
        for server in nginx sqlite postgres; do
            echo "$size $server $(load "${url[$server-$size]}")" >> "$work/results"
        done
    done
    echo "round $round of $rounds done" >&2
done

python3 - "$work/results" <<'PY'
import statistics, sys
runs = {}
for line in open(sys.argv[1]):
    size, server, rate, p99, *notes = line.split()
    if notes:
        print(f"warning: {size} {server}: {' '.join(notes)}", file=sys.stderr)
    runs.setdefault((int(size), server), []).append((float(rate), float(p99)))
print("| image | nginx req/s | SQLite req/s (x nginx) | PostgreSQL req/s (x nginx) | p99 nginx / SQLite / PostgreSQL |")
print("|---|---|---|---|---|")
for size in sorted({size for size, _ in runs}):
    med = {s: (statistics.median(r for r, _ in runs[(size, s)]), statistics.median(p for _, p in runs[(size, s)]))
           for s in ("nginx", "sqlite", "postgres")}
    n = med["nginx"][0]
    label = f"{size / 1024:,.0f} KB" if size < 1 << 20 else f"{size / (1 << 20):,.1f} MB"
    print(f"| {label} | {n:,.0f} | {med['sqlite'][0]:,.0f} ({med['sqlite'][0] / n:.2f}x) "
          f"| {med['postgres'][0]:,.0f} ({med['postgres'][0] / n:.2f}x) "
          f"| {med['nginx'][1]:.1f} / {med['sqlite'][1]:.1f} / {med['postgres'][1]:.1f} ms |")
PY
