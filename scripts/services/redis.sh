#!/usr/bin/env bash
# A Redis of the project's own, for tests that must not share the machine's :6379:
# Debian's redis-server on 127.0.0.1:${LINTEL_TEST_REDIS_PORT:-16379}, nothing kept on disk.
#   scripts/services/redis.sh install|start|stop|status|env
set -euo pipefail
PORT="${LINTEL_TEST_REDIS_PORT:-16379}"
RUN_DIR="${LINTEL_SERVICES_RUN:-/tmp/lintel-services}/redis-$PORT"
PID_FILE="$RUN_DIR/redis.pid"

install() {
  command -v redis-server >/dev/null 2>&1 && return 0
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends redis-server
}

running() { [ -f "$PID_FILE" ] && kill -0 "$(cat "$PID_FILE")" 2>/dev/null; }

start() {
  install
  if running; then echo "redis already running on 127.0.0.1:$PORT (pid $(cat "$PID_FILE"))"; return 0; fi
  mkdir -p "$RUN_DIR"
  redis-server --bind 127.0.0.1 --port "$PORT" --save '' --appendonly no --dir "$RUN_DIR" \
    --daemonize yes --pidfile "$PID_FILE" --logfile "$RUN_DIR/redis.log"
  for _ in $(seq 1 50); do
    if redis-cli -p "$PORT" ping 2>/dev/null | grep -q PONG; then echo "redis running on 127.0.0.1:$PORT"; return 0; fi
    sleep 0.1
  done
  echo "redis did not answer on 127.0.0.1:$PORT; log:" >&2; tail -20 "$RUN_DIR/redis.log" >&2; exit 1
}

stop() {
  if running; then kill "$(cat "$PID_FILE")"; rm -f "$PID_FILE"; echo "redis stopped"; else echo "redis not running"; fi
}

case "${1:-}" in
  install) install ;;
  start) start ;;
  stop) stop ;;
  status) if running; then echo "running (pid $(cat "$PID_FILE"))"; else echo "stopped"; exit 1; fi ;;
  env) echo "LINTEL_REDIS_URL=redis://127.0.0.1:$PORT" ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
