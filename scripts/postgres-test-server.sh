#!/usr/bin/env bash
# A throwaway PostgreSQL server with pgvector for Mnemo's tests and benchmarks (CI runs it; so can you).
#
#   scripts/postgres-test-server.sh install        build and install pgvector if it is missing (idempotent)
#   scripts/postgres-test-server.sh start          install if needed, start a cluster on 127.0.0.1 and a free
#                                                  port in a temporary folder, print its URL on stdout
#   scripts/postgres-test-server.sh stop URL       stop the cluster of that URL and remove its folder
#
# Debian 12 ships PostgreSQL 15 but no pgvector package. Debian 13 (trixie) has the `pgvector` source package
# (0.8.x), so `install` fetches it with `apt-get source` through a temporary deb-src list naming the Debian archive
# this machine's apt configuration already uses (kept in a temporary folder: the machine's own apt sources and
# lists are not touched), builds it against postgresql-server-dev-15 with `make with_llvm=no` and installs it.
# Everything but the URL goes to stderr. The functions live in scripts/test-server-lib.sh.
# Environment: MNEMO_PG_VERSION (default 15), MNEMO_PG_SERVER_OPTIONS (extra `-c name=value` server flags).
set -euo pipefail

LOG_NAME=postgres-test-server
# shellcheck source=scripts/test-server-lib.sh
. "$(dirname "$0")/test-server-lib.sh"
FOLDER_PREFIX="${TMPDIR:-/tmp}/mnemo-pg-"

start_server() {
  install_pgvector
  local port folder
  port=$(free_port)
  folder=$(mktemp -d "${FOLDER_PREFIX}${port}.XXXXXX")
  log "initdb in $folder"
  start_cluster "$folder" "$port"
  log "PostgreSQL $PG_VERSION with pgvector listens on 127.0.0.1:$port (data in $folder)"
  echo "postgres://postgres@127.0.0.1:$port/postgres"
}

stop_server() {
  local target=${1:-}
  [ -n "$target" ] || die "usage: $0 stop URL (the URL start printed)"
  local port folder found=0
  port=$(url_port "$target")
  for folder in "${FOLDER_PREFIX}${port}".*; do
    [ -d "$folder/data" ] || continue
    found=1
    stop_cluster "$folder"
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
