#!/usr/bin/env bash
# A throwaway PostgreSQL server with pgvector for Mnemo's tests and benchmarks (CI runs it; so can you).
#
#   scripts/postgres-test-server.sh install        build and install pgvector if it is missing (idempotent)
#   scripts/postgres-test-server.sh start          install if needed, start a cluster on 127.0.0.1 and a free
#                                                  port in a temporary folder, print its URL on stdout
#   scripts/postgres-test-server.sh stop URL       stop the cluster of that URL and remove its folder
#
# Debian 12 ships PostgreSQL 15 but no pgvector package. Debian 13 (trixie) has the `pgvector` source package
# (0.8.x), so `install` fetches it with `apt-get source` through a temporary deb-src list (kept in a temporary
# folder: the machine's own apt sources and lists are not touched), builds it against postgresql-server-dev-15
# with `make with_llvm=no` and installs it. Everything but the URL goes to stderr.
# Environment: MNEMO_PG_VERSION (default 15), MNEMO_PG_SERVER_OPTIONS (extra `-c name=value` server flags).
set -euo pipefail

PG_VERSION=${MNEMO_PG_VERSION:-15}
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin
PG_SHARE=/usr/share/postgresql/$PG_VERSION
PG_LIB=/usr/lib/postgresql/$PG_VERSION/lib
FOLDER_PREFIX="${TMPDIR:-/tmp}/mnemo-pg-"

log() { printf '[postgres-test-server] %s\n' "$*" >&2; }
die() { log "error: $*"; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# Runs a command as the postgres user when we are root (initdb refuses to run as root), else as ourselves.
as_server_user() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

pgvector_installed() {
  [ -f "$PG_SHARE/extension/vector.control" ] && [ -f "$PG_LIB/vector.so" ]
}

install_pgvector() {
  if pgvector_installed; then
    log "pgvector is installed ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "$PG_SHARE/extension/vector.control"))"
    return 0
  fi
  [ -x "$PG_BIN/postgres" ] || die "PostgreSQL $PG_VERSION is not installed at $PG_BIN (apt-get install postgresql-$PG_VERSION)."
  is_root || die "pgvector is missing and building it needs root (apt-get and make install). Run: sudo $0 install"
  export DEBIAN_FRONTEND=noninteractive
  if [ ! -f "/usr/include/postgresql/$PG_VERSION/server/postgres.h" ]; then
    log "installing postgresql-server-dev-$PG_VERSION"
    apt-get install -y -q --no-install-recommends "postgresql-server-dev-$PG_VERSION" make gcc >&2 \
      || { apt-get update -q >&2 && apt-get install -y -q --no-install-recommends "postgresql-server-dev-$PG_VERSION" make gcc >&2; } \
      || die "could not install postgresql-server-dev-$PG_VERSION"
  fi
  command -v dpkg-source >/dev/null || apt-get install -y -q --no-install-recommends dpkg-dev >&2

  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-pgvector-build.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
  echo 'deb-src http://deb.debian.org/debian trixie main' > "$work/sources.list"
  local apt_options=(
    -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root"
  )
  log "fetching the pgvector source package from Debian trixie (temporary deb-src list in $work)"
  apt-get "${apt_options[@]}" update -q >&2 || die "apt-get update of the temporary trixie deb-src list failed"
  (cd "$work" && apt-get "${apt_options[@]}" source -q pgvector >&2) || die "apt-get source pgvector failed"
  local source
  source=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)
  [ -n "$source" ] || die "the pgvector source did not unpack in $work"
  log "building $(basename "$source") against PostgreSQL $PG_VERSION"
  make -s -C "$source" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no >&2 || die "building pgvector failed"
  make -s -C "$source" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no install >&2 || die "installing pgvector failed"
  pgvector_installed || die "pgvector was built but its files are not in $PG_SHARE/extension and $PG_LIB"
  log "pgvector installed"
}

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

start_server() {
  install_pgvector
  local port folder
  port=$(free_port)
  folder=$(mktemp -d "${FOLDER_PREFIX}${port}.XXXXXX")
  is_root && chown postgres: "$folder"
  log "initdb in $folder"
  as_server_user "$PG_BIN/initdb" -D "$folder/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
    || { cat "$folder/initdb.log" >&2; die "initdb failed"; }
  # shellcheck disable=SC2086
  as_server_user "$PG_BIN/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $folder ${MNEMO_PG_SERVER_OPTIONS:-}" start >&2 \
    || { cat "$folder/server.log" >&2; die "the server did not start"; }
  log "PostgreSQL $PG_VERSION with pgvector listens on 127.0.0.1:$port (data in $folder)"
  echo "postgres://postgres@127.0.0.1:$port/postgres"
}

stop_server() {
  local target=${1:-}
  [ -n "$target" ] || die "usage: $0 stop URL (the URL start printed)"
  local port
  port=$(printf '%s' "$target" | sed -n 's#.*:\([0-9][0-9]*\)/.*#\1#p')
  [ -n "$port" ] || die "no port in $target"
  local folder found=0
  for folder in "${FOLDER_PREFIX}${port}".*; do
    [ -d "$folder/data" ] || continue
    found=1
    as_server_user "$PG_BIN/pg_ctl" -D "$folder/data" -m fast -w stop >&2 || log "the server in $folder was not running"
    rm -rf "$folder"
    log "stopped the server on port $port and removed $folder"
  done
  [ "$found" -eq 1 ] || log "no server of this script on port $port"
}

case "${1:-}" in
  install) install_pgvector ;;
  start) start_server ;;
  stop) stop_server "${2:-}" ;;
  *) echo "usage: $0 install | start | stop URL" >&2; exit 2 ;;
esac
