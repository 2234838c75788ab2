// The set-up commands (issue 15 items 6, 7, 11): the embedded set-up (`npm ci`) does not build
// node-rdkafka, the scaled set-up installs a pinned version; `npm start` is the server process
// itself; the supported Node.js versions are declared and each has a SQLite driver.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { loadRdKafka } from '../../engine/log/kafka-rdkafka.ts'
import { Database, sqliteDriver } from '../../core/sqlite-driver.ts'

const pkg = JSON.parse(readFileSync('package.json', 'utf8'))
const lock = JSON.parse(readFileSync('package-lock.json', 'utf8'))

t.test('node-rdkafka: not installed by npm ci, installed pinned by the scaled set-up', async (t) => {
  for (const field of ['dependencies', 'optionalDependencies', 'devDependencies', 'peerDependencies']) {
    t.notOk(pkg[field]?.['node-rdkafka'], `not in ${field}`)
  }
  t.notOk(lock.packages['node_modules/node-rdkafka'], 'not in the lockfile, so npm ci never compiles it')
  t.notOk(lock.packages['']?.optionalDependencies?.['node-rdkafka'])
  t.match(pkg.scripts['setup:scaled'], /npm install --no-save node-rdkafka@\d+\.\d+\.\d+$/, 'a pinned version')
  t.match(readFileSync('scripts/install-test-deps.sh', 'utf8'), /npm run --silent setup:scaled/, 'the test set-up installs it')
})

t.test('the Kafka client is loaded lazily, with a clear error when missing', async (t) => {
  const source = readFileSync('engine/log/kafka-rdkafka.ts', 'utf8')
  t.notMatch(source, /^import .*node-rdkafka/m, 'no static import')
  try {
    await loadRdKafka()
    t.pass('installed here (npm run setup:scaled ran)')
  } catch (err) {
    t.match((err as Error).message, /needs node-rdkafka, which is not installed or failed to build \(the scaled set-up installs it: npm run setup:scaled\)/)
  }
})

t.test('npm start execs the server, so signals to its pid reach it', async (t) => {
  t.match(pkg.scripts.start, /^exec node /)
})

t.test('supported Node.js versions: 20, 22, 24, each with a SQLite driver that works on it', async (t) => {
  t.equal(pkg.engines.node, '^20.17.0 || ^22.9.0 || ^24.0.0')
  const major = Number(process.versions.node.split('.')[0])
  t.equal(sqliteDriver, major >= 22 ? 'better-sqlite3 13 (Node-API)' : 'better-sqlite3 12')
  t.same(new Database(':memory:').prepare('SELECT 1 + 1 AS two').get(), { two: 2 })
  t.equal(lock.packages['node_modules/better-sqlite3-napi']?.version, '13.2.0', 'the Node-API driver is locked')
  t.notOk(lock.packages['node_modules/better-sqlite3-napi']?.hasInstallScript, 'and ships its binary: nothing to compile')
})
