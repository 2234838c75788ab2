#!/usr/bin/env bash
# PostgreSQL for the catalog tests (issue 17). If one already answers on 127.0.0.1:5432 (the
# machine's, trust auth for user postgres), it is used and left alone. Otherwise Debian's
# postgresql is installed when missing and a cluster of the project's own is started on
# 127.0.0.1:${LINTEL_TEST_POSTGRES_PORT:-15432}, trust auth, data under .cache/services.
# Tests find it by themselves (test/helpers/postgres.ts tries 5432, then 15432) or through
# LINTEL_TEST_POSTGRES_URL (`env` prints it).
#   scripts/services/postgres.sh install|start|stop|status|env
set -euo pipefail
SERVICE_NAME=postgres
source "$(dirname "$0")/lib.sh"
PORT="${LINTEL_TEST_POSTGRES_PORT:-15432}"
# The machine's PostgreSQL, used when it answers (a variable only to test the other path).
SHARED="${LINTEL_TEST_POSTGRES_SHARED_PORT:-5432}"
DIR="$SERVICES_CACHE/postgres-$PORT"
DATA="$DIR/data"

bin_dir() { ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1; }

install() {
  [ -n "$(bin_dir)" ] && return 0
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  # The package's own cluster is not started here: policy-rc.d keeps service starts off.
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends postgresql
}

# Runs a server binary as the postgres user when we are root (initdb and postgres refuse root).
as_owner() { if [ "$(id -u)" -eq 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi; }

start() {
  if port_open "$SHARED"; then say "using the PostgreSQL on 127.0.0.1:$SHARED"; return 0; fi
  if port_open "$PORT"; then say "running on 127.0.0.1:$PORT"; return 0; fi
  install
  local bin; bin="$(bin_dir)"
  mkdir -p "$DIR"
  [ "$(id -u)" -eq 0 ] && chown postgres "$DIR"
  if [ ! -f "$DATA/PG_VERSION" ]; then
    as_owner "$bin/initdb" -D "$DATA" -U postgres --auth=trust -E UTF8 >"$DIR/initdb.log" 2>&1 || { log_tail "$DIR/initdb.log"; die "initdb failed"; }
  fi
  as_owner "$bin/pg_ctl" -D "$DATA" -l "$DIR/postgres.log" -w -t 30 \
    -o "-c listen_addresses=127.0.0.1 -c port=$PORT -c unix_socket_directories=$DIR" start >/dev/null || { log_tail "$DIR/postgres.log"; die "did not start"; }
  say "running on 127.0.0.1:$PORT"
}

stop() {
  local bin; bin="$(bin_dir)"
  if [ -n "$bin" ] && [ -f "$DATA/postmaster.pid" ]; then as_owner "$bin/pg_ctl" -D "$DATA" -m fast stop >/dev/null; say "stopped"; else say "not running (ours)"; fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) if port_open "$SHARED" || port_open "$PORT"; then echo "running"; else echo "stopped"; exit 1; fi ;;
  env) if port_open "$SHARED"; then echo "LINTEL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$SHARED/postgres"; else echo "LINTEL_TEST_POSTGRES_URL=postgres://postgres@127.0.0.1:$PORT/postgres"; fi ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
