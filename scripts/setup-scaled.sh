#!/usr/bin/env bash
# node-rdkafka, the scaled mode's Kafka client, at its pinned version (`npm run setup:scaled`).
# It is not in package.json: the embedded set-up never builds it. `npm install --no-save`
# compiles it with its bundled librdkafka, about 2 minutes on 2 cores, so the built package is
# kept in a cache outside the clone (CI runs on a fresh clone on the same machine) and unpacked
# from there next time, keyed by version, Node's module ABI, platform and CPU; a cached copy
# that does not load is removed and built again. LINTEL_BUILD_CACHE: another cache folder.
set -euo pipefail
cd "$(dirname "$0")/.."
VERSION=3.6.1
node -e "require.resolve('node-rdkafka')" 2>/dev/null && exit 0
key="node-rdkafka-$VERSION-$(node -p 'process.versions.modules + "-" + process.platform + "-" + process.arch')"
cache="${LINTEL_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/lintel}"
tarball="$cache/$key.tgz"
if [ -s "$tarball" ]; then
  if tar -xzf "$tarball" -C node_modules && node -e "require('node-rdkafka')" 2>/dev/null; then echo "node-rdkafka $VERSION from $tarball"; exit 0; fi
  echo "node-rdkafka from $tarball does not load: building it again" >&2
  rm -rf node_modules/node-rdkafka "$tarball"
fi
npm install --no-save "node-rdkafka@$VERSION"
node -e "require('node-rdkafka')"
# Kept: what loads at run time (lib, the addon, the librdkafka libraries it links in build/deps);
# not the 470 MB of librdkafka's sources and objects.
mkdir -p "$cache"
tar -czf "$tarball.$$" -C node_modules --exclude=node-rdkafka/deps/librdkafka --exclude=node-rdkafka/build/Release/obj.target node-rdkafka
mv "$tarball.$$" "$tarball"
echo "node-rdkafka $VERSION built, kept in $tarball"
