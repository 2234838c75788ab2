#!/usr/bin/env bash
# S3Proxy for the scaled document store (engine/blobs/s3-store.ts) and its tests: an
# S3-compatible server on loopback with a filesystem backend in a temporary directory,
# jars from Maven Central (org.gaul:s3proxy 2.6.0 with its dependencies).
#
#   scripts/services/s3proxy.sh install   gather the jars into .cache/services/s3proxy/libs (once)
#   scripts/services/s3proxy.sh start     install if needed, start, wait until it answers
#   scripts/services/s3proxy.sh stop      stop the server started by `start` (by pid), drop its data
#   scripts/services/s3proxy.sh status    "running ..." (exit 0) or "stopped" (exit 3)
#   scripts/services/s3proxy.sh env       LINTEL_S3_ENDPOINT, LINTEL_S3_BUCKET, credentials
#
# Every subcommand is idempotent. Environment:
#   LINTEL_S3PROXY_PORT (18333)          HTTP listener
#   LINTEL_S3PROXY_HEAP (-Xmx256m)       JVM heap options
#   LINTEL_S3PROXY_START_TIMEOUT (60)    seconds `start` waits for the server to answer
#   LINTEL_SERVICES_CACHE (<repo>/.cache/services)  jars in s3proxy/libs
set -euo pipefail
# No job control: setsid below must exec in place so that $! is the server's pid.
set +m
SERVICE_NAME=s3proxy
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
PORT=${LINTEL_S3PROXY_PORT:-18333}
HEAP=${LINTEL_S3PROXY_HEAP:--Xmx256m}
TIMEOUT=${LINTEL_S3PROXY_START_TIMEOUT:-60}
ENDPOINT=http://$HOST:$PORT
BUCKET=lintel
IDENTITY=lintel
CREDENTIAL=lintel-secret
POM=$REPO_ROOT/scripts/services/s3proxy-pom.xml
CACHE=$SERVICES_CACHE/s3proxy
LIBS=$CACHE/libs
RUN=${LINTEL_SERVICES_RUN:-/tmp/lintel-services}/s3proxy-$PORT
PIDFILE=$RUN/s3proxy.pid
DATAFILE=$RUN/data-dir
LOG=$RUN/s3proxy.log

pom_sum() { sha256sum "$POM" | cut -d' ' -f1; }
installed() { [ -f "$LIBS/.complete" ] && [ "$(cat "$LIBS/.complete")" = "$(pom_sum)" ]; }

cmd_install() {
  if installed; then say "jars cached in $LIBS"; return 0; fi
  command -v mvn >/dev/null || die "mvn not found: install Maven (Debian: apt-get install maven)"
  command -v java >/dev/null || die "java not found: install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless)"
  say "gathering S3Proxy jars from Maven Central into $LIBS"
  mkdir -p "$CACHE"
  local tmp=$LIBS.partial
  rm -rf "$tmp"
  mvn -q -B -Dstyle.color=never -f "$POM" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp" >&2 || die "mvn failed to gather the jars (see above)"
  ls "$tmp"/s3proxy-*.jar >/dev/null 2>&1 || die "mvn finished but s3proxy is missing from $tmp"
  pom_sum >"$tmp/.complete"
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
  say "installed $(ls "$LIBS"/s3proxy-*.jar | xargs -n1 basename) ($(ls "$LIBS"/*.jar | wc -l) jars)"
}

# Pid of the server we started, if that process is still our S3Proxy; empty otherwise.
our_pid() {
  [ -f "$PIDFILE" ] || return 0
  local pid; pid=$(cat "$PIDFILE")
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'org\.gaul\.s3proxy\.Main'; then
    echo "$pid"
  fi
}

# S3Proxy answers an anonymous request with an S3 error (403): it is up and speaking S3.
answers() { [ "$(curl -s -o /dev/null -w '%{http_code}' --max-time 5 "$ENDPOINT/" || true)" = 403 ]; }

write_configs() {
  local data=$1
  mkdir -p "$data/blobs/$BUCKET" # the filesystem backend: a bucket is a directory
  cat >"$data/s3proxy.conf" <<CONF
s3proxy.endpoint=$ENDPOINT
s3proxy.authorization=aws-v2-or-v4
s3proxy.identity=$IDENTITY
s3proxy.credential=$CREDENTIAL
jclouds.provider=filesystem
jclouds.filesystem.basedir=$data/blobs
CONF
  # S3Proxy logs every request at DEBUG by default: warnings only.
  cat >"$data/logback.xml" <<CONF
<configuration>
  <appender name="out" class="ch.qos.logback.core.ConsoleAppender">
    <encoder><pattern>%d %level %logger{20} %msg%n</pattern></encoder>
  </appender>
  <root level="WARN"><appender-ref ref="out"/></root>
</configuration>
CONF
}

cmd_start() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then say "already running (pid $pid) on $ENDPOINT"; return 0; fi
  port_open "$PORT" && die "port $PORT is taken by another process: stop it or set LINTEL_S3PROXY_PORT"
  cmd_install
  mkdir -p "$RUN"
  if [ -f "$DATAFILE" ]; then rm -rf "$(cat "$DATAFILE")"; rm -f "$DATAFILE"; fi
  local data; data=$(mktemp -d "${TMPDIR:-/tmp}/lintel-s3proxy.XXXXXX")
  echo "$data" >"$DATAFILE"
  write_configs "$data"
  say "starting on $ENDPOINT (bucket $BUCKET, data $data)"
  # shellcheck disable=SC2086
  setsid java $HEAP -Djava.awt.headless=true -Dlogback.configurationFile="$data/logback.xml" \
    -cp "$LIBS/*" org.gaul.s3proxy.Main --properties "$data/s3proxy.conf" </dev/null >"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  local deadline=$((SECONDS + TIMEOUT))
  until port_open "$PORT" && answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "the server exited during start"; log_tail "$LOG"; rm -f "$PIDFILE"; exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "no answer on $ENDPOINT within ${TIMEOUT}s (LINTEL_S3PROXY_START_TIMEOUT)"; log_tail "$LOG"; cmd_stop; exit 1
    fi
    sleep 0.5
  done
  say "running (pid $pid) on $ENDPOINT"
}

cmd_stop() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then
    say "stopping pid $pid"
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 40); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then say "pid $pid ignored SIGTERM for 20s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  else
    say "not running"
  fi
  rm -f "$PIDFILE"
  if [ -f "$DATAFILE" ]; then rm -rf "$(cat "$DATAFILE")"; rm -f "$DATAFILE"; fi
}

cmd_status() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then echo "running (pid $pid) on $ENDPOINT"; return 0; fi
  echo "stopped"
  return 3
}

cmd_env() {
  echo "LINTEL_S3_ENDPOINT=$ENDPOINT"
  echo "LINTEL_S3_BUCKET=$BUCKET"
  echo "LINTEL_S3_ACCESS_KEY=$IDENTITY"
  echo "LINTEL_S3_SECRET_KEY=$CREDENTIAL"
}

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
