#!/usr/bin/env bash
# System packages the tests and benchmarks need: Debian's MQTT clients (tests) and the
# Mosquitto broker (the peer of the MQTT benchmark). Installs only what is missing.
set -euo pipefail
need=()
command -v mosquitto_pub >/dev/null 2>&1 || need+=(mosquitto-clients)
command -v mosquitto >/dev/null 2>&1 || [ -x /usr/sbin/mosquitto ] || need+=(mosquitto)
if [ ${#need[@]} -gt 0 ]; then
  SUDO=""; [ "$(id -u)" -ne 0 ] && SUDO="sudo"
  $SUDO apt-get update -qq
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
fi
echo "test dependencies present: $(command -v mosquitto_pub)"
