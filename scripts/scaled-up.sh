#!/usr/bin/env bash
# The scaled mode on one machine, every role its own process with its own data directory
# (nothing shared but the engines):
#   scripts/scaled-up.sh start|stop|status
# start: the engines (scripts/services/all.sh start: Redis :16379, QuestDB :19000, Kafka
# :19092, S3Proxy :18333 for documents, PostgreSQL :5432 or :15432 for the catalog), then one
# API (http :8080), two workers and two MQTT brokers (mqtts :8884/:8885, wss :9001/:9002), all
# on 127.0.0.1, every one on the PostgreSQL catalog (LINTEL_CATALOG=postgres).
#   LINTEL_POSTGRES_URL (postgres://postgres@127.0.0.1:5432/lintel, or :15432 where
#                                      scripts/services/postgres.sh runs its own cluster): the
#                                      catalog's database, created when missing
#   LINTEL_SCALED_DIR (./data-scaled)  api/, worker-1/, worker-2/, broker-1/, broker-2/: each
#                                      process's own data directory (its log is out.log, its
#                                      pid pid); no directory is shared; tls/: the certificate
#                                      both brokers serve, read from files (on several
#                                      machines: a copy on each broker's)
#   LINTEL_SCALED_PORTS (8080,8884,8885,9001,9002): the API's HTTP port, the brokers' mqtts
#                                      and wss ports
#   LINTEL_COMPANY_NAME, LINTEL_ADMIN_EMAIL, LINTEL_ADMIN_PASSWORD: the first start's company
#                                      and admin (else the API prints a generated password
#                                      into api/out.log)
# stop: the platform's processes (SIGTERM, graceful); the engines keep running
# (scripts/services/all.sh stop stops them).
set -euo pipefail
cd "$(dirname "$0")/.."
DIR=${LINTEL_SCALED_DIR:-./data-scaled}
ROLES=(api worker-1 worker-2 broker-1 broker-2)
IFS=, read -r HTTP TLS1 TLS2 WS1 WS2 <<<"${LINTEL_SCALED_PORTS:-8080,8884,8885,9001,9002}"

running() { [ -f "$DIR/$1/pid" ] && kill -0 "$(cat "$DIR/$1/pid")" 2>/dev/null; }

start_role() { # name, roles, extra VAR=value...
  local name=$1 roles=$2; shift 2
  if running "$name"; then echo "$name already running (pid $(cat "$DIR/$name/pid"))"; return; fi
  mkdir -p "$DIR/$name"
  env -u LINTEL_CATALOG_DIR "${ENGINES[@]}" LINTEL_ROLES="$roles" LINTEL_NODE_ID="$name" LINTEL_DATA_DIR="$DIR/$name" \
    "$@" node --max-semi-space-size=64 --import tsx server/main.ts >"$DIR/$name/out.log" 2>&1 & # options as npm start's (package.json)
  echo $! >"$DIR/$name/pid"
  # Ready when it printed its roles line (and, for the API, its address).
  for _ in $(seq 1 300); do
    if grep -q '^lintel roles: ' "$DIR/$name/out.log" 2>/dev/null; then echo "$name: $(grep -E '^lintel (roles|listening|mqtt)' "$DIR/$name/out.log" | tr '\n' ' ')"; return; fi
    running "$name" || { echo "$name did not start:" >&2; cat "$DIR/$name/out.log" >&2; exit 1; }
    sleep 0.2
  done
  echo "$name: no ready line within 60 s (see $DIR/$name/out.log)" >&2; exit 1
}

# Creates the URL's database when missing, connected to the server's `postgres` database
# (pg, the catalog's own client library: no psql needed); the processes migrate it at start.
create_database() {
  node --input-type=module -e "
    import pg from 'pg'
    const url = new URL(process.argv[1]), name = decodeURIComponent(url.pathname.slice(1))
    url.pathname = '/postgres'
    const c = new pg.Client({ connectionString: url.toString() })
    await c.connect()
    try {
      const { rowCount } = await c.query('SELECT 1 FROM pg_database WHERE datname = \$1', [name])
      if (!rowCount) { await c.query('CREATE DATABASE ' + c.escapeIdentifier(name)); console.log('catalog: created database ' + name) }
      else console.log('catalog: database ' + name)
    } finally { await c.end() }
  " "$1"
}

case "${1:-}" in
  start)
    scripts/services/all.sh start
    npm run --silent setup:scaled
    SERVICES=$(scripts/services/all.sh env)
    mapfile -t ENGINES < <(grep -E '^LINTEL_(REDIS_URL|QUESTDB|KAFKA_BROKERS|S3_[A-Z_]+)=' <<<"$SERVICES")
    # The catalog: LINTEL_POSTGRES_URL, else database `lintel` on the server the services run.
    SERVER=$(sed -n 's/^LINTEL_TEST_POSTGRES_URL=//p' <<<"$SERVICES")
    PG_URL=${LINTEL_POSTGRES_URL:-${SERVER%/*}/lintel}
    create_database "$PG_URL"
    ENGINES+=(LINTEL_STORE=questdb LINTEL_LOG=kafka LINTEL_BLOBS=s3 LINTEL_CATALOG=postgres LINTEL_POSTGRES_URL="$PG_URL")
    mkdir -p "$DIR/tls"
    if [ ! -f "$DIR/tls/cert.pem" ]; then
      openssl req -x509 -newkey rsa:2048 -nodes -days 825 -subj /CN=localhost -addext 'subjectAltName=DNS:localhost,IP:127.0.0.1' \
        -keyout "$DIR/tls/key.pem" -out "$DIR/tls/cert.pem" 2>/dev/null
    fi
    TLS=(LINTEL_MQTT_CERT_FILE="$DIR/tls/cert.pem" LINTEL_MQTT_KEY_FILE="$DIR/tls/key.pem")
    start_role api api LINTEL_HTTP_PORT="$HTTP"
    start_role worker-1 worker
    start_role worker-2 worker
    start_role broker-1 broker "${TLS[@]}" LINTEL_MQTT_TLS_PORT="$TLS1" LINTEL_MQTT_WS_PORT="$WS1"
    start_role broker-2 broker "${TLS[@]}" LINTEL_MQTT_TLS_PORT="$TLS2" LINTEL_MQTT_WS_PORT="$WS2"
    echo "MQTT clients use $DIR/tls/cert.pem as their CA file"
    ;;
  stop)
    for name in "${ROLES[@]}"; do
      if running "$name"; then kill -TERM "$(cat "$DIR/$name/pid")"; fi
    done
    for name in "${ROLES[@]}"; do
      while running "$name"; do sleep 0.2; done
      rm -f "$DIR/$name/pid"
    done
    echo "stopped (the engines keep running: scripts/services/all.sh stop)"
    ;;
  status)
    for name in "${ROLES[@]}"; do
      if running "$name"; then echo "$name running (pid $(cat "$DIR/$name/pid"))"; else echo "$name stopped"; fi
    done
    ;;
  *) echo "usage: $0 start|stop|status" >&2; exit 2 ;;
esac
