// The store contract's part for the data lifecycle (issue 34 item 2; engine/store/port.ts
// replaceRange with no points, and trim), run by both adapters' test files: deleted ranges and
// retention steps interleaved with appends (in order, late, overwrites) leave raw reads and
// every aggregate equal to the fold of what is left (rollups stay exact).
import type { Test } from 'tap'
import { AGGREGATES, type Observation, type TimeseriesStore } from '../../engine/store/port.ts'
import { ROLLUP_LEVELS } from '../../engine/store/sqlite-rollups.ts'
import { expectedAggregates, prng } from './store-contract.ts'

const M = 60_000_000
const DAY = 1440 * M
/** 2024-03-01T00:00:00Z in µs. */
const DAY0 = Date.UTC(2024, 2, 1) * 1000

/** Retention of everything before `before`: raw rows and every rollup level (day-aligned: no bucket straddles it). */
export const everythingBefore = (before: number) => ({ raw: before, rollups: ROLLUP_LEVELS.map((level) => ({ level, before })) })

/** Runs trim steps until the store says nothing is left; the rows removed. */
export async function trimAll(store: TimeseriesStore, series: number[], bounds: Parameters<NonNullable<TimeseriesStore['trim']>>[1], maxRows = 50): Promise<number> {
  let rows = 0
  for (let i = 0; i < 10_000; i++) {
    const r = await store.trim!(series, bounds, maxRows)
    rows += r.rows
    if (!r.more) return rows
  }
  throw new Error('trim did not finish')
}

export function storeLifecycleContract(t: Test, name: string, makeStore: () => Promise<TimeseriesStore>): void {
  const withStore = (title: string, fn: (t: Test, store: TimeseriesStore) => Promise<void>) =>
    t.test(`${name}: ${title}`, async (t) => {
      const store = await makeStore()
      t.teardown(() => store.close())
      await fn(t, store)
    })

  withStore('a deleted range is gone from raw reads, counts and samples; the rest stays', async (t, store) => {
    await store.append([1, 2, 3, 4, 5].map((k) => ({ series: 1, time: DAY0 + k * M, value: k })).concat([{ series: 2, time: DAY0 + 2 * M, value: 20 }]))
    await store.replaceRange(1, DAY0 + 2 * M, DAY0 + 4 * M, [])
    t.same((await store.read(1, {})).map((p) => p.value), [1, 4, 5], '[start, end): the end stays')
    t.equal(await store.count(1), 3)
    t.same(await store.sample(1, { interval: 15 * M, aggregate: 'sum' }), [{ time: DAY0, mean: 10 }])
    t.same(await store.read(2, {}), [{ time: DAY0 + 2 * M, value: 20 }], 'another series untouched')
  })

  withStore('trim removes what lies before the bound in the series named, in bounded steps', async (t, store) => {
    const rows: Observation[] = []
    for (let k = 0; k < 300; k++) rows.push({ series: 1, time: DAY0 - 2 * DAY + k * 15 * M, value: k }, { series: 2, time: DAY0 - 2 * DAY + k * 15 * M, value: -k })
    await store.append(rows)
    const removed = await trimAll(store, [1], everythingBefore(DAY0), 40)
    t.ok(removed >= 192, `${removed} rows removed (192 raw, and rollups where the store keeps them)`)
    t.equal(await store.count(1), 108)
    t.equal(await store.count(1, undefined, DAY0), 0, 'nothing before the bound')
    t.same((await store.read(1, { limit: 1 }))[0], { time: DAY0, value: 192 }, 'the bound itself stays')
    t.same(await store.sample(1, { interval: DAY, aggregate: 'count' }), [{ time: DAY0, mean: 96 }, { time: DAY0 + DAY, mean: 12 }])
    t.equal(await store.count(2), 300, 'a series not named keeps everything')
    t.same(await store.trim!([1], everythingBefore(DAY0), 40), { rows: 0, more: false }, 'nothing left to do')
  })

  withStore('deletes and retention interleaved with appends keep raw rows and aggregates exact (property)', async (t, store) => {
    const rnd = prng(3141)
    const model = new Map<number, Map<number, number>>()
    const SERIES = 3
    const value = () => Math.floor((rnd() - 0.5) * 8192) / 8 // exact sums
    let floor = DAY0 - 6 * DAY // everything before it was trimmed
    let bad = 0
    for (let op = 0; op < 40 && bad === 0; op++) {
      const r = rnd()
      if (r < 0.55) {
        // In-order stretches, late rows and overwrites over six days.
        const batch: Observation[] = []
        const n = 1 + Math.floor(rnd() * 400)
        const base = DAY0 - 6 * DAY + Math.floor(rnd() * 5 * DAY / M) * M
        for (let i = 0; i < n; i++) {
          const series = 1 + Math.floor(rnd() * SERIES)
          const time = rnd() < 0.8 ? base + i * M : DAY0 - 6 * DAY + Math.floor(rnd() * 6 * DAY / M) * M
          const v = value()
          batch.push({ series, time, value: v })
          const m = model.get(series) ?? new Map<number, number>()
          m.set(time, v)
          model.set(series, m)
        }
        await store.append(batch)
      } else if (r < 0.85) {
        const series = 1 + Math.floor(rnd() * SERIES)
        const start = DAY0 - 6 * DAY + Math.floor(rnd() * 6 * DAY)
        const end = start + Math.floor(rnd() * DAY / 2) + 1
        await store.replaceRange(series, start, end, [])
        for (const time of [...(model.get(series)?.keys() ?? [])]) if (time >= start && time < end) model.get(series)!.delete(time)
      } else {
        floor = Math.min(DAY0, floor + DAY)
        await trimAll(store, [1, 2, 3], everythingBefore(floor), 1 + Math.floor(rnd() * 300))
        for (const m of model.values()) for (const time of [...m.keys()]) if (time < floor) m.delete(time)
      }
      for (let s = 1; s <= SERIES; s++) {
        const all = [...(model.get(s) ?? new Map<number, number>()).entries()].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value }))
        const raw = await store.read(s, {})
        if (JSON.stringify(raw) !== JSON.stringify(all)) { bad++; t.same(raw, all, `op ${op}, series ${s}: raw rows`); break }
        for (const iv of [15 * M, 60 * M, DAY, 7 * M]) {
          const agg = AGGREGATES[Math.floor(rnd() * AGGREGATES.length)]
          const got = await store.sample(s, { interval: iv, aggregate: agg })
          const want = expectedAggregates(all, (x) => Math.floor(x / iv) * iv, agg)
          if (JSON.stringify(got) !== JSON.stringify(want)) { bad++; t.same(got, want, `op ${op}, series ${s}: ${agg} by ${iv / M} min`); break }
        }
      }
    }
    t.equal(bad, 0, 'every read equals the model after every operation')
  })
}
