# Shared by the benchmark scripts: `source` it.

# need COMMAND PACKAGE: installs Debian's PACKAGE (as root) when COMMAND is missing, or fails
# saying which package to install.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    [[ $(id -u) -eq 0 ]] || { echo "$(basename "$0"): $1 is missing; install the '$2' package" >&2; exit 1; }
    apt-get install -y -qq "$2" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$2" >/dev/null; }
}

# with_stub_and_photosync: makes $work (removed on exit), builds photosync and unsplash-stub in
# release mode into $bin, and gives start_stub a stub to stop on exit. BIN=DIR uses the two
# binaries already in DIR instead (an older commit's release build, say, for a before/after).
with_stub_and_photosync() {
    work=$(mktemp -d)
    stub_pid=
    trap 'stop_stub; rm -rf "$work"' EXIT
    if [[ -n ${BIN:-} ]]; then
        bin=$BIN
    else
        echo "building photosync and unsplash-stub (release)..." >&2
        swift build -c release --product photosync >/dev/null 2>&1
        swift build -c release --product unsplash-stub >/dev/null 2>&1
        bin=$(swift build -c release --show-bin-path)
    fi
    [[ -x $bin/photosync && -x $bin/unsplash-stub ]] || { echo "$(basename "$0"): no photosync or unsplash-stub in $bin" >&2; exit 1; }
}

# start_stub [unsplash-stub options...]: serves the stub on a free port of 127.0.0.1 and sets
# $base to its URL. With no access key it answers any key; the rate limit is set high enough
# not to interfere, unless the options set their own.
start_stub() {
    "$bin/unsplash-stub" --port 0 --rate-limit 10000000 "$@" > "$work/stub.out" &
    stub_pid=$!
    # A million photos take the stub some seconds to make before it listens.
    for _ in $(seq 600); do grep -q "http://" "$work/stub.out" 2>/dev/null && break; sleep 0.1; done
    base=$(grep -o 'http://[0-9.:]*' "$work/stub.out" | head -1 || true)
    [[ -n $base ]] || { echo "$(basename "$0"): the stub did not start" >&2; exit 1; }
}

stop_stub() {
    [[ -n ${stub_pid:-} ]] && kill "$stub_pid" 2>/dev/null || true
    stub_pid=
}

# start_postgres: a throwaway PostgreSQL 15 cluster in $work/postgres, on a unix socket there,
# with the server's default durability (fsync on), stopped on exit; sets $postgres_socket.
# Installs Debian's postgresql-15 when missing (as root). initdb refuses root: the cluster runs
# as the postgres user.
start_postgres() {
    [[ -x /usr/lib/postgresql/15/bin/initdb ]] || need /usr/lib/postgresql/15/bin/initdb postgresql-15
    postgres_socket=$work/postgres/socket
    mkdir -p "$postgres_socket"
    chown -R postgres "$work/postgres"
    chmod 0755 "$work"
    runuser -u postgres -- /usr/lib/postgresql/15/bin/initdb -D "$work/postgres/data" -A trust -U postgres >/dev/null
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$work/postgres/data" -l "$work/postgres/log" -w \
        -o "-c listen_addresses='' -k $postgres_socket" start >/dev/null
    trap 'stop_stub; stop_postgres; rm -rf "$work"' EXIT
}

stop_postgres() {
    runuser -u postgres -- /usr/lib/postgresql/15/bin/pg_ctl -D "$work/postgres/data" -m fast -w stop >/dev/null 2>&1 || true
}

# fresh_postgres_database NAME: drops and creates NAME on the cluster, and prints its URL.
fresh_postgres_database() {
    runuser -u postgres -- psql -q -h "$postgres_socket" -d postgres -c "DROP DATABASE IF EXISTS $1" >/dev/null
    runuser -u postgres -- psql -q -h "$postgres_socket" -d postgres -c "CREATE DATABASE $1" >/dev/null
    echo "postgres://postgres@/$1?host=$postgres_socket"
}

# in_memory FILE: reads FILE (and its -wal, when there is one) once, so that the load measures
# serve, not the disk. The machines here have been seen to drop the page cache of a file just
# written: a million-photo file served cold gave 30 random photos a p99 of 396 ms, warm 18 ms.
in_memory() {
    cat "$1" "$1-wal" > /dev/null 2>&1 || true
}

# load URL: prints "requests/s p99-ms [notes]" of `wrk -t2 -c16` over $seconds s, after 2 s of
# the same load unmeasured: each of photosync's readers keeps a listing's anchors, count and
# ranking until the data changes, and the first request on each pays for them (the single
# requests in Benchmarks/HISTORY.md). For serve.sh and writing.sh.
load() {
    local output
    wrk -t2 -c16 -d2s --timeout 10s -H "Authorization: Client-ID bench" "$1" > /dev/null 2>&1
    # The Unsplash API's routes want a client key (any one, on loopback); the others ignore it.
    output=$(wrk -t2 -c16 -d"${seconds}s" --timeout 10s --latency -H "Authorization: Client-ID bench" "$1" 2>&1)
    python3 - "$output" <<'PY'
import re, sys
text = sys.argv[1]
rate = float(re.search(r"Requests/sec:\s+([\d.]+)", text).group(1))
match = re.search(r"\s99%\s+([\d.]+)(us|ms|s)", text)
p99 = float(match.group(1)) * {"us": 0.001, "ms": 1, "s": 1000}[match.group(2)] if match else float("nan")
bad = re.search(r"Non-2xx or 3xx responses: (\d+)", text)
errors = re.search(r"Socket errors: (.*)", text)
notes = (f" ({bad.group(1)} non-2xx)" if bad else "") + (f" (socket errors: {errors.group(1)})" if errors else "")
print(f"{rate:.0f} {p99:.1f}{notes}")
PY
}

# start_nginx: nginx serving $work/www on a free port of 127.0.0.1 (two workers, `sendfile on`,
# no access log), as the peer that serves files; sets $nginx_port. The caller stops it by
# $work/nginx.pid. Its workers run as an unprivileged user: $work/www must be theirs to read.
start_nginx() {
    mkdir -p "$work/www" "$work/tmp"
    chmod a+rx "$work"
    nginx_port=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
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
        listen 127.0.0.1:$nginx_port;
        root $work/www;
        default_type image/jpeg;
    }
}
CONF
    nginx -c "$work/nginx.conf" -p "$work"
}
