#!/usr/bin/env bash
# The WAL benchmark, run by hand:  [BIN=DIR] [HOLD=40] [DELAY=0] Benchmarks/wal.sh [PHOTOS] [IMAGE_BYTES]
#
# issue 21's case: `run --once` mirrors PHOTOS photos (default 3,000) with images of about
# IMAGE_BYTES (default 60,000) from the stub while the `sqlite3` CLI holds one read transaction
# open for HOLD seconds, as a long export, a backup or a slow reader would. The stub holds each
# image DELAY ms (default 0), so that with DELAY=40 HOLD=15 the run outlasts the reader and shows
# what the WAL does once the reader lets go. Samples the `-wal` and database files every second
# and prints the WAL's largest size, its size once the reader has let go (the last sample while
# the run still runs), and the run's time.
# Needs sqlite3 (apt-get installs it when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-3000}
size=${2:-60000}
hold=${HOLD:-40}
delay=${DELAY:-0}

source Benchmarks/lib.sh
need sqlite3 sqlite3
with_stub_and_photosync
start_stub --photos "$photos" --image-size "$size" --delay-images "$delay"

database=$work/photosync.sqlite
printf 'per_page: 30\n' > "$work/photosync.yaml"
start=$(date +%s.%N)
UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --api-base "$base" --database "$database" \
    --config "$work/photosync.yaml" --allowed-image-host 127.0.0.1 > "$work/run.out" 2> "$work/run.err" &
run=$!
for _ in $(seq 200); do sqlite3 "$database" "SELECT 1 FROM photo LIMIT 1" >/dev/null 2>&1 && break; sleep 0.05; done
( printf 'BEGIN;\nSELECT COUNT(*) FROM photo;\n.shell sleep %s\nCOMMIT;\n' "$hold" | sqlite3 "$database" >/dev/null ) &
reader=$!

largest=0
after_reader=
while kill -0 "$run" 2>/dev/null; do
    wal=$(stat -c %s "$database-wal" 2>/dev/null || echo 0)
    (( wal > largest )) && largest=$wal
    kill -0 "$reader" 2>/dev/null || after_reader=$wal
    sleep 1
done
status=0
wait "$run" || status=$?
wait "$reader" 2>/dev/null || true
end=$(date +%s.%N)
echo "run --once: exit $status in $(echo "$end - $start" | bc) s; database $(stat -c %s "$database") bytes"
echo "WAL: largest $largest bytes while the reader held its transaction ${hold} s;" \
    "after it let go: ${after_reader:+$after_reader bytes}${after_reader:-none (the run had ended)}"
