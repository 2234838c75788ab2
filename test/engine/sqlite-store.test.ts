// The SQLite store: the shared contract plus what only this adapter promises (query plans,
// files, reopening, the pending bound, the packing helpers).
import { Database } from '../../core/sqlite-driver.ts'
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { OverloadedError } from '../../core/errors.ts'
import type { Observation } from '../../engine/store/port.ts'
import { concat, pack, seriesRuns, writeOrder } from '../../engine/store/sqlite-batch.ts'
import { DENSE_SAMPLE_SQL, RANGE_FIRST_SQL, RANGE_LAST_SQL, SPARSE_SAMPLE_SQL, floorDiv } from '../../engine/store/sqlite-reader.ts'
import { DB_FILE, openWriterDatabase } from '../../engine/store/sqlite-schema.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { storeContract } from './store-contract.ts'
import { waitFor } from '../helpers/wait.ts'

function tempDir(t: Test): string {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-store-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return dir
}

storeContract(t, 'sqlite', async () => openSqliteStore({ dir: tempDir(t) }))
// The same contract without the tail (appends straight into obs), and with a tail of a few
// rows (reads merge obs, a tail compacted in between, and what is still in it).
storeContract(t, 'sqlite, no tail', async () => openSqliteStore({ dir: tempDir(t), tailRows: 0 }))
storeContract(t, 'sqlite, tail of 7 rows', async () => openSqliteStore({ dir: tempDir(t), tailRows: 7 }))

t.test('query plans: one primary-key range, no temp B-tree for dense sampling', async (t) => {
  const dir = tempDir(t)
  const store = await openSqliteStore({ dir })
  await store.append([{ series: 1, time: 1, value: 1 }])
  const db = new Database(join(dir, DB_FILE), { readonly: true })
  t.teardown(async () => { db.close(); await store.close() })
  const plan = (sql: string, ...args: unknown[]) => (db.prepare('EXPLAIN QUERY PLAN ' + sql).all(...args) as Array<{ detail: string }>).map((r) => r.detail)
  const range = 'SEARCH obs USING PRIMARY KEY (series=? AND time>? AND time<?)'
  for (const sql of [RANGE_FIRST_SQL, RANGE_LAST_SQL]) t.same(plan(sql, 1, 0, 10, 5), [range], sql)
  const dense = plan(DENSE_SAMPLE_SQL, { s: 1, b0: 0n, iv: 10n, nb: 5, a: 0, e: 10 })
  t.ok(dense.includes(range), `dense sample seeks the series range: ${dense.join(' | ')}`)
  t.notOk(dense.some((d) => d.includes('TEMP B-TREE')), 'dense sample needs no sort')
  t.notOk(dense.some((d) => d.startsWith('SCAN obs')), 'dense sample never scans the table')
  const sparse = plan(SPARSE_SAMPLE_SQL, { s: 1, iv: 10n, a: 0, e: 10 })
  t.equal(sparse[0], range, 'sparse sample reads only the series range')
})

t.test('files live under dir; data survives close and reopen', async (t) => {
  const dir = join(tempDir(t), 'nested', 'ts')
  let store = await openSqliteStore({ dir })
  t.ok(existsSync(join(dir, DB_FILE)))
  await store.append([{ series: 3, time: -5, value: 2.5 }, { series: 3, time: 7, value: 3.5 }])
  await store.close()
  await store.close()
  await t.rejects(store.append([{ series: 3, time: 8, value: 1 }]), /closed/, 'append after close rejects')
  await t.rejects(store.read(3, {}), /closed/)
  store = await openSqliteStore({ dir })
  t.same(await store.read(3, {}), [{ time: -5, value: 2.5 }, { time: 7, value: 3.5 }])
  t.same(await store.listSeries(), [3])
  await store.close()
})

t.test('a file that is not a store fails to open, with the path in the message', async (t) => {
  const dir = tempDir(t)
  writeFileSync(join(dir, DB_FILE), 'not a database, just text '.repeat(200))
  await t.rejects(openSqliteStore({ dir }), { message: new RegExp(`cannot open time-series store .*${DB_FILE}`) })
})

t.test('pending observations are bounded', async (t) => {
  const store = await openSqliteStore({ dir: tempDir(t), maxPendingRows: 1000 })
  t.teardown(() => store.close())
  const batch = (k: number) => Array.from({ length: 600 }, (_, i) => ({ series: 1, time: k * 1000 + i, value: i }))
  const first = store.append(batch(0))
  // The bound is checked when append() is called, before anything is awaited.
  const second = store.append(batch(1)).catch((e: unknown) => e)
  t.type(await second, OverloadedError)
  t.match(await second, { code: 'OVERLOADED', status: 503 })
  await first
  await store.append(batch(2))
  t.equal(await store.count(1), 1200)
})

t.test('sample rejects an interval that is not a positive integer', async (t) => {
  const store = await openSqliteStore({ dir: tempDir(t) })
  t.teardown(() => store.close())
  for (const interval of [0, -5, 1.5, NaN]) t.type(await store.sample(1, { interval }).catch((e: unknown) => e), RangeError)
})

t.test('pack: NaN values dropped, fractional times floored', async (t) => {
  const batch: Observation[] = [
    { series: 1, time: 10, value: 1 }, { series: 1, time: 11, value: NaN },
    { series: 2, time: -1.5, value: 2 }, { series: 2, time: Infinity, value: 3 }, { series: 3, time: 1, value: Infinity },
  ]
  const p = pack(batch)
  t.equal(p.rows, 3)
  t.equal(p.dropped, 2)
  t.same(Array.from(p.data), [1, 10, 1, 2, -2, 2, 3, 1, Infinity])
  t.same(Array.from(concat([pack([batch[0]]).data, pack([batch[2]]).data])), [1, 10, 1, 2, -2, 2])
})

t.test('writeOrder: by series then time, arrival order kept for equal keys', async (t) => {
  const rows = [[2, 5, 0], [1, 9, 1], [2, 1, 2], [1, 9, 3], [1, 3, 4], [3, 0, 5], [2, 5, 6]]
  const data = Float64Array.from(rows.flat())
  const order = Array.from(writeOrder(data))
  t.same(order.map((i) => rows[i][2]), [4, 1, 3, 2, 0, 6, 5])
  t.same(Array.from(writeOrder(Float64Array.from([1, 1, 0, 1, 2, 0, 2, 0, 0]))), [0, 1, 2], 'sorted input kept')
  t.same(Array.from(writeOrder(new Float64Array(0))), [])
})

t.test('seriesRuns: per series, times ascending and distinct, the last arrival of a time winning', async (t) => {
  const rows = [[2, 5, 0], [1, 9, 1], [2, 1, 2], [1, 9, 3], [1, 3, 4], [3, 0, 5], [2, 5, 6]]
  const data = Float64Array.from(rows.flat())
  const runs = seriesRuns(data, writeOrder(data)).map((r) => ({ series: r.series, times: Array.from(r.times), values: Array.from(r.values) }))
  t.same(runs, [
    { series: 1, times: [3, 9], values: [4, 3] },
    { series: 2, times: [1, 5], values: [2, 6] },
    { series: 3, times: [0], values: [5] },
  ])
  t.same(seriesRuns(new Float64Array(0), new Uint32Array(0)), [])
})

t.test('floorDiv is exact at bucket edges and before 1970', async (t) => {
  t.equal(floorDiv(-1, 10), -1)
  t.equal(floorDiv(-10, 10), -1)
  t.equal(floorDiv(-11, 10), -2)
  t.equal(floorDiv(0, 10), 0)
  const iv = 900_000_000
  const edge = 1_900_000 * iv
  t.equal(floorDiv(edge - 1, iv), 1_899_999)
  t.equal(floorDiv(edge, iv), 1_900_000)
})

t.test('ingest tail: appends are committed to the tail, read from it, and moved into obs and the rollups', async (t) => {
  const dir = tempDir(t)
  const M = 60_000_000
  const F = 15 * M
  let store = await openSqliteStore({ dir, tailMs: 60_000 })
  const db = new Database(join(dir, DB_FILE), { readonly: true })
  t.teardown(async () => { db.close(); await store.close() })
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
  // Compacted rows of series 1 (obs and rollups), then newer rows in the tail.
  await store.append([{ series: 1, time: 0, value: 1 }, { series: 1, time: F, value: 2 }])
  await store.close()
  t.equal(count('obs'), 2, 'close compacts the tail')
  t.equal(count('obs_tail'), 0)
  store = await openSqliteStore({ dir, tailMs: 60_000 })
  await store.append([{ series: 1, time: F, value: 20 }, { series: 1, time: F + 5, value: 3 }, { series: 2, time: 7, value: 4 }])
  await store.append([{ series: 1, time: F + 5, value: 30 }])
  t.equal(count('obs_tail'), 4, 'appends went to the tail')
  t.equal(count('obs'), 2, 'and not to obs')
  t.same(db.prepare('SELECT series, min_time FROM tail_series ORDER BY series').raw().all(), [[1, F], [2, 7]])
  // Reads merge: the tail replaces obs's value at F, and the later of two tail rows wins.
  const all = [{ time: 0, value: 1 }, { time: F, value: 20 }, { time: F + 5, value: 30 }]
  t.same(await store.read(1, {}), all)
  t.same(await store.read(1, { limit: 2 }), all.slice(0, 2))
  t.same(await store.read(1, { from: 'last', limit: 2 }), all.slice(1))
  t.same(await store.read(1, { from: 'last', limit: 1, end: F }), all.slice(0, 1), 'a range ending before the tail reads obs')
  t.equal(await store.count(1), 3)
  t.equal(await store.count(1, F + 1), 1)
  t.same(await store.listSeries(), [1, 2])
  // Buckets before the tail's earliest time from obs/rollups, the rest from merged rows.
  t.same(await store.sample(1, { interval: F }), [{ time: 0, mean: 1 }, { time: F, mean: 25 }])
  t.same(await store.sample(1, { interval: 1440 * M, aggregate: 'count' }), [{ time: 0, mean: 3 }])
  t.same(await store.sample(1, { interval: F, aggregate: 'max', start: F }), [{ time: F, mean: 30 }])
  // A replaced range compacts first and then replaces what obs holds.
  await store.replaceRange(1, F, 2 * F, [{ time: F + 1, value: 9 }])
  t.equal(count('obs_tail'), 0)
  t.same(await store.read(1, {}), [{ time: 0, value: 1 }, { time: F + 1, value: 9 }])
  t.same(db.prepare('SELECT bucket, count, sum FROM rollup WHERE series = 1 AND level = ? ORDER BY bucket').raw().all(F), [[0, 1, 1], [F, 1, 9]])
  // A delete compacts first, then removes the series from obs and its rollups.
  await store.append([{ series: 2, time: 8, value: 5 }])
  await store.deleteSeries([2])
  t.same(await store.read(2, {}), [])
  t.same(await store.listSeries(), [1])
})

t.test('ingest tail: compacted when it is due by size or age, and a tail left by a crash is read and compacted', async (t) => {
  const dir = tempDir(t)
  const db = () => new Database(join(dir, DB_FILE), { readonly: true })
  const count = (table: string) => { const d = db(); try { return d.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number } finally { d.close() } }
  let store = await openSqliteStore({ dir, tailRows: 3, tailMs: 60_000 })
  await store.append([{ series: 1, time: 1, value: 1 }, { series: 1, time: 2, value: 2 }])
  t.equal(count('obs_tail'), 2, 'below the size: stays')
  // Compaction runs after the append is answered: wait for it (at most 5 s).
  const drained = async () => {
    await waitFor(() => count('obs_tail') === 0, { what: () => `the compaction of the ingest tail (${count('obs_tail')} rows left)` })
    return count('obs_tail')
  }
  await store.append([{ series: 1, time: 3, value: 3 }])
  t.equal(await drained(), 0, 'at the size: compacted')
  t.equal(count('obs'), 3)
  await store.close()
  store = await openSqliteStore({ dir, tailMs: 50 })
  await store.append([{ series: 1, time: 4, value: 4 }])
  t.equal(await drained(), 0, 'older than tailMs: compacted without another append')
  t.equal(count('rollup'), 3, 'with its rollups')
  await store.close()
  // A tail as a killed writer leaves it: rows committed to obs_tail, never compacted.
  const w = new Database(join(dir, DB_FILE))
  w.prepare('INSERT INTO obs_tail (series, time, value) VALUES (1, 5, 5), (1, 4, 40)').run()
  w.prepare('INSERT OR REPLACE INTO tail_series VALUES (1, 4)').run()
  w.close()
  store = await openSqliteStore({ dir, tailMs: 60_000 })
  t.teardown(() => store.close())
  t.same(await store.read(1, { start: 3 }), [{ time: 3, value: 3 }, { time: 4, value: 40 }, { time: 5, value: 5 }], 'read from the tail after reopening')
  await store.close()
  t.equal(count('obs_tail'), 0)
  t.same(db().prepare('SELECT time, value FROM obs WHERE series = 1 AND time >= 4').raw().all(), [[4, 40], [5, 5]], 'and compacted into obs')
})

t.test('the checkpointer copies committed WAL frames into the file, beside the writer', async (t) => {
  // The writer's own checkpoint runs only every 32 MiB of WAL; a small append is copied by
  // the checkpointer worker. The WAL index (-shm) says how far: mxFrame at byte 16 of its
  // header, nBackfill (frames copied) at byte 96 (SQLite's wal.c layout, native byte order).
  const dir = tempDir(t)
  const store = await openSqliteStore({ dir, tailRows: 0 })
  t.teardown(() => store.close())
  await store.append([{ series: 1, time: 1, value: 1 }, { series: 2, time: 1, value: 2 }])
  const shm = () => readFileSync(join(dir, DB_FILE + '-shm'))
  const frames = () => { const b = shm(); return { mx: b.readUInt32LE(16), backfill: b.readUInt32LE(96) } }
  t.ok(frames().mx > 0, 'the append is in the WAL')
  await waitFor(() => frames().backfill >= frames().mx, { what: () => `the checkpointer to copy every WAL frame (${JSON.stringify(frames())})` })
  const f = frames()
  t.equal(f.backfill, f.mx, `every frame copied (${f.backfill} of ${f.mx})`)
  t.same(await store.read(2, {}), [{ time: 1, value: 2 }])
})

t.test('rollups: kept equal to the raw rows through overwrites, late data and deletes', async (t) => {
  const dir = tempDir(t)
  // No tail: the rollups are checked after each append.
  const store = await openSqliteStore({ dir, tailRows: 0 })
  const db = new Database(join(dir, DB_FILE), { readonly: true })
  t.teardown(async () => { db.close(); await store.close() })
  const M = 60_000_000
  const F = 15 * M
  const rows = (level: number) => db.prepare('SELECT bucket, count, sum, min, max, first, last FROM rollup WHERE series = 1 AND level = ? ORDER BY bucket').raw().all(level) as number[][]
  await store.append([{ series: 1, time: 10, value: 5 }, { series: 1, time: 20, value: 1 }, { series: 1, time: F + 1, value: 7 }])
  t.same(rows(F), [[0, 2, 6, 1, 5, 5, 1], [F, 1, 7, 7, 7, 7, 7]])
  t.same(rows(M), [], 'no 1-minute level: one more row per observation of 1-minute data')
  // Overwrite the minimum: a running min could not take it back out.
  await store.append([{ series: 1, time: 20, value: 9 }])
  t.same(rows(F)[0], [0, 2, 14, 5, 9, 5, 9])
  // Late data before the first row changes `first` of every level.
  await store.append([{ series: 1, time: 0, value: -3 }])
  for (const level of [F, 60 * M, 1440 * M]) t.same(rows(level)[0].slice(1), level === F ? [3, 11, -3, 9, -3, 9] : [4, 18, -3, 9, -3, 7], `level ${level}`)
  await store.deleteSeries([1])
  t.same(rows(F), [], 'deleted with the series')
})

t.test('rollups: the writer remembers newest buckets across commits, and forgets them when rows change otherwise', async (t) => {
  // In-order appends merge into the remembered newest bucket without reading it back
  // (sqlite-rollups.ts); replace, late data and delete must leave no stale memory behind.
  const dir = tempDir(t)
  const store = await openSqliteStore({ dir, tailRows: 0 })
  const db = new Database(join(dir, DB_FILE), { readonly: true })
  t.teardown(async () => { db.close(); await store.close() })
  const M = 60_000_000
  const levels = [15 * M, 60 * M, 1440 * M]
  const stored = db.prepare('SELECT level, bucket, count, sum, min, max, first, last FROM rollup WHERE series = 7 ORDER BY level, bucket').raw()
  const raw = db.prepare('SELECT time, value FROM obs WHERE series = 7 ORDER BY time').raw()
  const expected = () => {
    const out: number[][] = []
    for (const level of levels) {
      const by = new Map<number, number[]>()
      for (const [time, value] of raw.all() as number[][]) {
        const b = Math.floor(time / level) * level
        const r = by.get(b)
        if (!r) by.set(b, [level, b, 1, value, value, value, value, value])
        else { r[2]++; r[3] += value; r[4] = Math.min(r[4], value); r[5] = Math.max(r[5], value); r[7] = value }
      }
      out.push(...by.values())
    }
    return out
  }
  const check = (what: string) => t.same(stored.all(), expected(), what)
  let time = 0
  const inOrder = async (n: number, value: (i: number) => number) => {
    const batch: Observation[] = []
    for (let i = 0; i < n; i++) batch.push({ series: 7, time: time += 2 * M, value: value(i) })
    await store.append(batch)
  }
  await inOrder(3, (i) => i)
  await inOrder(2, (i) => 10 - i) // the same 15-minute bucket, two commits later
  check('in-order commits merge into the newest buckets')
  await store.replaceRange(7, 4 * M, 9 * M, [{ time: 5 * M, value: 100 }])
  check('a replaced range recomputes the buckets')
  await inOrder(2, () => -1)
  check('in-order commits after a replace')
  await store.append([{ series: 7, time: 3 * M, value: 50 }])
  await inOrder(1, () => 2)
  check('late data, then in order again')
  await store.deleteSeries([7])
  time = 0
  await inOrder(2, (i) => i + 0.5)
  check('a deleted series starts afresh')
})

t.test('a store file of schema version 1 gets its rollups built when opened', async (t) => {
  const dir = tempDir(t)
  const old = new Database(join(dir, DB_FILE))
  old.exec('CREATE TABLE obs (series INTEGER NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (series, time)) STRICT, WITHOUT ROWID')
  const put = old.prepare('INSERT INTO obs VALUES (?, ?, ?)')
  for (let i = 0; i < 600; i++) put.run(2, i * 60_000_000, i)
  old.pragma('user_version = 1')
  old.close()
  const store = await openSqliteStore({ dir })
  t.teardown(() => store.close())
  const HOUR = 3_600_000_000
  t.same(await store.sample(2, { interval: HOUR, aggregate: 'sum' }), Array.from({ length: 10 }, (_, h) => ({ time: h * HOUR, mean: 60 * 60 * h + 1770 })))
  t.same(await store.sample(2, { interval: 24 * HOUR, aggregate: 'count' }), [{ time: 0, mean: 600 }])
})

t.test('a store file of schema version 2 gets its rollups rebuilt: stale buckets of replaced ranges go', async (t) => {
  const dir = tempDir(t)
  const HOUR = 3_600_000_000
  const first = await openSqliteStore({ dir })
  await first.append([{ series: 4, time: 0, value: 1 }, { series: 4, time: 2 * HOUR, value: 5 }])
  await first.close()
  // What version 2 could leave behind: an hourly rollup of a bucket without raw rows.
  const old = new Database(join(dir, DB_FILE))
  old.prepare('INSERT OR REPLACE INTO rollup VALUES (4, ?, ?, 3, 30, 1, 20, 1, 20)').run(HOUR, HOUR)
  old.pragma('user_version = 2')
  old.close()
  const store = await openSqliteStore({ dir })
  t.teardown(() => store.close())
  t.same(await store.sample(4, { interval: HOUR }), [{ time: 0, mean: 1 }, { time: 2 * HOUR, mean: 5 }])
  t.same(await store.sample(4, { interval: 24 * HOUR, aggregate: 'count' }), [{ time: 0, mean: 2 }])
})

/** A store file as the first versions wrote it: 1 KiB pages, schema version 1. */
function writeOneKibStore(dir: string): void {
  const old = new Database(join(dir, DB_FILE))
  old.pragma('page_size = 1024')
  old.exec('CREATE TABLE obs (series INTEGER NOT NULL, time INTEGER NOT NULL, value REAL NOT NULL, PRIMARY KEY (series, time)) STRICT, WITHOUT ROWID')
  old.pragma('user_version = 1')
  old.close()
}

t.test('the writer checkpoints the WAL itself at 32 MiB, whatever the page size of its file', async (t) => {
  // The checkpointer worker copies most frames before; the writer's own checkpoint is the
  // backstop. Counted in pages, so a file that kept 1 KiB pages needs 4x as many.
  const fresh = tempDir(t)
  const a = openWriterDatabase(join(fresh, DB_FILE))
  t.equal(a.db.pragma('page_size', { simple: true }), 4096)
  t.equal(a.db.pragma('wal_autocheckpoint', { simple: true }), 8192)
  a.db.close()

  const older = tempDir(t)
  writeOneKibStore(older)
  const b = openWriterDatabase(join(older, DB_FILE))
  t.equal(b.db.pragma('page_size', { simple: true }), 1024)
  t.equal(b.db.pragma('wal_autocheckpoint', { simple: true }), 32768)
  b.db.close()
})

t.test('a new store file has 4 KiB pages; a file with 1 KiB pages keeps them and works', async (t) => {
  const fresh = tempDir(t)
  const a = await openSqliteStore({ dir: fresh })
  await a.append([{ series: 1, time: 1, value: 1 }])
  await a.close()
  const dbA = new Database(join(fresh, DB_FILE), { readonly: true })
  t.equal(dbA.pragma('page_size', { simple: true }), 4096)
  dbA.close()

  const older = tempDir(t)
  writeOneKibStore(older)
  const b = await openSqliteStore({ dir: older })
  t.teardown(() => b.close())
  await b.append([{ series: 2, time: 5, value: 7 }])
  t.same(await b.read(2, {}), [{ time: 5, value: 7 }])
  const dbB = new Database(join(older, DB_FILE), { readonly: true })
  t.equal(dbB.pragma('page_size', { simple: true }), 1024)
  dbB.close()
})
