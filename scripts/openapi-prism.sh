#!/usr/bin/env bash
# Validates real traffic against the OpenAPI document with Stoplight Prism (issue 15, item 8):
# a server on a fresh data directory, `prism proxy --errors` in front of it, and the
# representative traffic of the OpenAPI test (a success and a failure per endpoint) sent
# through the proxy. Prints the exchanges Prism refused and the response violations it logged;
# exits 1 on a mismatch (a request meant to succeed refused) or a response violation.
# Needs the npm registry for npx (@stoplight/prism-cli). Usage: bash scripts/openapi-prism.sh
set -euo pipefail
cd "$(dirname "$0")/.."
work=$(mktemp -d)
api_port=${API_PORT:-18080} prism_port=${PRISM_PORT:-4010}
export LINTEL_ADMIN_EMAIL=admin@prism.test LINTEL_ADMIN_PASSWORD=prism-admin-pass
node --import tsx scripts/openapi.ts "$work/openapi.json"
LINTEL_DATA_DIR="$work/data" LINTEL_HTTP_PORT=$api_port LINTEL_MQTT_TLS_PORT=0 LINTEL_MQTT_WS_PORT=0 LINTEL_LOG_LEVEL=warn \
  LINTEL_COMPANY_NAME=Prism setsid node --import tsx server/main.ts > "$work/server.log" 2>&1 &
server=$!
setsid npx -y @stoplight/prism-cli@5.14.2 proxy "$work/openapi.json" "http://127.0.0.1:$api_port" --errors --port "$prism_port" > "$work/prism.log" 2>&1 &
prism=$!
# Each in its own process group (setsid), so npx's children stop with it.
trap 'kill -- -$server -$prism 2>/dev/null || true' EXIT
for _ in $(seq 120); do
  curl -sf "http://127.0.0.1:$api_port/v2/health" > /dev/null && grep -q 'Prism is listening' "$work/prism.log" && break
  sleep 0.5
done
status=0
node --import tsx scripts/openapi-traffic.ts "http://127.0.0.1:$prism_port" > "$work/traffic.txt" || status=1
grep -v '^ok ' "$work/traffic.txt" || true
violations=$(grep -c 'Violation: response' "$work/prism.log" || true)
echo "prism response violations logged: $violations"
echo "(files in $work)"
# Clean: no mismatch on a request meant to succeed and no response violation (exit 1 otherwise).
[ "$violations" = 0 ] || status=1
exit $status
