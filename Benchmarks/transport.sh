#!/usr/bin/env bash
# The transport benchmark (issue: "HTTP that an operator can trust"), run by hand:
#   Benchmarks/transport.sh [COUNT] [SIZE_BYTES] [CONCURRENCY] [RUNS]
# Serves COUNT files of about SIZE_BYTES (default 3,000 x 100 KB) from nginx on 127.0.0.1, then
# in one run fetches all of them
#   1. with curl --parallel --parallel-max CONCURRENCY to /dev/null: the machine's limit;
#   2. with photosync's transport (AsyncHTTPClient, streaming each body into SHA-256), built
#      in release mode (or taken from BIN=DIR): Benchmarks/TransportBench.
# After a warm-up of each, the two run in turn RUNS times (default 5), each timed by
# /usr/bin/time. Prints the medians of wall time and of CPU time (user + system), and their
# ratios. CPU seconds hold when other work shares the machine; wall times do not. SHA-256 of
# the same files is timed too: curl does not hash, and a transport that hashes cannot go below
# curl and `openssl dgst -sha256` (SHA-NI where the CPU has it) together.
# PERF=1 adds a profile of one more run of the transport (perf, self time by symbol).
# Needs nginx (installed with apt-get when missing and run as root).
set -euo pipefail
cd "$(dirname "$0")/.."

count=${1:-3000}
size=${2:-100000}
concurrency=${3:-8}
runs=${4:-5}

source Benchmarks/lib.sh
need nginx nginx-light
need curl curl

work=$(mktemp -d)
cleanup() {
    [[ -f $work/nginx.pid ]] && kill "$(cat "$work/nginx.pid")" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT

if [[ -n ${BIN:-} ]]; then
    bench=$BIN/transport-bench
else
    echo "building transport-bench (release)..." >&2
    swift build -c release --product transport-bench >/dev/null
    bench=$(swift build -c release --show-bin-path)/transport-bench
fi

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

start_nginx
port=$nginx_port

for f in "$work"/www/*.jpg; do echo "http://127.0.0.1:$port/$(basename "$f")"; done > "$work/urls.txt"
sed 's/.*/url = "&"\noutput = "\/dev\/null"/' "$work/urls.txt" > "$work/curl.cfg"
bytes=$(du -cb "$work"/www/*.jpg | tail -1 | cut -f1)

curl_command=(curl --silent --fail --parallel --parallel-max "$concurrency" --config "$work/curl.cfg")
bench_command=("$bench" "$work/urls.txt" "$concurrency")
"${curl_command[@]}" && "${bench_command[@]}" > /dev/null
for run in $(seq "$runs"); do
    /usr/bin/time -f "%e %U %S" -o "$work/curl.$run" "${curl_command[@]}"
    /usr/bin/time -f "%e %U %S" -o "$work/ours.$run" "${bench_command[@]}" > /dev/null
    /usr/bin/time -f "%e %U %S" -o "$work/sha.$run" sh -c "cd '$work/www' && ls | xargs openssl dgst -sha256 > /dev/null"
    echo "run $run of $runs: curl $(cat "$work/curl.$run"), photosync $(cat "$work/ours.$run") (wall user sys)" >&2
done

python3 - "$work" "$count" "$bytes" "$concurrency" "$runs" <<'PY'
import statistics, sys
work, count, total, concurrency, runs = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4], int(sys.argv[5])
def read(name):
    rows = [list(map(float, open(f"{work}/{name}.{r}").read().split()[-3:])) for r in range(1, runs + 1)]
    return [w for w, _, _ in rows], [u + s for _, u, s in rows]
curl_wall, curl_cpu = read("curl")
ours_wall, ours_cpu = read("ours")
_, sha_cpu = read("sha")
median = statistics.median
print(f"{count} bodies, {total / 1e6:.0f} MB, concurrency {concurrency}, median of {runs} runs")
for name, wall, cpu in (("curl --parallel (the limit)", curl_wall, curl_cpu), ("photosync transport, hashing", ours_wall, ours_cpu)):
    print(f"  {name:32} {median(wall):6.3f} s wall  {median(cpu):6.3f} s CPU (runs {min(cpu):.2f}-{max(cpu):.2f})  {count / median(wall):8.0f} bodies/s")
print(f"  openssl dgst -sha256, same files {median(sha_cpu):6.3f} s CPU: hashing, which curl does not do")
print(f"  ratio photosync / curl: {median(ours_cpu) / median(curl_cpu):.2f}x CPU (target: under 1.5x), {median(ours_wall) / median(curl_wall):.2f}x wall")
print(f"  ratio photosync / (curl + openssl sha256): {median(ours_cpu) / (median(curl_cpu) + median(sha_cpu)):.2f}x CPU")
PY

# PERF=1: where the transport's CPU goes, from one more run under perf (symbols, self time).
if [[ -n ${PERF:-} ]]; then
    perf record -q -F 10000 -o "$work/perf.data" "${bench_command[@]}" > /dev/null 2>&1
    perf report -i "$work/perf.data" --no-children --sort dso,symbol --stdio 2>/dev/null | grep -v '^#' | grep -v '^$' | head -${PERF_LINES:-45}
fi
