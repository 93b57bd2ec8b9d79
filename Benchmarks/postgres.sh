#!/usr/bin/env bash
# PostgreSQL as operators run it, run by hand:
#   [BEFORE=dir] Benchmarks/postgres.sh [PHOTOS] [IMAGE_BYTES] [ROUNDS] [SECONDS]
#
# On one PostgreSQL 15 cluster (a unix socket, the server's default durability: fsync on) with
# PgBouncer (Debian's 1.18) in front of it in transaction and in session pooling, and the same
# stub serving PHOTOS photos (default 3,000, images of about IMAGE_BYTES = 100 KB), measures
# ROUNDS times (default 3), each round taking every route in turn:
#   1. the sync: photosync run --once (download tracking on) into a fresh database, straight to
#      the server, then through PgBouncer in each mode; wall time;
#   2. serve on the database that sync filled, by the same route: `wrk -t2 -c16` for SECONDS s
#      (default 5) on the Unsplash API's feed page, a photo, a search, and a JSON page at an
#      offset; requests per second and p99.
# BEFORE=dir adds, in each round, the sync and serve of the binaries in dir (an older commit's
# release build) straight to the server: a before and after on the same machine, in turn.
# Prints each figure's median with its spread, and its ratio to the direct route of this build.
# Needs Debian's postgresql-15, pgbouncer and wrk (apt-get installs them when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-3000}
size=${2:-100000}
rounds=${3:-3}
seconds=${4:-5}

source Benchmarks/lib.sh
need wrk wrk
[[ -x /usr/sbin/pgbouncer ]] || need /usr/sbin/pgbouncer pgbouncer
with_stub_and_photosync
start_stub --photos "$photos" --image-size "$size"
start_postgres
printf 'per_page: 30\n' > "$work/photosync.yaml"

# PgBouncer in each mode, as shipped (no ignore_startup_parameters), on sockets of its own.
mkdir -p "$work/pgbouncer"
printf '"postgres" ""\n' > "$work/pgbouncer/users.txt"
for mode in transaction session; do
    port=$([[ $mode == transaction ]] && echo 6432 || echo 6433)
    cat > "$work/pgbouncer/$mode.ini" <<EOF
[databases]
* = host=$postgres_socket port=5432
[pgbouncer]
listen_addr =
listen_port = $port
unix_socket_dir = $work/pgbouncer
auth_type = trust
auth_file = $work/pgbouncer/users.txt
pool_mode = $mode
default_pool_size = 20
max_client_conn = 1000
logfile = $work/pgbouncer/$mode.log
pidfile = $work/pgbouncer/$mode.pid
EOF
done
chown -R postgres "$work/pgbouncer"
for mode in transaction session; do runuser -u postgres -- /usr/sbin/pgbouncer -d "$work/pgbouncer/$mode.ini"; done
trap 'kill -KILL $(cat "$work"/pgbouncer/*.pid 2>/dev/null) 2>/dev/null || true; stop_stub; stop_postgres; rm -rf "$work"' EXIT

# route NAME DATABASE: the URL by which NAME (direct, transaction, session) reaches DATABASE.
route() {
    case $1 in
        direct|before) echo "postgres://postgres@/$2?host=$postgres_socket" ;;
        transaction) echo "postgres://postgres@:6432/$2?host=$work/pgbouncer" ;;
        session) echo "postgres://postgres@:6433/$2?host=$work/pgbouncer" ;;
    esac
}

routes=(direct transaction session)
[[ -n ${BEFORE:-} ]] && routes+=(before)
for round in $(seq "$rounds"); do
    for name in "${routes[@]}"; do
        binary=$bin/photosync
        [[ $name == before ]] && binary=$BEFORE/photosync
        fresh_postgres_database "${name}_$round" > /dev/null
        url=$(route "$name" "${name}_$round")
        echo "round $round: $name" >&2
        start=$(date +%s.%N)
        UNSPLASH_ACCESS_KEY=bench "$binary" run --once --config "$work/photosync.yaml" --api-base "$base" \
            --database "$url" --allowed-image-host 127.0.0.1 > "$work/sync.out" 2> "$work/sync.err" || {
                cat "$work/sync.err" >&2; echo "postgres.sh: the sync ($name) failed" >&2; exit 1; }
        end=$(date +%s.%N)
        # The new tables analyzed, as autovacuum would soon: serve is measured on settled plans,
        # not on a database the autovacuum daemon is reading beside it.
        runuser -u postgres -- psql -q -h "$postgres_socket" -d "${name}_$round" -c "VACUUM ANALYZE" > /dev/null
        echo "$name sync $(python3 -c "import sys; print(float(sys.argv[2]) - float(sys.argv[1]))" "$start" "$end")" \
            >> "$work/results"

        "$binary" serve --listen 127.0.0.1:0 --database "$url" --config "$work/photosync.yaml" \
            --mirror-rate-limit 1000000 2> "$work/serve.err" &
        serve_pid=$!
        for _ in $(seq 100); do grep -q "http://" "$work/serve.err" 2>/dev/null && break; sleep 0.1; done
        served=$(grep -o 'http://[0-9.:]*' "$work/serve.err" | head -1)
        [[ -n $served ]] || { echo "postgres.sh: serve ($name) did not start: $(cat "$work/serve.err")" >&2; exit 1; }
        photo=$(runuser -u postgres -- psql -h "$postgres_socket" -d "${name}_$round" -Atc \
            "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET $(( photos / 2 ))")
        for request in "feed page|/unsplash/photos?per_page=30" "a photo|/unsplash/photos/$photo" \
            "a search|/unsplash/search/photos?query=forest&per_page=30" \
            "a page at an offset|/api/photos?limit=30&offset=$(( photos / 2 ))"; do
            echo "$name ${request%%|*}|$(load "$served${request#*|}")" >> "$work/results"
        done
        kill "$serve_pid"
        wait "$serve_pid" 2>/dev/null || true
    done
done

python3 - "$work/results" "$photos" "$size" "$rounds" <<'PY'
import statistics, sys
from collections import defaultdict
path, photos, size, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4])
syncs, rates, p99s = defaultdict(list), defaultdict(list), defaultdict(list)
for line in open(path):
    line = line.rstrip("\n")
    if " sync " in line:
        name, _, seconds = line.split(" ")
        syncs[name].append(float(seconds))
    else:
        key, figures = line.split("|")
        rate, p99 = figures.split()[:2]
        rates[key].append(float(rate)); p99s[key].append(float(p99))
def fig(values, fmt):
    return f"{fmt(statistics.median(values))} ({fmt(min(values))}-{fmt(max(values))})"
print(f"{photos} photos of {size // 1000} KB, {rounds} rounds, each route in turn; medians (spread)")
print("\n| route | sync | against direct |\n|---|---|---|")
for name, values in syncs.items():
    ratio = statistics.median(values) / statistics.median(syncs["direct"])
    print(f"| {name} | {fig(values, lambda v: f'{v:.2f} s')} | {ratio:.2f}x |")
print("\n| route | request | requests/s | p99 | throughput against direct |\n|---|---|---|---|---|")
for key, values in rates.items():
    name, request = key.split(" ", 1)
    ratio = statistics.median(values) / statistics.median(rates["direct " + request])
    print(f"| {name} | {request} | {fig(values, lambda v: f'{v:.0f}')} | {fig(p99s[key], lambda v: f'{v:.1f} ms')} "
          f"| {ratio:.2f}x |")
PY
