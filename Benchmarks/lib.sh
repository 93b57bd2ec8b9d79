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
    for _ in $(seq 100); do grep -q "http://" "$work/stub.out" 2>/dev/null && break; sleep 0.1; done
    base=$(grep -o 'http://[0-9.:]*' "$work/stub.out" | head -1)
    [[ -n $base ]] || { echo "$(basename "$0"): the stub did not start" >&2; exit 1; }
}

stop_stub() {
    [[ -n ${stub_pid:-} ]] && kill "$stub_pid" 2>/dev/null || true
    stub_pid=
}
