#!/usr/bin/env bash
# A throwaway Citus cluster with pgvector on 127.0.0.1 for Mnemo's tests and benchmarks (CI runs it; so can you).
#
#   scripts/citus-test-server.sh install       build and install pgvector and Citus if missing (idempotent)
#   scripts/citus-test-server.sh start         install if needed, start a coordinator and two workers (three
#                                              clusters in one temporary folder, free ports), each with the citus
#                                              and vector extensions; print the coordinator's URL on stdout
#   scripts/citus-test-server.sh stop URL      stop the three servers of that coordinator URL, remove the folder
#
# Citus 12.1.12 (AGPL-3.0, test infrastructure only, never shipped) is built from the vendored tarball
# ../shared/vendor/citus-12.1.12.tar.gz beside the repository (or $MNEMO_SHARED/vendor/...), checked against its
# sha256 first (../shared/vendor/SOURCE.md gives its provenance), with `--without-libcurl` (no usage reports),
# `make -j$(nproc)`, `make install`: about 3 minutes on 2 cores. pgvector is installed as postgres-test-server.sh
# does (scripts/test-server-lib.sh). Everything but the URL goes to stderr.
# Environment: MNEMO_PG_VERSION (default 15), MNEMO_PG_SERVER_OPTIONS (extra `-c name=value` flags of every node),
# MNEMO_CITUS_SHARD_COUNT (`citus.shard_count` of the coordinator: shards of each new distributed table; Citus's
# default is 32).
set -euo pipefail

LOG_NAME=citus-test-server
# shellcheck source=scripts/test-server-lib.sh
. "$(dirname "$0")/test-server-lib.sh"
FOLDER_PREFIX="${TMPDIR:-/tmp}/mnemo-citus-"
CITUS_VERSION=12.1.12
CITUS_EXTENSION_VERSION=12.1-1
CITUS_SHA256=a344da15513601e718a268d907e1c86e43a69eb243398b929f65a4580723f552
CITUS_TARBALL="${MNEMO_SHARED:-$(cd "$(dirname "$0")/../.." && pwd)/shared}/vendor/citus-$CITUS_VERSION.tar.gz"
PSQL="$PG_BIN/psql"

citus_installed() {
  [ -f "$PG_LIB/citus.so" ] && grep -q "^default_version = '$CITUS_EXTENSION_VERSION'" "$PG_SHARE/extension/citus.control" 2>/dev/null
}

build_citus() {
  if citus_installed; then
    log "Citus is installed (extension $CITUS_EXTENSION_VERSION)"
    return 0
  fi
  [ -f "$CITUS_TARBALL" ] || die "the vendored Citus source is not at $CITUS_TARBALL (set MNEMO_SHARED to the folder holding vendor/)"
  local sum
  sum=$(sha256sum "$CITUS_TARBALL" | cut -d ' ' -f 1)
  [ "$sum" = "$CITUS_SHA256" ] || die "$CITUS_TARBALL has sha256 $sum, expected $CITUS_SHA256: refusing to build it"
  is_root || die "Citus is missing and building it needs root (apt-get and make install). Run: sudo $0 install"
  require_server_dev
  apt_install liblz4-dev libzstd-dev libkrb5-dev libssl-dev libselinux1-dev libxslt1-dev libreadline-dev zlib1g-dev libpam0g-dev
  local work
  work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-citus-build.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  tar -xzf "$CITUS_TARBALL" -C "$work"
  local source="$work/citus-$CITUS_VERSION"
  log "building Citus $CITUS_VERSION against PostgreSQL $PG_VERSION in $work (about 3 minutes on 2 cores)"
  (cd "$source" && ./configure -q PG_CONFIG="$PG_BIN/pg_config" --without-libcurl >"$work/configure.log" 2>&1) \
    || { tail -n 40 "$work/configure.log" >&2; die "configuring Citus failed"; }
  make -s -C "$source" -j"$(nproc)" >"$work/make.log" 2>&1 || { tail -n 40 "$work/make.log" >&2; die "building Citus failed"; }
  make -s -C "$source" install >"$work/install.log" 2>&1 || { tail -n 40 "$work/install.log" >&2; die "installing Citus failed"; }
  citus_installed || die "Citus was built but its files are not in $PG_SHARE/extension and $PG_LIB"
  log "Citus $CITUS_VERSION installed"
}

install_all() {
  install_pgvector
  if citus_installed; then build_citus; else with_install_lock citus build_citus; fi
}

# Three free ports on 127.0.0.1, one a line (held together while chosen, so they differ).
free_ports() {
  node -e '
    const net = require("net");
    const servers = [0, 1, 2].map(() => net.createServer());
    Promise.all(servers.map((s) => new Promise((done) => s.listen(0, "127.0.0.1", done)))).then(() => {
      for (const s of servers) { console.log(s.address().port); s.close(); }
    });'
}

# Runs SQL on the node listening on port $1 (stops at the first error).
node_sql() {
  "$PSQL" -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$1" -U postgres -d postgres -o /dev/null -c "$2" >&2
}

start_server() {
  install_all
  local ports coordinator worker1 worker2 folder
  mapfile -t ports < <(free_ports)
  coordinator=${ports[0]} worker1=${ports[1]} worker2=${ports[2]}
  folder=$(mktemp -d "${FOLDER_PREFIX}${coordinator}.XXXXXX")
  # On any failure from here, stop what started and remove the folder.
  # shellcheck disable=SC2064
  trap "stop_folder '$folder'" EXIT
  mkdir -p "$folder/coordinator" "$folder/worker-1" "$folder/worker-2"
  is_root && chown -R postgres: "$folder"
  local flags="-c shared_preload_libraries=citus -c max_connections=200"
  log "initdb and start: coordinator on $coordinator, workers on $worker1 and $worker2 (data in $folder)"
  start_cluster "$folder/coordinator" "$coordinator" "$flags${MNEMO_CITUS_SHARD_COUNT:+ -c citus.shard_count=$MNEMO_CITUS_SHARD_COUNT}"
  start_cluster "$folder/worker-1" "$worker1" "$flags"
  start_cluster "$folder/worker-2" "$worker2" "$flags"
  local port
  for port in "$coordinator" "$worker1" "$worker2"; do
    node_sql "$port" 'CREATE EXTENSION citus; CREATE EXTENSION vector;'
  done
  node_sql "$coordinator" "SELECT citus_set_coordinator_host('127.0.0.1', $coordinator); SELECT citus_add_node('127.0.0.1', $worker1); SELECT citus_add_node('127.0.0.1', $worker2);"
  trap - EXIT
  log "Citus $CITUS_VERSION with pgvector: coordinator on 127.0.0.1:$coordinator, workers on $worker1 and $worker2"
  echo "postgres://postgres@127.0.0.1:$coordinator/postgres"
}

# Stops every node whose data is under folder $1 and removes the folder.
stop_folder() {
  local node
  for node in "$1"/*/; do
    [ -d "$node/data" ] && stop_cluster "${node%/}"
  done
  rm -rf "$1"
}

stop_server() {
  local target=${1:-}
  [ -n "$target" ] || die "usage: $0 stop URL (the URL start printed)"
  local port folder found=0
  port=$(url_port "$target")
  for folder in "${FOLDER_PREFIX}${port}".*; do
    [ -d "$folder/coordinator" ] || continue
    found=1
    stop_folder "$folder"
    log "stopped the cluster of coordinator port $port and removed $folder"
  done
  [ "$found" -eq 1 ] || log "no cluster of this script on port $port"
}

case "${1:-}" in
  install) install_all ;;
  start) start_server ;;
  stop) stop_server "${2:-}" ;;
  *) echo "usage: $0 install | start | stop URL" >&2; exit 2 ;;
esac
