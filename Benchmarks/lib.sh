# Shared by the benchmark scripts: `source` it.

# need COMMAND PACKAGE: installs Debian's PACKAGE (as root) when COMMAND is missing, or fails
# saying which package to install.
need() {
    command -v "$1" >/dev/null 2>&1 && return
    [[ $(id -u) -eq 0 ]] || { echo "$(basename "$0"): $1 is missing; install the '$2' package" >&2; exit 1; }
    apt-get install -y -qq "$2" >/dev/null 2>&1 || { apt-get update -qq >/dev/null && apt-get install -y -qq "$2" >/dev/null; }
}
