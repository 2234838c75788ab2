#!/usr/bin/env bash
# Apache Kafka for the scaled mode and its tests: one KRaft node (broker + controller, no
# ZooKeeper) on loopback, data in a temporary directory, jars from Maven Central.
#
#   scripts/services/kafka.sh install   gather the jars into .cache/services/kafka/libs (once)
#   scripts/services/kafka.sh start     install if needed, format, start, wait until it answers
#   scripts/services/kafka.sh stop      stop the node started by `start` (by pid), drop its data
#   scripts/services/kafka.sh status    "running ..." (exit 0) or "stopped" (exit 3)
#   scripts/services/kafka.sh env       LINTEL_KAFKA_BROKERS=127.0.0.1:<port>
#
# Every subcommand is idempotent: `start` on a running node and `stop` on a stopped one
# succeed without doing anything. Environment:
#   LINTEL_KAFKA_PORT (19092)            broker listener
#   LINTEL_KAFKA_CONTROLLER_PORT (19093) KRaft controller listener
#   LINTEL_KAFKA_HEAP (-Xmx512m)         JVM heap options
#   LINTEL_KAFKA_START_TIMEOUT (120)     seconds `start` waits for the broker to answer
#   LINTEL_SERVICES_CACHE (<repo>/.cache/services)  jars in kafka/libs, state in kafka/run-<port>
set -euo pipefail
# No job control: the background java below must not lead a process group, so that setsid
# execs in place (no fork) and $! is the broker's pid.
set +m
SERVICE_NAME=kafka
# shellcheck source=lib.sh
. "$(dirname "${BASH_SOURCE[0]}")/lib.sh"

HOST=127.0.0.1
PORT=${LINTEL_KAFKA_PORT:-19092}
CPORT=${LINTEL_KAFKA_CONTROLLER_PORT:-19093}
HEAP=${LINTEL_KAFKA_HEAP:--Xmx512m}
TIMEOUT=${LINTEL_KAFKA_START_TIMEOUT:-120}
BROKERS=$HOST:$PORT
POM=$REPO_ROOT/scripts/services/kafka-pom.xml
CACHE=$SERVICES_CACHE/kafka
LIBS=$CACHE/libs
# Run state (pid, log, data-dir pointer) per broker port, machine-wide like the port itself:
# a checkout finds the node another checkout started; nodes on other ports are separate.
RUN=${LINTEL_SERVICES_RUN:-/tmp/lintel-services}/kafka-$PORT
PIDFILE=$RUN/kafka.pid
DATAFILE=$RUN/data-dir
LOG=$RUN/kafka.log

# The stamp records which pom filled libs/, so editing the pom (a new version) re-installs.
pom_sum() { sha256sum "$POM" | cut -d' ' -f1; }
installed() { [ -f "$LIBS/.complete" ] && [ "$(cat "$LIBS/.complete")" = "$(pom_sum)" ]; }

cmd_install() {
  if installed; then say "jars cached in $LIBS"; return 0; fi
  command -v mvn >/dev/null || die "mvn not found: install Maven (Debian: apt-get install maven)"
  command -v java >/dev/null || die "java not found: install a JDK 17+ (Debian: apt-get install openjdk-17-jdk-headless)"
  say "gathering Kafka jars from Maven Central into $LIBS"
  mkdir -p "$CACHE"
  local tmp=$LIBS.partial
  rm -rf "$tmp"
  mvn -q -B -Dstyle.color=never -f "$POM" org.apache.maven.plugins:maven-dependency-plugin:3.6.1:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$tmp" >&2 || die "mvn failed to gather the jars (see above)"
  ls "$tmp"/kafka_2.13-*.jar >/dev/null 2>&1 || die "mvn finished but kafka_2.13 is missing from $tmp"
  pom_sum >"$tmp/.complete"
  rm -rf "$LIBS"
  mv "$tmp" "$LIBS"
  say "installed $(ls "$LIBS"/kafka_2.13-*.jar | xargs -n1 basename) ($(ls "$LIBS"/*.jar | wc -l) jars)"
}

# Pid of the node we started, if that process is still our Kafka; empty otherwise.
our_pid() {
  [ -f "$PIDFILE" ] || return 0
  local pid; pid=$(cat "$PIDFILE")
  if [ -n "$pid" ] && [ -r "/proc/$pid/cmdline" ] && tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q 'kafka\.Kafka'; then
    echo "$pid"
  fi
}

JAVA_TOOL=(java -Xmx256m -Dlog4j.configuration="file:$RUN/tools-log4j.properties" -cp "$LIBS/*")
java_cp() { "${JAVA_TOOL[@]}" "$@"; }

# The broker answers a metadata request (a topic listing), not only a TCP connect.
# (Kafka 3.9 has no kafka.admin.TopicCommand any more: it is org.apache.kafka.tools in kafka-tools.)
answers() { timeout 60 "${JAVA_TOOL[@]}" org.apache.kafka.tools.TopicCommand --bootstrap-server "$BROKERS" --list >/dev/null 2>"$RUN/probe.log"; }

write_configs() {
  local data=$1
  cat >"$data/server.properties" <<EOF
process.roles=broker,controller
node.id=1
controller.quorum.voters=1@$HOST:$CPORT
listeners=PLAINTEXT://$HOST:$PORT,CONTROLLER://$HOST:$CPORT
advertised.listeners=PLAINTEXT://$HOST:$PORT
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=CONTROLLER:PLAINTEXT,PLAINTEXT:PLAINTEXT
log.dirs=$data/logs
num.partitions=6
auto.create.topics.enable=true
offsets.topic.replication.factor=1
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=1
transaction.state.log.min.isr=1
min.insync.replicas=1
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
log.retention.hours=24
EOF
  cat >"$data/log4j.properties" <<EOF
log4j.rootLogger=INFO, out
log4j.appender.out=org.apache.log4j.ConsoleAppender
log4j.appender.out.layout=org.apache.log4j.PatternLayout
log4j.appender.out.layout.ConversionPattern=[%d] %p %m (%c)%n
log4j.logger.kafka=INFO
log4j.logger.org.apache.kafka=INFO
log4j.logger.kafka.request.logger=WARN
log4j.logger.state.change.logger=WARN
log4j.logger.kafka.log.LogCleaner=WARN
EOF
}

cmd_start() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then
    say "already running (pid $pid) on $BROKERS"
    return 0
  fi
  port_open "$PORT" && die "port $PORT is taken by another process: stop it or set LINTEL_KAFKA_PORT"
  port_open "$CPORT" && die "port $CPORT is taken by another process: stop it or set LINTEL_KAFKA_CONTROLLER_PORT"
  cmd_install
  mkdir -p "$RUN"
  cat >"$RUN/tools-log4j.properties" <<EOF
log4j.rootLogger=WARN, err
log4j.appender.err=org.apache.log4j.ConsoleAppender
log4j.appender.err.Target=System.err
log4j.appender.err.layout=org.apache.log4j.PatternLayout
log4j.appender.err.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
  # A stale data directory of a node that died is of no use: start from empty.
  if [ -f "$DATAFILE" ]; then rm -rf "$(cat "$DATAFILE")"; rm -f "$DATAFILE"; fi
  local data; data=$(mktemp -d "${TMPDIR:-/tmp}/lintel-kafka.XXXXXX")
  echo "$data" >"$DATAFILE"
  write_configs "$data"
  local cluster; cluster=$(java_cp kafka.tools.StorageTool random-uuid)
  java_cp kafka.tools.StorageTool format -t "$cluster" -c "$data/server.properties" -g >"$RUN/format.log" 2>&1 \
    || { cat "$RUN/format.log" >&2; die "formatting the storage in $data failed"; }
  say "starting KRaft node on $BROKERS (controller $HOST:$CPORT, data $data, cluster $cluster)"
  # setsid: the node outlives the shell (and a CI step) that started it; stop it by pid.
  # shellcheck disable=SC2086
  setsid java $HEAP -Xms128m -XX:+UseG1GC -XX:MaxGCPauseMillis=20 -Djava.awt.headless=true \
    -Dlog4j.configuration="file:$data/log4j.properties" -Dkafka.logs.dir="$data" \
    -cp "$LIBS/*" kafka.Kafka "$data/server.properties" </dev/null >"$LOG" 2>&1 &
  pid=$!
  echo "$pid" >"$PIDFILE"
  local deadline=$((SECONDS + TIMEOUT))
  until port_open "$PORT" && answers; do
    if ! kill -0 "$pid" 2>/dev/null; then
      say "the broker exited during start"
      log_tail "$LOG"
      rm -f "$PIDFILE"
      exit 1
    fi
    if [ "$SECONDS" -ge "$deadline" ]; then
      say "the broker did not answer on $BROKERS within ${TIMEOUT}s (LINTEL_KAFKA_START_TIMEOUT)"
      log_tail "$LOG"
      cmd_stop
      exit 1
    fi
    sleep 1
  done
  say "running (pid $pid) on $BROKERS"
}

cmd_stop() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then
    say "stopping pid $pid"
    kill -TERM "$pid" 2>/dev/null || true
    local i
    for i in $(seq 1 60); do kill -0 "$pid" 2>/dev/null || break; sleep 0.5; done
    if kill -0 "$pid" 2>/dev/null; then say "pid $pid ignored SIGTERM for 30s: SIGKILL"; kill -KILL "$pid" 2>/dev/null || true; fi
  else
    say "not running"
  fi
  rm -f "$PIDFILE"
  if [ -f "$DATAFILE" ]; then rm -rf "$(cat "$DATAFILE")"; rm -f "$DATAFILE"; fi
}

cmd_status() {
  local pid; pid=$(our_pid)
  if [ -n "$pid" ]; then
    if port_open "$PORT"; then echo "running (pid $pid) on $BROKERS"; else echo "starting (pid $pid), $BROKERS not open yet"; fi
    return 0
  fi
  echo "stopped"
  return 3
}

cmd_env() { echo "LINTEL_KAFKA_BROKERS=$BROKERS"; }

case "${1:-}" in
  install) cmd_install ;;
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  env) cmd_env ;;
  *) echo "usage: $0 install|start|stop|status|env" >&2; exit 2 ;;
esac
