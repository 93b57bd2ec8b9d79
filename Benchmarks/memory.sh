#!/usr/bin/env bash
# The memory benchmark (issue 32), run by hand:
#   Benchmarks/memory.sh [PHOTOS] [IMAGE_BYTES] [CONCURRENCY] [ROUNDS]
#
# Builds photosync and unsplash-stub in release mode (or takes them from BIN=DIR), serves PHOTOS
# photos (default 60) with images of about IMAGE_BYTES (default 20 MB) from the stub on
# 127.0.0.1, and measures:
#   1. the peak RSS (the kernel's VmHWM, through /usr/bin/time's %M) of `photosync run --once`
#      at CONCURRENCY (default 4), ROUNDS times (default 3), each on a new database;
#   2. the floor: the RSS of a `photosync run` daemon that has synced a feed of 30 small photos
#      and sits idle until its next poll (VmRSS after 10 s, and its VmHWM).
# Memory does not depend on the CPU being shared, unlike the other benchmarks' times.
# Environment given to this script reaches photosync, e.g. MALLOC_ARENA_MAX=2 to compare.
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-60}
size=${2:-20000000}
concurrency=${3:-4}
rounds=${4:-3}

source Benchmarks/lib.sh
with_stub_and_photosync
start_stub --photos "$photos" --image-size "$size"
printf 'per_page: 30\n' > "$work/photosync.yaml"

peaks=()
for round in $(seq "$rounds"); do
    rm -rf "$work"/photosync.sqlite*
    UNSPLASH_ACCESS_KEY=bench /usr/bin/time -f "%M" -o "$work/time.$round" "$bin/photosync" run --once \
        --config "$work/photosync.yaml" --api-base "$base" --allowed-image-host 127.0.0.1 \
        --database "$work/photosync.sqlite" --concurrency "$concurrency" > /dev/null 2> "$work/photosync.err" || {
            cat "$work/photosync.err" >&2; echo "memory.sh: photosync failed" >&2; exit 1; }
    stored=$(sqlite3 "$work/photosync.sqlite" "SELECT COUNT(*) FROM image WHERE status = 'stored'")
    peaks+=("$(tail -1 "$work/time.$round")")
    echo "round $round of $rounds: peak RSS $((${peaks[-1]} / 1024)) MiB, $stored images stored" >&2
done
stop_stub

# The floor: a daemon with nothing left to do.
start_stub --photos 30 --image-size 20000
rm -rf "$work"/photosync.sqlite*
UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --config "$work/photosync.yaml" --api-base "$base" \
    --allowed-image-host 127.0.0.1 --database "$work/photosync.sqlite" --poll-interval 600 \
    > /dev/null 2> "$work/daemon.err" &
daemon=$!
sleep 10
idle_rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon/status")
idle_hwm=$(awk '/^VmHWM:/ {print $2}' "/proc/$daemon/status")
kill -TERM "$daemon"
wait "$daemon" || true

python3 - "$photos" "$size" "$concurrency" "$idle_rss" "$idle_hwm" "${peaks[@]}" <<'PY'
import statistics, sys
photos, size, concurrency, idle_rss, idle_hwm = map(int, sys.argv[1:6])
peaks = [int(p) / 1024 for p in sys.argv[6:]]
print(f"{photos} photos of about {size / 1e6:.0f} MB, concurrency {concurrency}, {len(peaks)} rounds")
print(f"  photosync run --once    peak RSS median {statistics.median(peaks):.1f} MiB, max {max(peaks):.1f} MiB"
      f"  (each round: {', '.join(f'{p:.1f}' for p in peaks)}; target: under 64 MB = 61.0 MiB)")
print(f"  idle photosync run      RSS {idle_rss / 1024:.1f} MiB (its peak so far {idle_hwm / 1024:.1f} MiB)")
PY
