#!/usr/bin/env bash
# QuestDB for the scaled mode (DESIGN.md "Two ways to run"): fetch the server jar from Maven
# Central, start it on loopback with data in a temporary directory, stop it by process id.
#
#   scripts/services/questdb.sh install   fetch the jar into .cache/services/questdb (once)
#   scripts/services/questdb.sh start     install if needed, start, wait until healthy
#   scripts/services/questdb.sh stop      stop the process of the pid file (TERM, then KILL)
#   scripts/services/questdb.sh status    running or not, exit 0 / 3
#   scripts/services/questdb.sh env       the variables that point the platform at it
#   scripts/services/questdb.sh clean     stop, then remove the data directory
#
# Every command is idempotent. Configuration (environment, defaults in brackets):
#   QUESTDB_VERSION [9.3.4]      Maven Central has no 9.3.5; 9.3.x runs on Java 17, 9.4+ needs Java 25
#   QUESTDB_JAVA                 java binary [$JAVA_HOME/bin/java, else java on PATH]
#   QUESTDB_HTTP_PORT [19000]    /exec SQL and ILP over HTTP
#   QUESTDB_PG_PORT [18812]      PostgreSQL wire (admin/quest, db qdb)
#   QUESTDB_ILP_PORT [19009]     ILP over TCP
#   QUESTDB_HEALTH_PORT [19003]  minimal HTTP server: GET / answers 200 when healthy
#   QUESTDB_ROOT [${TMPDIR:-/tmp}/lintel-questdb-<http port>]  data, log, pid file, java tmpdir
#   QUESTDB_HEAP [1g]            -Xmx (QuestDB's table data is off-heap, memory-mapped)
#   QUESTDB_WORKERS [1]          threads per shared pool (network, query, write)
#   QUESTDB_RAM_LIMIT [2147483648]  bytes of native (non-heap) memory QuestDB may allocate
#   QUESTDB_START_TIMEOUT [90]   seconds to wait for health
# Any other server.conf key can be passed as QDB_<KEY> (see QuestDB's configuration docs).
set -euo pipefail
# No job control: the background subshell below must not lead a process group, so that
# setsid execs in place (no fork) and $! is the server's pid.
set +m
SERVICE_NAME=questdb
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

VERSION="${QUESTDB_VERSION:-9.3.4}"
HTTP_PORT="${QUESTDB_HTTP_PORT:-19000}"
PG_PORT="${QUESTDB_PG_PORT:-18812}"
ILP_PORT="${QUESTDB_ILP_PORT:-19009}"
HEALTH_PORT="${QUESTDB_HEALTH_PORT:-19003}"
ROOT="${QUESTDB_ROOT:-${TMPDIR:-/tmp}/lintel-questdb-$HTTP_PORT}"
HEAP="${QUESTDB_HEAP:-1g}"
WORKERS="${QUESTDB_WORKERS:-1}"
RAM_LIMIT="${QUESTDB_RAM_LIMIT:-2147483648}"
START_TIMEOUT="${QUESTDB_START_TIMEOUT:-90}"
CACHE_DIR="$SERVICES_CACHE/questdb"
JAR="$CACHE_DIR/questdb-$VERSION.jar"
PIDFILE="$ROOT/questdb.pid"
LOG="$ROOT/questdb.log"

for p in "$HTTP_PORT" "$PG_PORT" "$ILP_PORT" "$HEALTH_PORT" "$WORKERS" "$START_TIMEOUT" "$RAM_LIMIT"; do
  [[ "$p" =~ ^[0-9]+$ ]] || die "ports, QUESTDB_WORKERS, QUESTDB_START_TIMEOUT and QUESTDB_RAM_LIMIT must be integers, got '$p'"
done

java_bin() {
  if [ -n "${QUESTDB_JAVA:-}" ]; then echo "$QUESTDB_JAVA"
  elif [ -n "${JAVA_HOME:-}" ] && [ -x "$JAVA_HOME/bin/java" ]; then echo "$JAVA_HOME/bin/java"
  else command -v java || die "no java found: install a JDK (17 for QuestDB 9.3.x, 25 for 9.4+) or set QUESTDB_JAVA"
  fi
}

# Checks that the chosen java runs and is new enough for the QuestDB version.
check_java() {
  local java major need=17 minor
  java=$(java_bin)
  major=$("$java" -version 2>&1 | sed -n 's/.*version "\([0-9]*\).*/\1/p' | head -1) || true
  [ -n "$major" ] || die "'$java -version' failed; set QUESTDB_JAVA to a working JDK"
  minor=$(echo "$VERSION" | cut -d. -f2)
  if [ "${VERSION%%.*}" -gt 9 ] || { [ "${VERSION%%.*}" -eq 9 ] && [ "$minor" -ge 4 ]; }; then need=25; fi
  [ "$major" -ge "$need" ] || die "QuestDB $VERSION needs Java $need+, '$java' is Java $major (set QUESTDB_JAVA, or QUESTDB_VERSION=9.3.4 for Java 17)"
  echo "$java"
}

cmd_install() {
  local java
  java=$(check_java)
  if [ -s "$JAR" ]; then
    say "jar cached: $JAR"
  else
    command -v mvn >/dev/null || die "mvn (Apache Maven) is needed to fetch the jar: apt-get install maven"
    mkdir -p "$CACHE_DIR"
    say "fetching org.questdb:questdb:$VERSION from Maven Central"
    mvn -q -B org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy \
      "-Dartifact=org.questdb:questdb:$VERSION" "-DoutputDirectory=$CACHE_DIR" >&2 \
      || die "could not fetch org.questdb:questdb:$VERSION (is the version on Maven Central?)"
    [ -s "$JAR" ] || die "mvn finished but $JAR is missing"
  fi
  say "java: $java ($("$java" -version 2>&1 | head -1))"
}

healthy() {
  curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$HEALTH_PORT/" 2>/dev/null &&
    curl -fsS -m 2 -o /dev/null "http://127.0.0.1:$HTTP_PORT/exec?query=select%201" 2>/dev/null
}

# The pid file's process is ours only if it is a QuestDB server (guards against pid reuse).
ours() { pid_alive "$PIDFILE" && grep -qa 'io.questdb.ServerMain' "/proc/$(cat "$PIDFILE")/cmdline" 2>/dev/null; }

cmd_start() {
  if ours; then
    if healthy; then say "already running (pid $(cat "$PIDFILE")), http://127.0.0.1:$HTTP_PORT"; return 0; fi
    say "pid $(cat "$PIDFILE") is running but not healthy yet; waiting"
  else
    rm -f "$PIDFILE"
    for p in "$HTTP_PORT" "$PG_PORT" "$ILP_PORT" "$HEALTH_PORT"; do
      port_open "$p" && die "port $p on 127.0.0.1 is taken by another process; choose other QUESTDB_*_PORT values"
    done
    cmd_install
    local java
    java=$(check_java)
    mkdir -p "$ROOT/db" "$ROOT/tmp"
    # The jar's native libraries are extracted to java.io.tmpdir: it must allow executables,
    # so it is a directory of ours rather than a possibly noexec /tmp.
    say "starting QuestDB $VERSION, data in $ROOT/db, log $LOG"
    (
      export QDB_HTTP_NET_BIND_TO="127.0.0.1:$HTTP_PORT"
      export QDB_HTTP_MIN_NET_BIND_TO="127.0.0.1:$HEALTH_PORT"
      export QDB_PG_NET_BIND_TO="127.0.0.1:$PG_PORT"
      export QDB_LINE_TCP_NET_BIND_TO="127.0.0.1:$ILP_PORT"
      export QDB_LINE_UDP_ENABLED=false
      export QDB_TELEMETRY_ENABLED=false
      export QDB_TELEMETRY_DISABLE_COMPLETELY=true
      export QDB_SHARED_WORKER_COUNT="$WORKERS"
      export QDB_SHARED_NETWORK_WORKER_COUNT="$WORKERS"
      export QDB_SHARED_QUERY_WORKER_COUNT="$WORKERS"
      export QDB_SHARED_WRITE_WORKER_COUNT="$WORKERS"
      export QDB_RAM_USAGE_LIMIT_BYTES="$RAM_LIMIT"
      # Own session: the server outlives the shell that started it and its process group.
      exec setsid "$java" -Xms256m "-Xmx$HEAP" -XX:+UseParallelGC "-Djava.io.tmpdir=$ROOT/tmp" \
        --add-exports java.base/jdk.internal.math=io.questdb \
        -p "$JAR" -m io.questdb/io.questdb.ServerMain -d "$ROOT/db" \
        </dev/null >>"$LOG" 2>&1
    ) &
    echo $! >"$PIDFILE"
  fi
  local pid i
  pid=$(cat "$PIDFILE")
  for ((i = 0; i < START_TIMEOUT * 4; i++)); do
    if healthy; then
      say "running (pid $pid): http://127.0.0.1:$HTTP_PORT, pg 127.0.0.1:$PG_PORT, ilp tcp 127.0.0.1:$ILP_PORT, health http://127.0.0.1:$HEALTH_PORT/"
      return 0
    fi
    if ! kill -0 "$pid" 2>/dev/null; then
      rm -f "$PIDFILE"
      log_tail "$LOG"
      die "QuestDB exited during start (see $LOG)"
    fi
    sleep 0.25
  done
  log_tail "$LOG"
  die "QuestDB (pid $pid) not healthy after ${START_TIMEOUT}s on http://127.0.0.1:$HEALTH_PORT/; still running, stop it with: $0 stop"
}

cmd_stop() {
  if pid_alive "$PIDFILE" && ! ours; then
    say "pid $(cat "$PIDFILE") in $PIDFILE is not a QuestDB server; removing the stale pid file"
    rm -f "$PIDFILE"
    return 0
  fi
  stop_pidfile "$PIDFILE" 30
}

cmd_status() {
  if ours; then
    if healthy; then echo "questdb: running (pid $(cat "$PIDFILE")), healthy, http://127.0.0.1:$HTTP_PORT, root $ROOT"
    else echo "questdb: running (pid $(cat "$PIDFILE")) but not answering on ports $HEALTH_PORT/$HTTP_PORT"; fi
    return 0
  fi
  echo "questdb: not running (root $ROOT)"
  return 3
}

cmd_env() {
  cat <<EOF
LINTEL_QUESTDB=http::addr=127.0.0.1:$HTTP_PORT
LINTEL_QUESTDB_URL=http://127.0.0.1:$HTTP_PORT
LINTEL_QUESTDB_PG=postgresql://admin:quest@127.0.0.1:$PG_PORT/qdb
LINTEL_QUESTDB_ILP_TCP=tcp::addr=127.0.0.1:$ILP_PORT
EOF
}

cmd_clean() {
  cmd_stop
  case "$ROOT" in
    /|"") die "refusing to remove '$ROOT'" ;;
  esac
  [ -f "$ROOT/questdb.log" ] || [ -d "$ROOT/db" ] || { say "nothing to remove at $ROOT"; return 0; }
  rm -rf "$ROOT"
  say "removed $ROOT"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  clean) cmd_clean ;;
  *) echo "usage: $0 install|start|stop|status|env|clean" >&2; exit 2 ;;
esac
