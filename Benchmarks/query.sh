#!/usr/bin/env bash
# The query benchmark, run by hand:  [BASELINE=path/to/photosync] [DATABASE=file] Benchmarks/query.sh [PHOTOS] [IMAGE_BYTES] [PAIRS]
#
# Builds photosync and unsplash-stub in release mode and mirrors PHOTOS photos (default 100,000)
# from the stub on 127.0.0.1, each with one image of about IMAGE_BYTES (default 3,000; 0 stores
# metadata only), into a fresh database. Then it times, as whole processes,
#   1. `photosync --help`: the floor, loading the binary and its shared libraries;
#   2. `photosync query --id ID` of the photo in the middle of the feed, with a configuration
#      file as the service has one;
#   3. the `sqlite3` CLI looking the same photo up in the same file: the peer, a C program that
#      opens the database and runs one SELECT;
#   4. the start floor (Benchmarks/StartFloor): the same lookup and `--help` on photosync's
#      libraries alone (argument-parser, Yams, GRDB or SQLite's C API), linked as the package
#      links photosync (--static-swift-stdlib, stripped): what no photosync on them can beat;
# PAIRS rounds (default 60), one of each in turn, and prints the median of each and the medians
# of the rounds' ratios to sqlite3 and query / help: on a small VM whose speed drifts, only
# a ratio taken round by round holds still (hyperfine's runs of one command, then the other,
# moved it by 0.3x). Target: query within 2x sqlite3. Guards (issue 54): query within 5x
# sqlite3's lookup, --help within 3x.
# PHOTOSYNC=path times that binary instead of building one (the Debian package's, say:
# .build-release/release/photosync after packaging/deb/build).
# With BASELINE, another build of photosync (an older commit's, say) is timed in the same rounds
# on the same database, and its figures are printed too.
# FLOOR=path times that start-floor instead of building one into .build-floor.
# DATABASE=file keeps the mirrored database there, or reuses it when it exists (no sync then).
# Needs sqlite3 and python3 (apt-get installs sqlite3 when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-100000}
size=${2:-3000}
pairs=${3:-60}

source Benchmarks/lib.sh
need sqlite3 sqlite3

with_stub_and_photosync
if [[ -n ${FLOOR:-} ]]; then
    floor=$FLOOR
else
    echo "building start-floor (release, static Swift libraries)..." >&2
    swift build -c release --product start-floor --static-swift-stdlib --scratch-path .build-floor >/dev/null 2>&1
    strip -o "$work/start-floor" .build-floor/release/start-floor
    floor=$work/start-floor
fi
printf 'per_page: 30\n' > "$work/photosync.yaml"
database=${DATABASE:-$work/photosync.sqlite}
if [[ ! -f $database ]]; then
    start_stub --photos "$photos" --image-size "$(( size > 0 ? size : 1000 ))"
    variant=regular
    (( size > 0 )) || variant=none
    echo "mirroring $photos photos (variant $variant) into $database..." >&2
    UNSPLASH_ACCESS_KEY=bench "$bin/photosync" run --once --config "$work/photosync.yaml" \
        --api-base "$base" --allowed-image-host 127.0.0.1 --database "$database" \
        --variant "$variant" --no-download-tracking --concurrency 8 > /dev/null 2>&1
    stop_stub
fi

id=$(sqlite3 "$database" "SELECT id FROM photo ORDER BY sequence LIMIT 1 OFFSET $(( photos / 2 ))")
[[ -n $id ]] || { echo "query.sh: the sync stored no photos" >&2; exit 1; }
echo "database: $(du -h "$database" | cut -f1), $photos photos; querying $id" >&2

binaries=("${PHOTOSYNC:-$bin/photosync}")
[[ -n ${BASELINE:-} ]] && binaries+=("$BASELINE")
python3 - "$pairs" "$id" "$database" "$work/photosync.yaml" "$floor" "${binaries[@]}" <<'PY'
import statistics, subprocess, sys, time
pairs, photo, database, config, floor = int(sys.argv[1]), sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5]
binaries = sys.argv[6:]

def seconds(command):
    start = time.perf_counter()
    subprocess.run(command, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
    return time.perf_counter() - start

ms = lambda v: f"{v * 1000:.1f} ms"
sqlite_command = ["sqlite3", "-readonly", database,
                  f"SELECT id, created_at, width, height, user_username, description FROM photo WHERE id = '{photo}'"]
floor_query = [floor, "query", "--id", photo, "--database", database, "--config", config]
# Every command in the same rounds, the baseline's too: one of each in turn, the order rotated
# every round, so that each ratio (and the before/after) is taken within a few tens of
# milliseconds, before the machine's speed can drift.
commands = [sqlite_command, [floor, "--help"], floor_query, floor_query + ["--read", "sqlite"]]
for binary in binaries:
    commands += [[binary, "--help"], [binary, "query", "--id", photo, "--database", database, "--config", config]]
for _ in range(5):  # warm-up: the page cache, the dynamic linker's caches
    for command in commands:
        seconds(command)
times = [[] for _ in commands]
for turn in range(pairs):
    for offset in range(len(commands)):
        which = (turn + offset) % len(commands)
        times[which].append(seconds(commands[which]))
sqlites = times[0]
def spread(values):
    quartiles = statistics.quantiles(values, n=4)
    return f"middle half {quartiles[0]:.2f}-{quartiles[2]:.2f}"
def by_sqlite(values):
    return [v / s for v, s in zip(values, sqlites)]
print(f"sqlite3, the lookup      {ms(statistics.median(sqlites))}  (median of {pairs} rounds)")
for index, binary in enumerate(binaries):
    helps, queries = times[4 + 2 * index], times[5 + 2 * index]
    query_ratio, help_ratio = by_sqlite(queries), by_sqlite(helps)
    print(("this build" if index == 0 else "baseline") + f": {binary}")
    print(f"  photosync --help       {ms(statistics.median(helps))}  "
          f"({statistics.median(help_ratio):.2f}x sqlite3; {spread(help_ratio)}; guard 3x)")
    print(f"  photosync query --id   {ms(statistics.median(queries))}  "
          f"({statistics.median(query_ratio):.2f}x sqlite3; {spread(query_ratio)}; guard 5x, target 2x)")
    by_help = [q / h for q, h in zip(queries, helps)]
    print(f"  query / help           {statistics.median(by_help):.2f}x  ({spread(by_help)})")
print("the start floor, same rounds: photosync's libraries without photosync")
print(f"  start-floor --help     {ms(statistics.median(times[1]))}")
for name, floor_times in (("GRDB", times[2]), ("SQLite C API", times[3])):
    print(f"  lookup, {name:<14} {ms(statistics.median(floor_times))}  ({statistics.median(by_sqlite(floor_times)):.2f}x sqlite3)")
PY
