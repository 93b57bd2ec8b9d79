#!/usr/bin/env bash
# The sync benchmark, run by hand:  Benchmarks/sync.sh [PHOTOS] [IMAGE_BYTES] [CONCURRENCY] [ROUNDS]
#
# Builds photosync and unsplash-stub in release mode, serves PHOTOS photos (default 3,000, images
# of about IMAGE_BYTES = 100 KB) from the stub on 127.0.0.1, and in one run measures, on the same
# data, ROUNDS times (default 3; each figure printed is the median of its rounds, with their
# spread, since one slow disk flush can double a single figure on a small VM):
#   1. photosync run --once, download tracking on (wall time, peak RSS, API requests);
#   2. the machine's limit:
#      - network: curl --parallel fetching every page, image and tracking URL to /dev/null;
#      - storage: the sqlite3 CLI inserting the same image files with readfile() in one
#        transaction (WAL), plus sha256sum of them;
#      a pipelined sync cannot beat the slower of the two;
#   3. a naive sequential loop a user might write: Python's http.client on one kept-alive
#      connection and sqlite3, one commit per photo, hashing each image, tracking each download.
#   4. with POSTGRES=1, the same photosync run --once into PostgreSQL 15 (a throwaway cluster on
#      a unix socket, the server's default durability), right after the SQLite run.
# Prints photos/s, MB/s, peak RSS, API requests per photo, and the ratios.
# Needs curl, sqlite3 and python3 (apt-get installs curl and sqlite3 when missing, as root).
set -euo pipefail
cd "$(dirname "$0")/.."

photos=${1:-3000}
size=${2:-100000}
concurrency=${3:-8}
rounds=${4:-3}

source Benchmarks/lib.sh
need curl curl
need sqlite3 sqlite3

with_stub_and_photosync
start_stub --photos "$photos" --image-size "$size"
postgres=${POSTGRES:-0}
[[ $postgres == 1 ]] && start_postgres

# The URLs a complete sync requests: every page, every image, every tracking request.
python3 - "$base" "$work" <<'PY'
import json, sys, urllib.request
base, work = sys.argv[1], sys.argv[2]
pages, images, tracking = [], [], []
url = f"{base}/photos?page=1&per_page=30"
while url:
    pages.append(url)
    with urllib.request.urlopen(urllib.request.Request(url, headers={"Authorization": "Client-ID bench"})) as r:
        body, link = json.load(r), r.headers.get("Link", "")
    for photo in body:
        images.append(photo["urls"]["regular"]); tracking.append(photo["links"]["download_location"])
    url = next((p.split(";")[0].strip(" <>") for p in link.split(",") if 'rel="next"' in p), None) if body else None
with open(f"{work}/curl.cfg", "w") as f:
    for u in pages + images + tracking:
        f.write(f'url = "{u}"\noutput = "/dev/null"\n')
with open(f"{work}/images.cfg", "w") as f:
    for i, u in enumerate(images):
        f.write(f'url = "{u}"\noutput = "{work}/files/{i:06d}.jpg"\n')
print(len(pages), len(images), len(tracking), file=open(f"{work}/counts", "w"))
PY
read -r page_count image_count tracking_count < "$work/counts"
mkdir -p "$work/files"
curl --silent --show-error --fail --parallel --parallel-max "$concurrency" --config "$work/images.cfg"
bytes=$(du -cb "$work"/files/*.jpg | tail -1 | cut -f1)

timed() { # timed FILE command...: wall seconds and peak RSS (KB) into FILE
    local out=$1; shift
    /usr/bin/time -f "%e %M" -o "$out" "$@"
}

cat > "$work/photosync.yaml" <<YAML
per_page: 30
YAML
ls "$work"/files/*.jpg > "$work/files.txt"
{
    echo "PRAGMA journal_mode=WAL; CREATE TABLE image (name TEXT, bytes BLOB); BEGIN;"
    sed "s/.*/INSERT INTO image VALUES ('&', readfile('&'));/" "$work/files.txt"
    echo "COMMIT;"
} > "$work/insert.sql"
cat > "$work/naive.py" <<'PY'
# What a user might write in ten minutes: one request at a time on one kept-alive connection,
# one commit per photo.
import hashlib, http.client, json, sqlite3, sys, urllib.parse
base, database = sys.argv[1], sys.argv[2]
db = sqlite3.connect(database)
db.execute("CREATE TABLE photo (id TEXT PRIMARY KEY, json TEXT, sha256 TEXT, image BLOB)")
origin = urllib.parse.urlsplit(base)
connection = http.client.HTTPConnection(origin.hostname, origin.port)
def get(url):
    parts = urllib.parse.urlsplit(url)
    connection.request("GET", parts.path + ("?" + parts.query if parts.query else ""), headers={"Authorization": "Client-ID bench"})
    response = connection.getresponse()
    return response.read(), response.getheader("Link", "")
url = f"{base}/photos?page=1&per_page=30"
while url:
    body, link = get(url)
    photos = json.loads(body)
    for photo in photos:
        image, _ = get(photo["urls"]["regular"])
        db.execute("INSERT OR REPLACE INTO photo VALUES (?, ?, ?, ?)",
                   (photo["id"], json.dumps(photo), hashlib.sha256(image).hexdigest(), image))
        db.commit()
        get(photo["links"]["download_location"])
    url = next((p.split(";")[0].strip(" <>") for p in link.split(",") if 'rel="next"' in p), None) if photos else None
PY
# What the stub's budget has left, read from one API request (which spends one itself).
remaining() {
    curl --silent --show-error --fail -D - -o /dev/null -H "Authorization: Client-ID bench" "$base/photos?page=1&per_page=1" \
        | tr -d '\r' | awk -F': ' 'tolower($1) == "x-ratelimit-remaining" { print $2 }'
}

for round in $(seq "$rounds"); do
    echo "round $round of $rounds: photosync run --once..." >&2
    rm -rf "$work"/photosync.sqlite* "$work"/limit.sqlite* "$work"/naive.sqlite*
    remaining > "$work/before.$round"
    UNSPLASH_ACCESS_KEY=bench timed "$work/photosync.$round.time" "$bin/photosync" run --once --config "$work/photosync.yaml" \
        --api-base "$base" --allowed-image-host 127.0.0.1 --database "$work/photosync.sqlite" \
        --concurrency "$concurrency" > "$work/photosync.out" 2> "$work/photosync.err" || {
            cat "$work/photosync.err" >&2; echo "sync.sh: photosync failed" >&2; exit 1; }
    grep -o 'rate limit [0-9]*/[0-9]*' "$work/photosync.out" | tail -1 | grep -o '[0-9]*/' | tr -d / > "$work/after.$round"
    if [[ $postgres == 1 ]]; then
        echo "round $round of $rounds: photosync run --once into PostgreSQL..." >&2
        url=$(fresh_postgres_database photos)
        UNSPLASH_ACCESS_KEY=bench timed "$work/postgres.$round.time" "$bin/photosync" run --once --config "$work/photosync.yaml" \
            --api-base "$base" --allowed-image-host 127.0.0.1 --database "$url" \
            --concurrency "$concurrency" > "$work/postgres.out" 2> "$work/postgres.err" || {
                cat "$work/postgres.err" >&2; echo "sync.sh: photosync on PostgreSQL failed" >&2; exit 1; }
    fi

    echo "round $round of $rounds: the limit (curl, sqlite3, sha256sum) and the naive loop..." >&2
    timed "$work/curl.$round.time" curl --silent --show-error --fail --parallel --parallel-max "$concurrency" --config "$work/curl.cfg"
    timed "$work/sqlite.$round.time" sqlite3 "$work/limit.sqlite" ".read $work/insert.sql" > /dev/null
    timed "$work/sha.$round.time" sh -c "xargs sha256sum < '$work/files.txt' > /dev/null"
    timed "$work/naive.$round.time" python3 "$work/naive.py" "$base" "$work/naive.sqlite"
done

python3 - "$work" "$photos" "$bytes" "$page_count" "$tracking_count" "$concurrency" "$rounds" "$postgres" <<'PY'
import statistics, sys
work, photos, total, pages, tracking, concurrency, rounds = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), int(sys.argv[4]), int(sys.argv[5]), sys.argv[6], int(sys.argv[7])
postgres = sys.argv[8] == "1"
def read(name, round):
    wall, rss = open(f"{work}/{name}.{round}.time").read().split()[-2:]
    return float(wall), int(rss) * 1024
def runs(name):
    return [read(name, r)[0] for r in range(1, rounds + 1)]
def median(values): return statistics.median(values)
def spread(values, rest=""):
    parts = ([f"{min(values):.2f}-{max(values):.2f} s"] if len(values) > 1 else []) + ([rest] if rest else [])
    return f"  ({'; '.join(parts)})" if parts else ""
ours, curl, sqlite, sha, naive = runs("photosync"), runs("curl"), runs("sqlite"), runs("sha"), runs("naive")
storage = [a + b for a, b in zip(sqlite, sha)]
limit = [max(a, b) for a, b in zip(curl, storage)]
rss = max(read("photosync", r)[1] for r in range(1, rounds + 1))
requests = [int(open(f"{work}/before.{r}").read()) - int(open(f"{work}/after.{r}").read()) for r in range(1, rounds + 1)]
ratio = [a / b for a, b in zip(ours, limit)]
speedup = [b / a for a, b in zip(ours, naive)]
t = median(ours)
print(f"{photos} photos, {total / 1e6:.0f} MB of images, concurrency {concurrency}, median of {rounds} round{'s' if rounds > 1 else ''} (spread)")
print(f"  photosync run --once    {t:7.2f} s{spread(ours)}  {photos / t:5.0f} photos/s  {total / 1e6 / t:5.1f} MB/s  peak RSS {rss / 2**20:.0f} MiB")
print(f"  limit, network (curl)   {median(curl):7.2f} s{spread(curl)}")
print(f"  limit, storage          {median(storage):7.2f} s{spread(storage, f'sqlite3 {median(sqlite):.2f} s + sha256sum {median(sha):.2f} s')}")
print(f"  naive sequential loop   {median(naive):7.2f} s{spread(naive)}")
print(f"  photosync / limit       {median(ratio):7.2f}x   (each round: {', '.join(f'{r:.2f}' for r in ratio)}; target: at most 1.2x)")
print(f"  naive loop / photosync  {median(speedup):7.2f}x   (each round: {', '.join(f'{r:.2f}' for r in speedup)}; target: at least 2.5x)")
if postgres:
    theirs = runs("postgres")
    prss = max(read("postgres", r)[1] for r in range(1, rounds + 1))
    versus = [a / b for a, b in zip(theirs, ours)]
    print(f"  photosync on PostgreSQL {median(theirs):7.2f} s{spread(theirs)}  {photos / median(theirs):5.0f} photos/s  peak RSS {prss / 2**20:.0f} MiB")
    print(f"  PostgreSQL / SQLite     {median(versus):7.2f}x   (each round: {', '.join(f'{r:.2f}' for r in versus)}; target: at most 1.5x)")
floor = pages + tracking + 1
print(f"  API requests            {', '.join(map(str, requests))} = {max(requests) / photos:.3f} per photo at most (floor {floor}: {pages} pages + {tracking} tracking + 1 head check)")
PY
