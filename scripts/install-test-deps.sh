#!/usr/bin/env bash
# What the tests need besides npm packages: Debian's MQTT clients (tests), Chromium and Firefox ESR (the console's browser tests), the Mosquitto
# broker (the peer of the MQTT benchmark), Redis, and the scaled mode's QuestDB, Kafka, PostgreSQL (its own
# cluster only where none answers on :5432) and S3Proxy (jars from Maven Central, cached under .cache/services), which are then started on
# loopback. Installs only what is missing; starting is idempotent. node-rdkafka (the scaled
# mode's Kafka client, ~2 minutes to compile) is not in package.json: the embedded set-up never
# builds it; `npm run setup:scaled` installs its pinned version here and for the scaled mode.
set -euo pipefail
need=()
command -v mosquitto_pub >/dev/null 2>&1 || need+=(mosquitto-clients)
command -v jq >/dev/null 2>&1 || need+=(jq)   # the README's token line
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
command -v redis-server >/dev/null 2>&1 || need+=(redis-server)
command -v java >/dev/null 2>&1 || need+=(default-jre-headless)
command -v mvn >/dev/null 2>&1 || need+=(maven)
command -v chromium >/dev/null 2>&1 || need+=(chromium)   # the console's browser tests (playwright-core drives it)
command -v firefox-esr >/dev/null 2>&1 || need+=(firefox-esr)   # test/console/firefox.test.ts (puppeteer-core drives it)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "test dependencies present: $(command -v mosquitto_pub)"
# node-rdkafka compiles (about 2 minutes on a clean clone) while the services start, which is
# mostly Java start-up and waiting for health: neither needs the other. Its output is printed
# after, in one piece.
rdkafka_log="$(mktemp)"
(cd "$(dirname "$0")/.." && npm run --silent setup:scaled) >"$rdkafka_log" 2>&1 &
rdkafka_pid=$!
services=0
"$(dirname "$0")/services/all.sh" start || services=$?
rdkafka=0
wait "$rdkafka_pid" || rdkafka=$?
cat "$rdkafka_log"; rm -f "$rdkafka_log"
[ "$rdkafka" -eq 0 ] || { echo "npm run setup:scaled (node-rdkafka) failed (exit $rdkafka)" >&2; exit "$rdkafka"; }
exit "$services"
