#!/usr/bin/env bash
# The query benchmark, run by hand:  [BASELINE=path/to/photosync] Benchmarks/query.sh [PHOTOS] [IMAGE_BYTES] [PAIRS]
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
# of the rounds' ratios query / sqlite3 and query / help: on a small VM whose speed drifts, only
# a ratio taken round by round holds still (hyperfine's runs of one command, then the other,
# moved it by 0.3x). Targets: query within 2x sqlite3, --help under 3 ms.
# PHOTOSYNC=path times that binary instead of building one (the Debian package's, say:
# .build-release/release/photosync after packaging/deb/build).
# With BASELINE, another build of photosync (an older commit's, say) is timed the same way on
# the same database, and its figures are printed too.
# FLOOR=path times that start-floor instead of building one into .build-floor.
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
for index, binary in enumerate(binaries):
    help_command = [binary, "--help"]
    query_command = [binary, "query", "--id", photo, "--database", database, "--config", config]
    commands = [help_command, query_command, sqlite_command]
    if index == 0:  # the floor, in the same rounds as this build
        floor_query = [floor, "query", "--id", photo, "--database", database, "--config", config]
        commands += [[floor, "--help"], floor_query, floor_query + ["--read", "sqlite"]]
    for _ in range(5):  # warm-up: the page cache, the dynamic linker's caches
        for command in commands:
            seconds(command)
    times = [[] for _ in commands]
    for turn in range(pairs):
        # One of each, in turn, the order rotated every round: a round's ratios are taken
        # within a few tens of milliseconds, before the machine's speed can drift.
        for offset in range(len(commands)):
            which = (turn + offset) % len(commands)
            times[which].append(seconds(commands[which]))
    helps, queries, sqlites = times[:3]
    by_help = [q / h for q, h in zip(queries, helps)]
    by_sqlite = [q / s for q, s in zip(queries, sqlites)]
    def spread(values):
        quartiles = statistics.quantiles(values, n=4)
        return f"middle half {quartiles[0]:.2f}-{quartiles[2]:.2f}"
    print(("this build" if index == 0 else "baseline") + f": {binary}")
    print(f"  photosync --help       {ms(statistics.median(helps))}  (target under 3 ms)")
    print(f"  photosync query --id   {ms(statistics.median(queries))}")
    print(f"  sqlite3, same lookup   {ms(statistics.median(sqlites))}")
    print(f"  query / sqlite3        {statistics.median(by_sqlite):.2f}x  ({spread(by_sqlite)}; target at most 2x)")
    print(f"  query / help           {statistics.median(by_help):.2f}x  ({spread(by_help)}; median of {pairs} rounds)")
    if index == 0:
        floor_help, floor_grdb, floor_c = times[3:]
        print("the start floor, same rounds: photosync's libraries without photosync")
        print(f"  start-floor --help     {ms(statistics.median(floor_help))}")
        for name, floor_times in (("GRDB", floor_grdb), ("SQLite C API", floor_c)):
            ratio = statistics.median([f / s for f, s in zip(floor_times, sqlites)])
            print(f"  lookup, {name:<14} {ms(statistics.median(floor_times))}  ({ratio:.2f}x sqlite3)")
PY
