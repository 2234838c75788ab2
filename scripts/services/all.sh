#!/usr/bin/env bash
# The external systems of the scaled mode, for tests and benchmarks: QuestDB, Kafka (KRaft)
# a Redis of the project's own, S3Proxy (documents on S3) and PostgreSQL (the catalog), on loopback ports that collide
# with nothing standard.
#   scripts/services/all.sh start|stop|status|env
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
case "${1:-}" in
  start) "$here/redis.sh" start; "$here/questdb.sh" start; "$here/kafka.sh" start; "$here/s3proxy.sh" start; "$here/postgres.sh" start ;;
  stop) "$here/postgres.sh" stop || true; "$here/s3proxy.sh" stop || true; "$here/kafka.sh" stop || true; "$here/questdb.sh" stop || true; "$here/redis.sh" stop || true ;;
  status) "$here/redis.sh" status; "$here/questdb.sh" status; "$here/kafka.sh" status; "$here/s3proxy.sh" status; "$here/postgres.sh" status ;;
  env) "$here/redis.sh" env; "$here/questdb.sh" env; "$here/kafka.sh" env; "$here/s3proxy.sh" env; "$here/postgres.sh" env ;;
  *) echo "usage: $0 start|stop|status|env" >&2; exit 2 ;;
esac
