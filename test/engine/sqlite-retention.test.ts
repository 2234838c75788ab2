// Retention in the SQLite store (engine/store/sqlite-trim.ts; issue 34 item 2): the disk
// space of removed rows really goes back to the file system (auto_vacuum = INCREMENTAL and the
// checkpointer's truncation), and raw retention alone leaves the rollups answering sampled reads.
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { Database } from '../../core/sqlite-driver.ts'
import type { Observation } from '../../engine/store/port.ts'
import { DB_FILE } from '../../engine/store/sqlite-schema.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { waitFor } from '../helpers/wait.ts'
import { everythingBefore, storeLifecycleContract, trimAll } from './store-contract-lifecycle.ts'

const M = 60_000_000
const DAY = 1440 * M
const DAY0 = Date.UTC(2024, 2, 1) * 1000

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-retention-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

// The store contract's lifecycle part on the three tail settings of test/engine/sqlite-store.test.ts.
storeLifecycleContract(t, 'sqlite', async () => openSqliteStore({ dir: tempDir(t) }))
storeLifecycleContract(t, 'sqlite, no tail', async () => openSqliteStore({ dir: tempDir(t), tailRows: 0 }))
storeLifecycleContract(t, 'sqlite, tail of 7 rows', async () => openSqliteStore({ dir: tempDir(t), tailRows: 7 }))

t.test('a retention sweep of 90% of the rows shrinks the database file', async (t) => {
  const dir = tempDir(t)
  const file = join(dir, DB_FILE)
  let store = await openSqliteStore({ dir })
  // 20 series, one row a minute for 10 days: 288,000 rows.
  for (let day = 0; day < 10; day++) {
    const batch: Observation[] = []
    for (let m = 0; m < 1440; m++) for (let s = 1; s <= 20; s++) batch.push({ series: s, time: DAY0 + day * DAY + m * M, value: s * 1000 + m })
    await store.append(batch)
  }
  await store.close() // the last connection checkpoints the whole WAL into the file
  const full = statSync(file).size
  const db = new Database(file, { readonly: true })
  t.equal(db.pragma('auto_vacuum', { simple: true }), 2, 'a new store file is incremental auto-vacuum')
  db.close()
  store = await openSqliteStore({ dir })
  t.teardown(() => store.close())
  const removed = await trimAll(store, Array.from({ length: 20 }, (_, i) => i + 1), everythingBefore(DAY0 + 9 * DAY), 20_000)
  t.ok(removed >= 259_200, `${removed} rows removed (259,200 raw and their rollups)`)
  t.equal(await store.count(1), 1440, 'the last day stays')
  // The freed pages leave the file when the checkpointer has copied the vacuum's commit.
  const shrunk = await waitFor(() => { const s = statSync(file).size; return s < full * 0.3 ? s : undefined }, { what: () => `the file to shrink below 30% of ${full} bytes (now ${statSync(file).size})`, timeoutMs: 20_000 })
  t.ok(shrunk < full * 0.3, `the file went from ${full} to ${shrunk} bytes`)
  t.same((await store.read(1, { limit: 1 }))[0], { time: DAY0 + 9 * DAY, value: 1000 })
})

t.test('raw retention alone: raw rows go, the rollups keep answering sampled reads of that time', async (t) => {
  const store = await openSqliteStore({ dir: tempDir(t) })
  t.teardown(() => store.close())
  const batch: Observation[] = []
  for (let m = 0; m < 2 * 1440; m++) batch.push({ series: 1, time: DAY0 + m * M, value: m % 60 })
  await store.append(batch)
  await trimAll(store, [1], { raw: DAY0 + DAY })
  t.equal(await store.count(1), 1440, 'raw rows before the bound are gone')
  t.equal(await store.count(1, DAY0, DAY0 + DAY), 0)
  t.same(await store.sample(1, { start: DAY0, end: DAY0 + 2 * DAY, interval: DAY, aggregate: 'count' }), [{ time: DAY0, mean: 1440 }, { time: DAY0 + DAY, mean: 1440 }],
    'a day bucket of the first day still answers from its rollup')
  t.same(await store.sample(1, { start: DAY0, end: DAY0 + DAY, interval: 60 * M, aggregate: 'mean' }).then((p) => p.length), 24, 'and the hourly ones')
  await trimAll(store, [1], everythingBefore(DAY0 + DAY))
  t.same(await store.sample(1, { start: DAY0, end: DAY0 + 2 * DAY, interval: DAY, aggregate: 'count' }), [{ time: DAY0 + DAY, mean: 1440 }], 'gone once the rollup levels are trimmed too')
})
