#!/usr/bin/env bash
# The transport benchmark (issue: "HTTP that an operator can trust"), run by hand:
#   Benchmarks/transport.sh [COUNT] [SIZE_BYTES] [CONCURRENCY]
# Serves COUNT files of about SIZE_BYTES (default 3,000 x 100 KB) from nginx on 127.0.0.1, then
# in one run fetches all of them
#   1. with curl --parallel --parallel-max CONCURRENCY to /dev/null: the machine's limit;
#   2. with photosync's transport (AsyncHTTPClient, streaming each body into SHA-256), built
#      in release mode: Benchmarks/TransportBench.
# Each is timed by hyperfine (3 runs after a warm-up). Prints both medians and their ratio.
# Needs nginx and hyperfine (installed with apt-get when missing and run as root).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${1:-3000}
size=${2:-100000}
concurrency=${3:-8}

source Benchmarks/lib.sh
need nginx nginx-light
need hyperfine hyperfine
need curl curl

work=$(mktemp -d)
cleanup() {
    [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

echo "building transport-bench (release)..." >&2
swift build -c release --product transport-bench >/dev/null
bench=$(swift build -c release --show-bin-path)/transport-bench

mkdir -p "$work/www"
# nginx workers run as an unprivileged user: let them read what they serve.
chmod a+rx "$work"
python3 - "$work/www" "$count" "$size" <<'PY'
import os, random, sys
root, count, size = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
rng = random.Random(7)
for i in range(count):
    n = max(64, int(size * rng.uniform(0.5, 1.5)))
    with open(os.path.join(root, f"photo-{i:05d}.jpg"), "wb") as f:
        f.write(b"\xff\xd8\xff" + rng.randbytes(n - 5) + b"\xff\xd9")
PY
chmod -R a+rX "$work/www"

port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
cat > "$work/nginx.conf" <<CONF
worker_processes 2;
pid $work/nginx.pid;
error_log $work/error.log;
events { worker_connections 1024; }
http {
    access_log off;
    sendfile on;
    tcp_nodelay on;
    keepalive_requests 100000;
    client_body_temp_path $work/tmp;
    proxy_temp_path $work/tmp;
    fastcgi_temp_path $work/tmp;
    uwsgi_temp_path $work/tmp;
    scgi_temp_path $work/tmp;
    server {
        listen 127.0.0.1:$port;
        root $work/www;
        default_type image/jpeg;
    }
}
CONF
mkdir -p "$work/tmp"
nginx -c "$work/nginx.conf" -p "$work"

for f in "$work"/www/*.jpg; do echo "http://127.0.0.1:$port/$(basename "$f")"; done > "$work/urls.txt"
sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls.txt" > "$work/curl.cfg"
bytes=$(du -cb "$work"/www/*.jpg | tail -1 | cut -f1)

hyperfine --style basic --warmup 1 --runs 3 --export-json "$work/result.json" \
    -n curl "curl --silent --fail --parallel --parallel-max $concurrency --config $work/curl.cfg" \
    -n photosync-transport "$bench $work/urls.txt $concurrency" >&2

python3 - "$work/result.json" "$count" "$bytes" "$concurrency" <<'PY'
import json, sys
results = {r["command"]: r for r in json.load(open(sys.argv[1]))["results"]}
count, total, concurrency = int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
curl, ours = results["curl"], results["photosync-transport"]
print(f"{count} bodies, {total / 1e6:.0f} MB, concurrency {concurrency}, median of 3 runs")
for name, r in (("curl --parallel (the limit)", curl), ("photosync transport, hashing", ours)):
    print(f"  {name:32} {r['median']:6.3f} s wall  {r['user'] + r['system']:6.3f} s CPU  {count / r['median']:8.0f} bodies/s")
print(f"  ratio photosync / curl: {ours['median'] / curl['median']:.2f}x wall")
PY
