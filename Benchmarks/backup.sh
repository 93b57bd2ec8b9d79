#!/usr/bin/env bash
# The backup benchmark, run by hand:  Benchmarks/backup.sh [PHOTOS] [IMAGE_BYTES] [ROUNDS]
#
# Does `photosync backup` slow down a sync that writes at full speed? Serves PHOTOS photos
# (default 3,000, images of about IMAGE_BYTES = 100 KB) from the stub and, ROUNDS times (default
# 3), times `photosync run --once` into a new database twice: alone, and with `photosync backup`
# copying that database over and over for as long as the sync runs. Prints the median wall time
# of each, their ratio (the issue asks for less than 10% slower), and how many backups completed
# and verified. Builds in release mode (BIN=DIR uses binaries already built, as sync.sh does).
# BACKUPS=once takes one backup, a second into each sync, instead of backing up over and over;
# METHOD=vacuum copies with the sqlite3 CLI's `VACUUM INTO` (no verification) for comparison.
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-3000}
size=${2:-100000}
rounds=${3:-3}

source Benchmarks/lib.sh
with_stub_and_photosync
start_stub --photos "$photos" --image-size "$size"
echo "# photosync and the stub are empty" > "$work/config.yaml"

sync_once() { # sync_once DATABASE: wall seconds of one run --once
    local start end
    start=$(date +%s.%N)
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --api-base "$base" --database "$1" \
        --config "$work/config.yaml" --allowed-image-host 127.0.0.1 --concurrency 8 >/dev/null 2>&1
    end=$(date +%s.%N)
    echo "$end - $start" | bc -l
}

median() { sort -n | awk '{ v[NR] = $1 } END { print v[int((NR + 1) / 2)] }'; }

: > "$work/alone"
: > "$work/backed"
backups=0
failed=0
backup_once() { # backup_once DATABASE COPY: one copy, as photosync-backup.service runs it (Nice=10, idle I/O)
    rm -f "$2"
    if [[ ${METHOD:-photosync} == vacuum ]]; then
        nice -n 10 ionice -c 3 sqlite3 "$1" "VACUUM INTO '$2'" >/dev/null 2>&1
    else
        nice -n 10 ionice -c 3 "$bin/photosync" backup --database "$1" --config "$work/config.yaml" \
            --to "$2" >/dev/null 2>&1
    fi
}
for round in $(seq "$rounds"); do
    rm -rf "$work"/db*
    sync_once "$work/db-alone.sqlite" >> "$work/alone"

    rm -rf "$work"/db*
    (sync_once "$work/db.sqlite" > "$work/backed.$round") &
    sync=$!
    [[ ${BACKUPS:-loop} == once ]] && sleep 1
    while kill -0 "$sync" 2>/dev/null; do
        # The database exists and is migrated once status can read it.
        if "$bin/photosync" status --database "$work/db.sqlite" --config "$work/config.yaml" >/dev/null 2>&1; then
            if backup_once "$work/db.sqlite" "$work/copy.sqlite"; then
                backups=$((backups + 1))
            else
                failed=$((failed + 1))
            fi
            [[ ${BACKUPS:-loop} == once ]] && break
        else
            sleep 0.05
        fi
    done
    wait "$sync"
    cat "$work/backed.$round" >> "$work/backed"
done

alone=$(median < "$work/alone")
backed=$(median < "$work/backed")
printf 'run --once alone:            %.2f s (rounds: %s)\n' "$alone" "$(tr '\n' ' ' < "$work/alone")"
printf 'run --once during backups:   %.2f s (rounds: %s)\n' "$backed" "$(tr '\n' ' ' < "$work/backed")"
printf 'slowdown:                    %.1f%%\n' "$(echo "($backed / $alone - 1) * 100" | bc -l)"
echo "backups completed and verified: $backups; failed: $failed"
