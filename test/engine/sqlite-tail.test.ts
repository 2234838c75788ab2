// The ingest tail's compaction in steps (engine/store/sqlite-tail.ts), driven directly on a
// store file with a reader on its own connection: between any two steps, with appends in
// between (overwrites, late rows), reads give exactly what was appended, the last arrival
// winning, and raw rows, counts and rollup-backed samples agree.
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { writeOrder } from '../../engine/store/sqlite-batch.ts'
import { SqliteReader } from '../../engine/store/sqlite-reader.ts'
import { openReaderDatabase, openWriterDatabase } from '../../engine/store/sqlite-schema.ts'
import { IngestTail, type StepSize } from '../../engine/store/sqlite-tail.ts'
import { expectedAggregates, prng } from './store-contract.ts'

const M = 60_000_000

function open(t: Test, step: StepSize) {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-tail-'))
  const file = join(dir, 'timeseries.db')
  const { db, rollups } = openWriterDatabase(file)
  const put = db.prepare('INSERT OR REPLACE INTO obs (series, time, value) VALUES (?, ?, ?)')
  // The writer's insert, plainly: rows in write order, then each touched series' rollups recomputed.
  const insertRows = (data: Float64Array) => {
    const times = new Map<number, number[]>()
    for (const i of writeOrder(data)) {
      put.run(data[3 * i], data[3 * i + 1], data[3 * i + 2])
      const ts = times.get(data[3 * i]) ?? []
      ts.push(data[3 * i + 1])
      times.set(data[3 * i], ts)
    }
    for (const [s, ts] of times) rollups.update(s, ts)
  }
  // A new IngestTail on the same file is what a writer started after a kill -9 builds.
  const restart = () => { rollups.forgetAll(); return new IngestTail(db, insertRows, () => rollups.forgetAll(), step) }
  const tail = restart()
  const rdb = openReaderDatabase(file)
  const reader = new SqliteReader(rdb)
  const count = (table: string) => db.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number
  t.teardown(() => { rdb.close(); db.close(); rmSync(dir, { recursive: true, force: true }) })
  return { tail, reader, count, restart }
}

const pack = (rows: Array<[number, number, number]>) => Float64Array.from(rows.flat())

t.test('steps move one part each; appends after the freeze win over frozen rows', async (t) => {
  const { tail, reader, count } = open(t, { series: 1, rows: 1000 })
  tail.append(pack([[1, 1, 10], [2, 1, 20], [3, 1, 30], [1, 2, 11]]))
  tail.freeze()
  t.equal(tail.compacting, true)
  tail.append(pack([[1, 2, 99], [3, 0, 5]])) // an overwrite and a late row, after the freeze
  t.equal(tail.rows, 6)
  tail.step() // series 1
  t.equal(count('obs'), 2)
  t.same(reader.read(1, {}), [{ time: 1, value: 10 }, { time: 2, value: 99 }], 'the later row wins over the compacted one')
  t.same(reader.read(2, {}), [{ time: 1, value: 20 }], 'frozen, not compacted yet')
  tail.step() // series 2
  tail.step() // series 3
  t.equal(tail.compacting, true, 'the frozen rows are still to be deleted')
  t.equal(count('obs_tail'), 6)
  t.same(reader.read(1, {}), [{ time: 1, value: 10 }, { time: 2, value: 99 }], 'a compacted frozen row left in the tail changes no read')
  tail.step() // the frozen rows go
  t.equal(tail.compacting, false)
  t.equal(count('obs_tail'), 2, 'only the rows appended after the freeze are left')
  t.same(reader.read(3, {}), [{ time: 0, value: 5 }, { time: 1, value: 30 }])
  t.same(reader.listSeries(), [1, 2, 3])
  tail.compactAll()
  t.equal(count('obs_tail'), 0)
  t.equal(count('tail_series'), 0)
  t.same(reader.read(1, {}), [{ time: 1, value: 10 }, { time: 2, value: 99 }])
  t.same(reader.read(3, { from: 'last', limit: 1 }), [{ time: 1, value: 30 }])
})

t.test('a writer killed in the middle of a compaction: the next one reads and compacts the same rows', async (t) => {
  const { tail, reader, count, restart } = open(t, { series: 1, rows: 1000 })
  tail.append(pack([[1, 1, 10], [2, 1, 20], [3, 1, 30]]))
  tail.freeze()
  tail.append(pack([[2, 1, 21], [1, 2, 11]]))
  tail.step() // series 1 moved into obs; its frozen row stays in obs_tail until the last step
  const want = [1, 2, 3].map((s) => reader.read(s, {}))
  t.same(want, [[{ time: 1, value: 10 }, { time: 2, value: 11 }], [{ time: 1, value: 21 }], [{ time: 1, value: 30 }]])
  // Killed here: the next writer loads every tail row, the compacted frozen one included.
  const next = restart()
  t.equal(next.rows, 5)
  t.same([1, 2, 3].map((s) => reader.read(s, {})), want, 'the same answers after the restart')
  next.compactAll()
  t.equal(count('obs_tail'), 0)
  t.same([1, 2, 3].map((s) => reader.read(s, {})), want, 'and after compacting again (the later arrival still wins)')
  t.same(reader.sample(2, { interval: 15 * M, aggregate: 'count' }), [{ time: 0, mean: 1 }])
})

t.test('frozen rows are deleted a chunk per step, and a full compaction in between takes the rest', async (t) => {
  const { tail, reader, count } = open(t, { series: 10, rows: 1000, deleteRows: 2 })
  tail.append(pack([[1, 1, 10], [1, 2, 20], [2, 1, 30], [2, 2, 40], [1, 3, 50]]))
  tail.freeze()
  tail.append(pack([[1, 2, 21]]))
  tail.step() // the one part
  t.equal(tail.rows, 1, 'only the row appended after the freeze counts')
  tail.step()
  t.equal(count('obs_tail'), 4, 'two frozen rows deleted')
  t.same(reader.read(1, {}), [{ time: 1, value: 10 }, { time: 2, value: 21 }, { time: 3, value: 50 }])
  tail.compactAll()
  t.equal(tail.compacting, false)
  t.equal(count('obs_tail'), 0)
  t.equal(count('tail_series'), 0)
  t.same(reader.read(1, {}), [{ time: 1, value: 10 }, { time: 2, value: 21 }, { time: 3, value: 50 }])
  t.same(reader.read(2, {}), [{ time: 1, value: 30 }, { time: 2, value: 40 }])

  // With nothing appended after the freeze, the frozen rows still go.
  tail.append(pack([[3, 1, 1], [3, 2, 2], [3, 3, 3]]))
  tail.freeze()
  tail.step()
  t.equal(tail.rows, 0)
  t.equal(tail.compacting, true)
  tail.compactAll()
  t.equal(count('obs_tail'), 0, 'no frozen row left behind')
  t.equal(tail.compacting, false)
})

t.test('a writer killed while frozen rows are being deleted: the next one loads the rest, the later arrival still winning', async (t) => {
  const { tail, reader, count, restart } = open(t, { series: 10, rows: 1000, deleteRows: 2 })
  tail.append(pack([[1, 1, 10], [1, 2, 20], [2, 1, 30], [2, 2, 40], [1, 3, 50]]))
  tail.freeze()
  tail.append(pack([[1, 2, 21]]))
  tail.step() // the one part
  tail.step() // two frozen rows deleted
  const want = [[{ time: 1, value: 10 }, { time: 2, value: 21 }, { time: 3, value: 50 }], [{ time: 1, value: 30 }, { time: 2, value: 40 }]]
  t.same([1, 2].map((s) => reader.read(s, {})), want)
  // Killed here.
  const next = restart()
  t.equal(next.rows, 4, 'three frozen rows left and the later one')
  t.same([1, 2].map((s) => reader.read(s, {})), want, 'the same answers after the restart')
  next.compactAll()
  t.equal(count('obs_tail'), 0)
  t.same([1, 2].map((s) => reader.read(s, {})), want, 'and once compacted again')
})

t.test('a time repeated in the tail: limited reads take its latest arrival, from either end', async (t) => {
  const { tail, reader } = open(t, { series: 10, rows: 1000 })
  tail.append(pack([[1, 5, 1], [1, 5, 2], [1, 5, 3], [1, 6, 4], [1, 6, 5], [1, 4, 6]]))
  tail.append(pack([[1, 5, 7], [1, 4, 8]]))
  t.same(reader.read(1, { limit: 1 }), [{ time: 4, value: 8 }])
  t.same(reader.read(1, { limit: 2 }), [{ time: 4, value: 8 }, { time: 5, value: 7 }])
  t.same(reader.read(1, { from: 'last', limit: 1 }), [{ time: 6, value: 5 }])
  t.same(reader.read(1, { from: 'last', limit: 2 }), [{ time: 5, value: 7 }, { time: 6, value: 5 }])
  t.equal(reader.count(1), 3)
})

t.test('random appends, freezes, steps and full compactions read like the model at every point', async (t) => {
  const seed = 20261125
  const rnd = prng(seed)
  const { tail, reader } = open(t, { series: 2, rows: 40, deleteRows: 16 })
  const model = new Map<number, Map<number, number>>()
  const SERIES = 5
  let checks = 0
  for (let op = 0; op < 300; op++) {
    const r = rnd()
    if (r < 0.6) {
      const rows: Array<[number, number, number]> = []
      const n = 1 + Math.floor(rnd() * 30)
      for (let i = 0; i < n; i++) {
        const s = 1 + Math.floor(rnd() * SERIES)
        // Times over two days in minutes: overwrites, late rows, several rollup buckets.
        const time = Math.floor(rnd() * 2 * 1440) * M
        const value = Math.floor(rnd() * 1000) / 10
        rows.push([s, time, value])
        const m = model.get(s) ?? new Map<number, number>()
        m.set(time, value)
        model.set(s, m)
      }
      tail.append(pack(rows))
    } else if (r < 0.75) tail.freeze()
    else if (r < 0.97) tail.step()
    else tail.compactAll()
    for (let s = 1; s <= SERIES; s++) {
      const points = [...(model.get(s) ?? new Map<number, number>()).entries()].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value }))
      const raw = reader.read(s, {})
      if (JSON.stringify(raw) !== JSON.stringify(points)) { t.same(raw, points, `seed ${seed}, op ${op}, series ${s}: raw`); return }
      // Limited reads from both ends: a LIMIT cut inside repeated times must not lose the winner.
      for (const limit of [1, 3, 7]) {
        const first = reader.read(s, { limit })
        const last = reader.read(s, { from: 'last', limit })
        if (JSON.stringify(first) !== JSON.stringify(points.slice(0, limit))) { t.same(first, points.slice(0, limit), `seed ${seed}, op ${op}, series ${s}: first ${limit}`); return }
        if (JSON.stringify(last) !== JSON.stringify(points.slice(-limit))) { t.same(last, points.slice(-limit), `seed ${seed}, op ${op}, series ${s}: last ${limit}`); return }
      }
      const start = 100 * M
      if (reader.count(s, start) !== points.filter((p) => p.time >= start).length) { t.fail(`seed ${seed}, op ${op}, series ${s}: count`); return }
      for (const [interval, agg] of [[15 * M, 'mean'], [1440 * M, 'count'], [60 * M, 'max'], [1440 * M, 'first']] as const) {
        const got = reader.sample(s, { interval, aggregate: agg })
        const want = expectedAggregates(points, (x) => Math.floor(x / interval) * interval, agg)
        const same = got.length === want.length && got.every((g, i) => g.time === want[i].time && Math.abs(g.mean - want[i].mean) < 1e-9)
        if (!same) { t.same(got, want, `seed ${seed}, op ${op}, series ${s}: ${agg} of ${interval}`); return }
      }
      checks++
    }
  }
  tail.compactAll()
  t.equal(tail.rows, 0)
  t.ok(checks === 300 * SERIES, `${checks} checks, all as the model`)
})
