#!/usr/bin/env bash
# A private PostgreSQL cluster on loopback for the test suite: start | stop | status | url.
#
#   scripts/ci-postgres.sh start   # create (first time) and start; prints "started" or "running" on stdout
#   scripts/ci-postgres.sh url     # the SQLAlchemy URL the tests use (GINRUMMY_TEST_POSTGRES_URL)
#   scripts/ci-postgres.sh stop    # fast shutdown, if running
#
# A cluster of our own (not Debian's "main" cluster) so that nothing else on the machine can clash
# with it: its own port, its own socket folder, fsync off (test data is disposable), loopback only.
# Idempotent: starting a running cluster only re-checks the role and database.
# Settings: GINRUMMY_PG_PORT (54329), GINRUMMY_PG_DIR (/tmp/ginrummy-pg-$PORT).
set -euo pipefail

port=${GINRUMMY_PG_PORT:-54329}
root=${GINRUMMY_PG_DIR:-/tmp/ginrummy-pg-$port}
data=$root/data
sock=$root/sock
log=$root/server.log
role=ginrummy
password=ginrummy
database=ginrummy_test

say() { printf 'ci-postgres: %s\n' "$*" >&2; }
die() { say "error: $*"; exit 1; }

# Debian keeps the server programs out of PATH, one folder per major version; take the newest.
find_bindir() {
  local best
  best=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -t/ -k5,5n | while read -r d; do
    if [ -x "$d/initdb" ]; then echo "$d"; fi
  done | tail -n 1)
  if [ -z "$best" ] && command -v initdb >/dev/null 2>&1; then
    best=$(dirname "$(command -v initdb)")
  fi
  [ -n "$best" ] || die "no PostgreSQL server programs found (Debian: apt-get install postgresql)"
  echo "$best"
}

# The server refuses to run as root, so as root everything runs as the postgres user.
as_owner() {
  if [ "$(id -u)" -eq 0 ]; then
    (cd / && runuser -u postgres -- "$@")
  else
    "$@"
  fi
}

# Running means accepting connections: after a kill -9 the pid file can outlive the server for a
# moment, and a server that is still starting up needs a few seconds.
is_running() {
  [ -f "$data/PG_VERSION" ] && as_owner "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1 || return 1
  local i
  for i in 1 2 3 4 5 6 7 8 9 10; do
    as_owner "$bin/pg_isready" -q -h "$sock" -p "$port" && return 0
    sleep 0.5
  done
  return 1
}

init_cluster() {
  say "creating a cluster in $data"
  mkdir -p "$root"
  if [ "$(id -u)" -eq 0 ]; then
    id postgres >/dev/null 2>&1 || die "running as root but there is no postgres user to own the cluster"
    chown postgres: "$root"
  fi
  chmod 700 "$root"
  as_owner mkdir -p "$sock"
  # Local socket: trust, but the socket lives in a 0700 folder only the owner can enter.
  as_owner "$bin/initdb" -D "$data" -U postgres -E UTF8 --no-locale \
    --auth-local=trust --auth-host=scram-sha-256 >"$root/initdb.log" 2>&1 \
    || { cat "$root/initdb.log" >&2; die "initdb failed"; }
  as_owner tee -a "$data/postgresql.conf" >/dev/null <<EOF

# ginrummy test cluster (scripts/ci-postgres.sh)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = '$sock'
unix_socket_permissions = 0700
max_connections = 200
fsync = off
synchronous_commit = off
full_page_writes = off
EOF
}

psql_admin() {
  as_owner "$bin/psql" -X -q -h "$sock" -p "$port" -U postgres -d postgres -v ON_ERROR_STOP=1 "$@"
}

ensure_role_and_database() {
  psql_admin >/dev/null <<EOF
DO \$\$ BEGIN
  IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = '$role') THEN
    CREATE ROLE $role LOGIN CREATEDB;
  END IF;
END \$\$;
ALTER ROLE $role WITH LOGIN CREATEDB PASSWORD '$password';
SELECT 'CREATE DATABASE $database OWNER $role' WHERE NOT EXISTS
  (SELECT FROM pg_database WHERE datname = '$database') \gexec
EOF
}

url() { echo "postgresql+psycopg://$role:$password@127.0.0.1:$port/$database"; }

cmd=${1:-}
case "$cmd" in
  url) url; exit 0 ;;
  start|stop|status) ;;
  *) die "usage: $0 start|stop|status|url" ;;
esac

bin=$(find_bindir)

case "$cmd" in
  start)
    if is_running; then
      say "already running on 127.0.0.1:$port ($data)"
      ensure_role_and_database
      echo running
      exit 0
    fi
    [ -f "$data/PG_VERSION" ] || init_cluster
    say "starting $("$bin/postgres" --version) on 127.0.0.1:$port"
    if ! as_owner "$bin/pg_ctl" -D "$data" -l "$log" -w -t 60 start >/dev/null; then
      tail -n 20 "$log" >&2 || true
      die "the server did not start (is port $port taken by something else?)"
    fi
    ensure_role_and_database
    echo started
    ;;
  stop)
    if is_running; then
      as_owner "$bin/pg_ctl" -D "$data" -m fast -w stop >/dev/null
      say "stopped"
    else
      say "not running"
    fi
    ;;
  status)
    if is_running; then echo running; else echo stopped; exit 3; fi
    ;;
esac
