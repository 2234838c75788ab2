// The store contract's lifecycle part (deleted ranges, retention steps interleaved with
// appends; test/engine/store-contract-lifecycle.ts) against a real QuestDB, and its partitions
// dropped once every row in them is detached (engine/store/questdb-store.ts trim).
// Start the server first: scripts/services/questdb.sh start ($LINTEL_QUESTDB_URL, default
// http://127.0.0.1:19000); without one the file skips locally and fails when CI is set.
import t from 'tap'
import type { Observation, TimeseriesStore } from '../../engine/store/port.ts'
import { QuestdbHttp } from '../../engine/store/questdb-http.ts'
import { openQuestdbStore } from '../../engine/store/questdb-store.ts'
import { storeLifecycleContract } from './store-contract-lifecycle.ts'

const URL = process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000'
const RUN = `${Date.now().toString(36)}_${process.pid}`
let tables = 0
const D = 86_400_000_000
const T0 = Date.UTC(2024, 2, 1) * 1000

const why = await fetch(`${URL}/exec?query=${encodeURIComponent('select 1')}`, { signal: AbortSignal.timeout(3000) })
  .then((res) => (res.ok ? undefined : `answered ${res.status}`), (err: Error) => err.message)
if (why !== undefined) {
  const msg = `QuestDB is not reachable at ${URL} (${why}): start it with scripts/services/questdb.sh start, or set LINTEL_QUESTDB_URL`
  if (process.env.CI) t.fail(msg)
  else t.test('QuestDB lifecycle against a real server', { skip: msg }, async () => {})
} else {
  const admin = new QuestdbHttp({ url: URL })
  const created: string[] = []
  t.teardown(async () => {
    for (const name of created) await admin.exec(`DROP TABLE IF EXISTS ${name}`).catch(() => {})
    await admin.close()
  })
  const open = async (table = `lintel_test_lc_${RUN}_${++tables}`): Promise<TimeseriesStore> => {
    created.push(table)
    return openQuestdbStore({ url: URL, table })
  }

  storeLifecycleContract(t, 'questdb', () => open())

  t.test('retention drops the day partitions whose rows are all detached; a partition with kept rows stays', async (t) => {
    const table = `lintel_test_lc_${RUN}_${++tables}`
    const store = await open(table)
    t.teardown(() => store.close())
    const rows: Observation[] = []
    for (let d = 0; d < 5; d++) for (let h = 0; h < 24; h++) for (const series of [1, 2]) rows.push({ series, time: T0 + d * D + h * 3_600_000_000, value: h })
    await store.append(rows)
    const partitions = async () => Number((await admin.exec(`SELECT count() FROM table_partitions('${table}')`))[0][0])
    t.equal(await partitions(), 5)
    t.same(await store.trim!([1], { raw: T0 + 2 * D }, 100), { rows: 48, more: false })
    t.equal(await partitions(), 5, 'series 2 still has rows in every day: nothing dropped')
    t.same(await store.trim!([1, 2], { raw: T0 + 3 * D }, 100), { rows: 96, more: false })
    t.equal(await partitions(), 2, 'the three days before the bound are dropped')
    t.equal(await store.count(2), 48)
    t.same((await store.read(2, { limit: 1 }))[0], { time: T0 + 3 * D, value: 0 })
    t.same(await store.trim!([1, 2], { raw: T0 + 3 * D }, 100), { rows: 0, more: false }, 'nothing left before the bound')
  })
}
