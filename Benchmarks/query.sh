#!/usr/bin/env bash
# The query benchmark, run by hand:  [BASELINE=path/to/photosync] Benchmarks/query.sh [PHOTOS] [IMAGE_BYTES] [PAIRS]
#
# Builds photosync and unsplash-stub in release mode and mirrors PHOTOS photos (default 100,000)
# from the stub on 127.0.0.1, each with one image of about IMAGE_BYTES (default 3,000; 0 stores
# metadata only), into a fresh database. Then it times, as whole processes,
#   1. `photosync --help`: the floor, loading the binary and its shared libraries;
#   2. `photosync query --id ID` of the photo in the middle of the feed, with a configuration
#      file as the service has one;
# PAIRS times (default 60), one of each in turn, and prints the median of each and the median
# of the pairs' ratios query / help: on a small VM whose speed drifts, only a ratio taken pair
# by pair holds still (hyperfine's runs of one command, then the other, moved it by 0.3x).
# The issue asks for at most 1.3x.
# With BASELINE, another build of photosync (an older commit's, say) is timed the same way on
# the same database, and its figures are printed too.
# Needs sqlite3 and python3 (apt-get installs sqlite3 when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-100000}
size=${2:-3000}
pairs=${3:-60}

source Benchmarks/lib.sh
need sqlite3 sqlite3

with_stub_and_photosync
start_stub --photos "$photos" --image-size "$(( size > 0 ? size : 1000 ))"

printf 'per_page: 30\n' > "$work/photosync.yaml"
database=$work/photosync.sqlite
variant=regular
(( size > 0 )) || variant=none
echo "mirroring $photos photos (variant $variant) into a fresh database..." >&2
UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" \
    --api-base "$base" --allowed-image-host 127.0.0.1 --database "$database" \
    --variant "$variant" --no-download-tracking --concurrency 8 > /dev/null 2>&1
stop_stub

id=$(sqlite3 "$database" "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET $(( photos / 2 ))")
[[ -n $id ]] || { echo "query.sh: the sync stored no photos" >&2; exit 1; }
echo "database: $(du -h "$database" | cut -f1), $photos photos; querying $id" >&2

binaries=("$bin/photosync")
[[ -n ${BASELINE:-} ]] && binaries+=("$BASELINE")
python3 - "$pairs" "$id" "$database" "$work/photosync.yaml" "${binaries[@]}" <<'PY'
import statistics, subprocess, sys, time
pairs, photo, database, config, binaries = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]

def seconds(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start

ms = lambda v: f"{v * 1000:.1f} ms"
for index, binary in enumerate(binaries):
    help_command = [binary, "--help"]
    query_command = [binary, "query", "--id", photo, "--database", database, "--config", config]
    for _ in range(5):  # warm-up: the page cache, the dynamic linker's caches
        seconds(help_command); seconds(query_command)
    helps, queries, ratios = [], [], []
    for pair in range(pairs):
        # One of each, in turn, the order swapped every pair: the ratio of a pair is taken
        # within a few tens of milliseconds, before the machine's speed can drift.
        if pair % 2:
            q = seconds(query_command); h = seconds(help_command)
        else:
            h = seconds(help_command); q = seconds(query_command)
        helps.append(h); queries.append(q); ratios.append(q / h)
    quartiles = statistics.quantiles(ratios, n=4)
    print(("this build" if index == 0 else "baseline") + f": {binary}")
    print(f"  photosync --help       {ms(statistics.median(helps))}")
    print(f"  photosync query --id   {ms(statistics.median(queries))}")
    print(f"  query / help           {statistics.median(ratios):.2f}x  (median of {pairs} pairs; "
          f"middle half {quartiles[0]:.2f}-{quartiles[2]:.2f}; target at most 1.3x)")
PY
