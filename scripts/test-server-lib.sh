# Shell functions shared by the throwaway test servers (postgres-test-server.sh, citus-test-server.sh): sourced, not run.
#
# Callers set LOG_NAME (the prefix of their messages) before sourcing. Everything but a server's URL goes to stderr.
# Environment: MNEMO_PG_VERSION (default 15), MNEMO_PG_SERVER_OPTIONS (extra `-c name=value` server flags).

PG_VERSION=${MNEMO_PG_VERSION:-15}
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin
PG_SHARE=/usr/share/postgresql/$PG_VERSION
PG_LIB=/usr/lib/postgresql/$PG_VERSION/lib

log() { printf '[%s] %s\n' "${LOG_NAME:-test-server}" "$*" >&2; }
die() { log "error: $*"; exit 1; }

is_root() { [ "$(id -u)" -eq 0 ]; }

# Runs a command as the postgres user when we are root (initdb refuses to run as root), else as ourselves.
as_server_user() {
  if is_root; then runuser -u postgres -- "$@"; else "$@"; fi
}

# Runs the rest of the command line under an exclusive lock named $1, so two scripts never install at once.
with_install_lock() {
  local name=$1
  shift
  (
    flock -w 1800 9 || die "waited 30 minutes for the install lock ${TMPDIR:-/tmp}/mnemo-install-$name.lock"
    "$@"
  ) 9>"${TMPDIR:-/tmp}/mnemo-install-$name.lock"
}

# Installs Debian packages that are missing (none: no apt call at all); tries once more after `apt-get update`.
apt_install() {
  local missing=() package
  for package in "$@"; do
    dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
  done
  [ "${#missing[@]}" -eq 0 ] && return 0
  is_root || die "building needs the packages ${missing[*]} (apt-get needs root). Run this script with sudo."
  export DEBIAN_FRONTEND=noninteractive
  local apt=(apt-get -o DPkg::Lock::Timeout=300 install -y -q --no-install-recommends)
  log "installing ${missing[*]}"
  "${apt[@]}" "${missing[@]}" >&2 \
    || { apt-get -o DPkg::Lock::Timeout=300 update -q >&2 && "${apt[@]}" "${missing[@]}" >&2; } \
    || die "could not install ${missing[*]}"
}

require_server_dev() {
  [ -x "$PG_BIN/postgres" ] || die "PostgreSQL $PG_VERSION is not installed at $PG_BIN (apt-get install postgresql-$PG_VERSION)."
  apt_install "postgresql-server-dev-$PG_VERSION" make gcc
}

# The base URI of the Debian archive this machine's apt already uses (the entry for its own release's `main`),
# read from apt's configuration (sources.list and sources.list.d, one-line or deb822), so no mirror is named here.
debian_archive_uri() {
  local codename uri
  codename=$(. /etc/os-release && printf '%s' "${VERSION_CODENAME:-}")
  [ -n "$codename" ] || die "/etc/os-release names no VERSION_CODENAME: cannot tell which apt source is the Debian archive"
  # shellcheck disable=SC2016
  uri=$(apt-get indextargets --no-release-info --format '$(SITE) $(RELEASE) $(COMPONENT) $(TARGET_OF)' 2>/dev/null \
    | awk -v release="$codename" '$2 == release && $3 == "main" && $4 == "deb" { print $1; exit }')
  [ -n "$uri" ] || die "no apt source for '$codename main' in this machine's apt configuration (apt-get indextargets): add the Debian archive to /etc/apt/sources.list.d"
  printf '%s' "$uri"
}

# Fetches and unpacks a Debian source package of another release into folder $3 through a temporary deb-src list
# (inside $3: the machine's own apt sources and lists are not touched), from the archive the machine uses.
fetch_debian_source() {
  local package=$1 release=$2 work=$3
  command -v dpkg-source >/dev/null || apt_install dpkg-dev
  mkdir -p "$work/lists/partial" "$work/cache/archives/partial" "$work/parts"
  echo "deb-src $(debian_archive_uri) $release main" > "$work/sources.list"
  local apt_options=(
    -o "Dir::Etc::SourceList=$work/sources.list" -o "Dir::Etc::SourceParts=$work/parts"
    -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o "APT::Sandbox::User=root"
  )
  log "fetching the $package source package of Debian $release (temporary deb-src list in $work)"
  apt-get "${apt_options[@]}" update -q >&2 || die "apt-get update of the temporary $release deb-src list failed"
  (cd "$work" && apt-get "${apt_options[@]}" source -q "$package" >&2) || die "apt-get source $package failed"
}

pgvector_installed() {
  [ -f "$PG_SHARE/extension/vector.control" ] && [ -f "$PG_LIB/vector.so" ]
}

# Debian 12 ships PostgreSQL 15 but no pgvector package; Debian 13 (trixie) has the `pgvector` source package
# (0.8.x): fetched with `apt-get source`, built against postgresql-server-dev with `make with_llvm=no`, installed.
build_pgvector() {
  if pgvector_installed; then
    log "pgvector is installed ($(sed -n "s/^default_version = '\(.*\)'/\1/p" "$PG_SHARE/extension/vector.control"))"
    return 0
  fi
  is_root || die "pgvector is missing and building it needs root (apt-get and make install). Run: sudo $0 install"
  require_server_dev
  local work source
  work=$(mktemp -d "${TMPDIR:-/tmp}/mnemo-pgvector-build.XXXXXX")
  # shellcheck disable=SC2064
  trap "rm -rf '$work'" EXIT
  fetch_debian_source pgvector trixie "$work"
  source=$(find "$work" -maxdepth 1 -type d -name 'pgvector-*' | head -n 1)
  [ -n "$source" ] || die "the pgvector source did not unpack in $work"
  log "building $(basename "$source") against PostgreSQL $PG_VERSION"
  make -s -C "$source" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no >&2 || die "building pgvector failed"
  make -s -C "$source" PG_CONFIG="$PG_BIN/pg_config" with_llvm=no install >&2 || die "installing pgvector failed"
  pgvector_installed || die "pgvector was built but its files are not in $PG_SHARE/extension and $PG_LIB"
  log "pgvector installed"
}

# Builds and installs pgvector if it is missing (idempotent; one install at a time on the machine).
install_pgvector() {
  pgvector_installed && { build_pgvector; return 0; }
  with_install_lock pgvector build_pgvector
}

free_port() {
  node -e 'const s = require("net").createServer(); s.listen(0, "127.0.0.1", () => { console.log(s.address().port); s.close(); });'
}

# initdb in $1/data and start it on 127.0.0.1:$2 (socket in $1), with extra server flags $3 and MNEMO_PG_SERVER_OPTIONS.
start_cluster() {
  local folder=$1 port=$2 flags=${3:-}
  is_root && chown postgres: "$folder"
  as_server_user "$PG_BIN/initdb" -D "$folder/data" -U postgres --auth=trust --encoding=UTF8 --locale=C.UTF-8 >"$folder/initdb.log" 2>&1 \
    || { cat "$folder/initdb.log" >&2; die "initdb in $folder failed"; }
  # shellcheck disable=SC2086
  as_server_user "$PG_BIN/pg_ctl" -D "$folder/data" -l "$folder/server.log" -w -t 60 \
    -o "-c listen_addresses=127.0.0.1 -p $port -k $folder $flags ${MNEMO_PG_SERVER_OPTIONS:-}" start >&2 \
    || { cat "$folder/server.log" >&2; die "the server in $folder did not start"; }
}

# Stops the cluster whose data folder is $1/data (if it runs).
stop_cluster() {
  as_server_user "$PG_BIN/pg_ctl" -D "$1/data" -m fast -w stop >&2 || log "the server in $1 was not running"
}

# The port of a postgres:// URL (the one `start` printed).
url_port() {
  local port
  port=$(printf '%s' "$1" | sed -n 's#.*:\([0-9][0-9]*\)/.*#\1#p')
  [ -n "$port" ] || die "no port in $1"
  printf '%s' "$port"
}
