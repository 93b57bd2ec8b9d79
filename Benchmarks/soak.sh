#!/usr/bin/env bash
# The soak, run by hand:  Benchmarks/soak.sh [SECONDS] [PHOTOS]
#
# Runs the photosync daemon for SECONDS (default 600) against the stub serving PHOTOS photos
# (default 3,000, images of about 20 KB), with new photos arriving at the head (5 after every
# third page request), 10% of API requests, 10% of image requests and 10% more of tracking
# requests failing with 503, and a reader that holds a read transaction open for 20 s out of
# every 25 (as a slow export or backup would). Every 10 s it samples the daemon's resident memory,
# open files, and the database's WAL and file sizes, with the images stored so far; at the end it
# stops the daemon with SIGTERM and prints the first, last and largest of each figure.
# A flat soak has RSS, open files and WAL size that stop growing once the backfill is done.
# BIN=DIR uses the photosync and unsplash-stub already built in DIR (.build/debug, say) instead
# of a release build. Needs python3.
set -euo pipefail
cd "$(dirname "$0")/.."

seconds=${1:-600}
photos=${2:-3000}

source Benchmarks/lib.sh
with_stub_and_photosync
start_stub --photos "$photos" --image-size 20000 --head-arrivals 5 --head-arrivals-every 3 \
    --fail-rate 0.1 --fail-status 503 --fail-image-rate 0.1 --fail-tracking-rate 0.1 --seed 21

database=$work/photosync.sqlite
printf 'per_page: 30\n' > "$work/photosync.yaml"
UNSPLASH_ACCESS_KEY=soak "$bin/photosync" run --api-base "$base" --database "$database" \
    --config "$work/photosync.yaml" --allowed-image-host 127.0.0.1 --poll-interval 10 \
    2> "$work/daemon.log" &
daemon=$!
reader=
trap 'kill "$daemon" 2>/dev/null || true; [[ -n $reader ]] && kill "$reader" 2>/dev/null; stop_stub; rm -rf "$work"' EXIT

# The reader: one snapshot held 20 s, then 5 s without, until killed.
python3 - "$database" <<'PY' &
import sqlite3, sys, time, os
path = sys.argv[1]
while not os.path.exists(path + "-wal"):
    time.sleep(0.5)
while True:
    try:
        db = sqlite3.connect(f"file:{path}?mode=ro", uri=True, isolation_level=None, timeout=30)
        db.execute("BEGIN")
        db.execute("SELECT COUNT(*) FROM photo").fetchone()
        time.sleep(20)
        db.execute("COMMIT")
        db.close()
    except sqlite3.Error:
        pass
    time.sleep(5)
PY
reader=$!

stored() {
    python3 - "$database" <<'PY' 2>/dev/null || echo 0
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True, timeout=5)
print(db.execute("SELECT COUNT(*) FROM image WHERE status = 'stored'").fetchone()[0])
PY
}

samples=$work/samples.tsv
printf 'seconds\trss_kib\topen_files\twal_bytes\tdb_bytes\timages_stored\n' > "$samples"
start=$SECONDS
while (( SECONDS - start < seconds )); do
    sleep 10
    kill -0 "$daemon" 2>/dev/null || { echo "soak: the daemon exited early:" >&2; tail -5 "$work/daemon.log" >&2; exit 1; }
    rss=$(awk '/^VmRSS:/ {print $2}' "/proc/$daemon/status")
    files=$(ls "/proc/$daemon/fd" | wc -l)
    wal=$(stat -c %s "$database-wal" 2>/dev/null || echo 0)
    size=$(stat -c %s "$database" 2>/dev/null || echo 0)
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$((SECONDS - start))" "$rss" "$files" "$wal" "$size" "$(stored)" >> "$samples"
done

kill -TERM "$daemon"
status=0
wait "$daemon" || status=$?
daemon=

cat "$samples"
python3 - "$samples" <<'PY'
import csv, sys
rows = list(csv.DictReader(open(sys.argv[1]), delimiter="\t"))
print(f"\n{len(rows)} samples, every 10 s")
print(f"{'':14} {'first':>12} {'last':>12} {'max':>12}")
for name in ["rss_kib", "open_files", "wal_bytes", "db_bytes", "images_stored"]:
    values = [int(row[name]) for row in rows]
    print(f"{name:14} {values[0]:>12} {values[-1]:>12} {max(values):>12}")
PY
echo "daemon exit status after SIGTERM: $status"
echo "log lines by level: $(awk '{print $2}' "$work/daemon.log" | sort | uniq -c | xargs)"
echo "images: $(python3 - "$database" <<'PY'
import sqlite3, sys
db = sqlite3.connect(f"file:{sys.argv[1]}?mode=ro", uri=True)
counts = dict(db.execute("SELECT status, COUNT(*) FROM image GROUP BY status").fetchall())
untracked = db.execute("SELECT COUNT(*) FROM photo WHERE download_tracked_at IS NULL AND download_location IS NOT NULL AND EXISTS (SELECT 1 FROM image WHERE photo_id = photo.id AND status = 'stored')").fetchone()[0]
print(counts, "stored but not yet tracked:", untracked)
PY
)"
