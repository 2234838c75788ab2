// Contract of the time-series store port (engine/store/port.ts): every adapter (SQLite now,
// QuestDB later) runs this suite. Each subtest gets a fresh, empty store from makeStore and
// closes it at teardown.
import type { Test } from 'tap'
import { DateTime } from 'luxon'
import { AGGREGATES, type Aggregate, type MeanPoint, type Observation, type Point, type TimeseriesStore } from '../../engine/store/port.ts'

const MIN = 60_000_000
const HOUR = 60 * MIN
/** 2024-03-01T00:00:00Z in microseconds. */
const DAY0 = Date.UTC(2024, 2, 1) * 1000

const obs = (series: number, time: number, value: number): Observation => ({ series, time, value })

/** Means per epoch-aligned bucket computed in JS, the reference for sample(). */
function expectedMeans(points: Array<{ time: number; value: number }>, iv: number, start = -Infinity, end = Infinity): MeanPoint[] {
  const sums = new Map<number, { sum: number; n: number }>()
  for (const p of points) {
    if (p.time < start || p.time >= end) continue
    const b = Math.floor(p.time / iv) * iv
    const acc = sums.get(b) ?? { sum: 0, n: 0 }
    acc.sum += p.value
    acc.n++
    sums.set(b, acc)
  }
  return [...sums.entries()].sort((a, b) => a[0] - b[0]).map(([time, { sum, n }]) => ({ time, mean: sum / n }))
}

function sameMeans(t: Test, got: MeanPoint[], want: MeanPoint[], msg: string) {
  t.equal(got.length, want.length, `${msg}: bucket count`)
  let bad = 0
  for (let i = 0; i < Math.min(got.length, want.length); i++) {
    const close = Math.abs(got[i].mean - want[i].mean) <= 1e-9 * Math.max(1, Math.abs(want[i].mean))
    if (got[i].time !== want[i].time || !close) {
      if (bad++ < 3) t.fail(`${msg}: bucket ${i} is ${JSON.stringify(got[i])}, want ${JSON.stringify(want[i])}`)
    }
  }
  if (!bad) t.pass(`${msg}: buckets and means match`)
}

/**
 * Any aggregate per bucket, folded from the raw points in JS: the reference for rollup
 * reads. `bucketOf` maps a time to its bucket start.
 */
export function expectedAggregates(points: Array<{ time: number; value: number }>, bucketOf: (t: number) => number, agg: Aggregate, start = -Infinity, end = Infinity): MeanPoint[] {
  const by = new Map<number, number[]>()
  for (const p of [...points].sort((a, b) => a.time - b.time)) {
    if (p.time < start || p.time >= end) continue
    const b = bucketOf(p.time)
    const vs = by.get(b) ?? []
    vs.push(p.value)
    by.set(b, vs)
  }
  const f = (vs: number[]): number => {
    switch (agg) {
      case 'mean': return vs.reduce((a, v) => a + v, 0) / vs.length
      case 'sum': return vs.reduce((a, v) => a + v, 0)
      case 'min': return Math.min(...vs)
      case 'max': return Math.max(...vs)
      case 'first': return vs[0]
      case 'last': return vs[vs.length - 1]
      case 'count': return vs.length
    }
  }
  return [...by.entries()].sort((a, b) => a[0] - b[0]).map(([time, vs]) => ({ time, mean: f(vs) }))
}

/** Deterministic PRNG (mulberry32), so a failing case can be replayed from its seed. */
export function prng(seed: number): () => number {
  return () => {
    seed = (seed + 0x6D2B79F5) | 0
    let x = Math.imul(seed ^ (seed >>> 15), 1 | seed)
    x = (x + Math.imul(x ^ (x >>> 7), 61 | x)) ^ x
    return ((x ^ (x >>> 14)) >>> 0) / 4294967296
  }
}

// The expected calendar buckets are computed by hand, not by the time-zone library the store
// uses (issue 36: an expectation from the same call as the code cannot fail): the zones of the
// contract are fixed offsets (UTC, Asia/Kolkata +05:30) and Europe/Berlin, whose EU rule is
// written out here: CEST (+2 h) from 01:00 UTC on the last Sunday of March to 01:00 UTC on the
// last Sunday of October, CET (+1 h) otherwise.
const H = 3_600_000
const lastSundayUtc = (year: number, month: number) => {
  const last = Date.UTC(year, month + 1, 0) // the month's last day, 00:00 UTC
  return last - new Date(last).getUTCDay() * 86_400_000 + H // that Sunday, 01:00 UTC
}
const offsetMs = (zone: string, utcMs: number): number => {
  if (zone === 'UTC') return 0
  if (zone === 'Asia/Kolkata') return 5.5 * H
  if (zone !== 'Europe/Berlin') throw new Error(`no hand-written rule for ${zone}`)
  const y = new Date(utcMs).getUTCFullYear()
  return utcMs >= lastSundayUtc(y, 2) && utcMs < lastSundayUtc(y, 9) ? 2 * H : H
}
const localStart = (unit: 'day' | 'week' | 'month', zone: string) => (t: number) => {
  const ms = Math.floor(t / 1000)
  const local = new Date(ms + offsetMs(zone, ms)) // wall-clock time read through UTC fields
  let start = Date.UTC(local.getUTCFullYear(), local.getUTCMonth(), unit === 'month' ? 1 : local.getUTCDate())
  if (unit === 'week') start -= ((local.getUTCDay() + 6) % 7) * 86_400_000 // back to Monday
  // Local midnight to UTC: the offset in force just before it (no zone here changes at midnight).
  return (start - offsetMs(zone, start - offsetMs(zone, start - 12 * H))) * 1000
}

export function storeContract(t: Test, name: string, makeStore: () => Promise<TimeseriesStore>): void {
  const withStore = (title: string, fn: (t: Test, store: TimeseriesStore) => Promise<void>) =>
    t.test(`${name}: ${title}`, async (t) => {
      const store = await makeStore()
      t.teardown(() => store.close())
      await fn(t, store)
    })

  withStore('a series without data reads as empty', async (t, store) => {
    t.same(await store.read(1, {}), [])
    t.same(await store.read(1, { from: 'last', limit: 10 }), [])
    t.same(await store.sample(1, { interval: HOUR }), [])
    t.equal(await store.count(1), 0)
    t.same(await store.listSeries(), [])
    await store.append([])
    t.same(await store.listSeries(), [])
  })

  withStore('reads return ascending time whatever the input order, series kept apart', async (t, store) => {
    await store.append([obs(1, 30, 3), obs(2, 20, 20), obs(1, 10, 1), obs(2, 10, 10), obs(1, 20, 2)])
    t.same(await store.read(1, {}), [{ time: 10, value: 1 }, { time: 20, value: 2 }, { time: 30, value: 3 }])
    t.same(await store.read(2, {}), [{ time: 10, value: 10 }, { time: 20, value: 20 }])
    t.same(await store.read(3, {}), [])
    t.equal(await store.count(1), 3)
  })

  withStore('same (series, time) replaces the value: across and within batches, last wins', async (t, store) => {
    await store.append([obs(1, 100, 1), obs(1, 200, 2)])
    await store.append([obs(1, 100, 10)])
    t.same(await store.read(1, {}), [{ time: 100, value: 10 }, { time: 200, value: 2 }])
    await store.append([obs(1, 300, 1), obs(2, 300, 5), obs(1, 300, 2), obs(1, 300, 3)])
    t.same(await store.read(1, { start: 300 }), [{ time: 300, value: 3 }])
    t.equal(await store.count(1), 3, 'no duplicates')
    // Re-sending a whole batch is idempotent.
    const batch = [obs(4, 1, 1), obs(4, 2, 2), obs(4, 3, 3)]
    await store.append(batch)
    await store.append(batch)
    t.equal(await store.count(4), 3)
  })

  withStore('bounds are half-open [start, end) for read, count and sample', async (t, store) => {
    await store.append([0, 10, 20, 30, 40].map((time) => obs(1, time, time)))
    t.same((await store.read(1, { start: 10, end: 30 })).map((p) => p.time), [10, 20])
    t.same((await store.read(1, { start: 11, end: 31 })).map((p) => p.time), [20, 30])
    t.same((await store.read(1, { start: 10 })).map((p) => p.time), [10, 20, 30, 40])
    t.same((await store.read(1, { end: 10 })).map((p) => p.time), [0])
    t.same(await store.read(1, { start: 20, end: 20 }), [])
    t.equal(await store.count(1, 10, 30), 2)
    t.equal(await store.count(1, undefined, 40), 4)
    t.equal(await store.count(1, 40), 1)
    t.same(await store.sample(1, { start: 10, end: 30, interval: 100 }), [{ time: 0, mean: 15 }])
  })

  withStore('first/last limits, always ascending; limit 0 or absent is all', async (t, store) => {
    await store.append([1, 2, 3, 4, 5, 6].map((time) => obs(1, time * 10, time)))
    const times = async (q: Parameters<TimeseriesStore['read']>[1]) => (await store.read(1, q)).map((p) => p.time)
    t.same(await times({ start: 20, limit: 2, from: 'first' }), [20, 30])
    t.same(await times({ start: 20, limit: 2 }), [20, 30], 'from defaults to first')
    t.same(await times({ end: 50, limit: 2, from: 'last' }), [30, 40])
    t.same(await times({ limit: 3, from: 'last' }), [40, 50, 60])
    t.same(await times({ limit: 0, from: 'last' }), [10, 20, 30, 40, 50, 60])
    t.same(await times({ from: 'last' }), [10, 20, 30, 40, 50, 60])
    t.same(await times({ start: 15, end: 45, limit: 100, from: 'last' }), [20, 30, 40])
    t.same(await times({ start: 15, end: 45, limit: 1, from: 'first' }), [20])
  })

  withStore('sample: epoch-aligned buckets, mean per bucket, empty buckets dropped', async (t, store) => {
    // 07:05, 07:10, 07:20 | (07:30-07:45 empty) | 07:50 on 2024-03-01, 15-minute buckets.
    const at = (h: number, m: number) => DAY0 + h * HOUR + m * MIN
    await store.append([obs(1, at(7, 5), 1), obs(1, at(7, 10), 2), obs(1, at(7, 20), 6), obs(1, at(7, 50), 8), obs(2, at(7, 35), 99)])
    t.same(await store.sample(1, { interval: 15 * MIN }), [
      { time: at(7, 0), mean: 1.5 },
      { time: at(7, 15), mean: 6 },
      { time: at(7, 45), mean: 8 },
    ])
    // The first bucket keeps its epoch boundary even when start lies inside it, and only
    // raw observations in [start, end) count.
    t.same(await store.sample(1, { start: at(7, 7), end: at(7, 50), interval: 15 * MIN }), [
      { time: at(7, 0), mean: 2 },
      { time: at(7, 15), mean: 6 },
    ])
    // A daily bucket is aligned to UTC midnight.
    t.same(await store.sample(1, { interval: 24 * HOUR }), [{ time: DAY0, mean: (1 + 2 + 6 + 8) / 4 }])
    t.same(await store.sample(1, { start: at(8, 0), interval: 15 * MIN }), [])
  })

  withStore('times before 1970: floor alignment, negative bounds', async (t, store) => {
    await store.append([obs(1, -1, 1), obs(1, -10, 3), obs(1, -11, 5), obs(1, 0, 7), obs(1, 9, 9)])
    t.same((await store.read(1, {})).map((p) => p.time), [-11, -10, -1, 0, 9])
    t.same(await store.sample(1, { interval: 10 }), [
      { time: -20, mean: 5 },
      { time: -10, mean: 2 },
      { time: 0, mean: 8 },
    ])
    t.equal(await store.count(1, -10, 0), 2)
    const y1960 = Date.UTC(1960, 0, 1, 0, 7) * 1000
    await store.append([obs(2, y1960, 4), obs(2, y1960 + MIN, 6)])
    t.same(await store.sample(2, { interval: 15 * MIN }), [{ time: Date.UTC(1960, 0, 1) * 1000, mean: 5 }])
  })

  withStore('microsecond precision: observations 1 µs apart stay distinct', async (t, store) => {
    const t0 = DAY0 + 123_456
    await store.append([obs(1, t0, 1), obs(1, t0 + 1, 2), obs(1, t0 + 2, 3)])
    t.same(await store.read(1, {}), [{ time: t0, value: 1 }, { time: t0 + 1, value: 2 }, { time: t0 + 2, value: 3 }])
    t.same(await store.read(1, { start: t0 + 1, end: t0 + 2 }), [{ time: t0 + 1, value: 2 }])
    t.same(await store.sample(1, { interval: 2 }), [{ time: t0, mean: 1.5 }, { time: t0 + 2, mean: 3 }])
    const far = Date.UTC(2099, 11, 31, 23, 59, 59) * 1000 + 999_999
    await store.append([obs(2, far, 1)])
    t.same(await store.read(2, {}), [{ time: far, value: 1 }])
  })

  withStore('values are doubles, stored exactly; NaN is never stored', async (t, store) => {
    const values = [0, -0.5, 1e300, -1e-300, 5e-324, 0.1 + 0.2, 123456789.123456789, -42]
    await store.append(values.map((v, i) => obs(1, i, v)))
    t.same((await store.read(1, {})).map((p) => p.value), values)
    await store.append([obs(2, 1, NaN), obs(2, 2, 2)])
    t.same(await store.read(2, {}), [{ time: 2, value: 2 }])
  })

  withStore('listSeries and deleteSeries', async (t, store) => {
    await store.append([obs(7, 1, 1), obs(3, 1, 1), obs(5, 1, 1), obs(3, 2, 2), obs(9, 1, 1)])
    t.same((await store.listSeries()).sort((a, b) => a - b), [3, 5, 7, 9])
    await store.deleteSeries([3, 9, 1234])
    t.same((await store.listSeries()).sort((a, b) => a - b), [5, 7])
    t.same(await store.read(3, {}), [])
    t.equal(await store.count(3), 0)
    t.same(await store.read(5, {}), [{ time: 1, value: 1 }], 'other series untouched')
    await store.deleteSeries([])
    await store.append([obs(3, 5, 5)])
    t.same(await store.read(3, {}), [{ time: 5, value: 5 }], 'a deleted series can be written again')
  })

  withStore('replaceRange replaces one series in [start, end) only', async (t, store) => {
    await store.append([obs(1, 10, 1), obs(1, 20, 2), obs(1, 30, 3), obs(1, 40, 4), obs(2, 20, 9)])
    await store.replaceRange(1, 20, 40, [{ time: 25, value: 5 }, { time: 35, value: 6 }])
    t.same(await store.read(1, {}), [{ time: 10, value: 1 }, { time: 25, value: 5 }, { time: 35, value: 6 }, { time: 40, value: 4 }], 'start inclusive, end exclusive')
    t.same(await store.read(2, {}), [{ time: 20, value: 9 }], 'other series untouched')
    t.same(await store.sample(1, { interval: 60_000_000 }), [{ time: 0, mean: 4 }], 'down-sampled reads (rollups) see the replacement')
    await store.replaceRange(1, 0, 100, [])
    t.same(await store.read(1, {}), [], 'an empty replacement clears the range')
    t.same(await store.sample(1, { interval: 86_400_000_000, start: 0, end: 86_400_000_000 }), [], 'and its rollups')
    await store.replaceRange(1, 0, 100, [{ time: 50, value: 7 }])
    t.same(await store.read(1, {}), [{ time: 50, value: 7 }])
  })

  withStore('a replaced range that empties whole buckets leaves no trace in down-sampled reads', async (t, store) => {
    const M = 60_000_000
    await store.append([obs(1, 1 * M, 1), obs(1, 2 * M, 2), obs(1, 20 * M, 3), obs(1, 70 * M, 10)])
    await store.replaceRange(1, 0, 10 * M, [])
    t.same(await store.sample(1, { interval: 15 * M }), [{ time: 15 * M, mean: 3 }, { time: 60 * M, mean: 10 }], '15-minute means')
    t.same(await store.sample(1, { interval: 60 * M }), [{ time: 0, mean: 3 }, { time: 60 * M, mean: 10 }], 'hourly means')
    t.same(await store.sample(1, { interval: 1440 * M }), [{ time: 0, mean: 6.5 }], 'daily means')
    t.same(await store.sample(1, { interval: 60 * M, aggregate: 'count' }), [{ time: 0, mean: 1 }, { time: 60 * M, mean: 1 }], 'hourly counts')
    await store.replaceRange(1, 60 * M, 120 * M, [{ time: 80 * M, value: 4 }])
    t.same(await store.sample(1, { interval: 1440 * M, aggregate: 'max' }), [{ time: 0, mean: 4 }], 'daily max after a second replace')
  })

  withStore('aggregates after random replaced ranges equal folding the raw points (property)', async (t, store) => {
    // A replay rewrites mostly the times already there; here also new times, fewer points,
    // equal times within one replacement (the last wins), empty replacements and ranges that
    // start or end inside a bucket. Values are multiples of 1/8 (exact sums, see above).
    const M = 60_000_000
    const rnd = prng(2718)
    const t0 = DAY0 - 86_400_000_000
    const points = new Map<number, number>()
    const value = () => Math.floor((rnd() - 0.5) * 8192) / 8
    const first: Observation[] = []
    for (let i = 0; i < 6000; i++) { const time = t0 + i * 20_000_000; const v = value(); first.push(obs(1, time, v)); points.set(time, v) }
    await store.append(first)
    let bad = 0
    for (let round = 0; round < 12; round++) {
      const start = t0 + Math.floor(rnd() * 5000 * 20_000_000)
      const end = start + Math.floor(rnd() * 2000 * 20_000_000) + 1
      const kind = round % 4
      const replacement: Point[] = []
      if (kind !== 3) {
        for (let time = start; time < end; time += 20_000_000) {
          // kind 0: the same times (start is not on the 20 s grid: new ones); 1: a third of
          // them; 2: shifted times, with a first value overwritten inside the replacement.
          const at = kind === 2 ? time + 7_000_000 : time - ((time - t0) % 20_000_000)
          if (at < start || at >= end || (kind === 1 && rnd() < 0.67)) continue
          if (kind === 2 && rnd() < 0.2) replacement.push({ time: at, value: value() })
          replacement.push({ time: at, value: value() })
        }
      }
      await store.replaceRange(1, start, end, replacement)
      for (const time of [...points.keys()]) if (time >= start && time < end) points.delete(time)
      for (const p of replacement) points.set(p.time, p.value)
      const all = [...points.entries()].sort((a, b) => a[0] - b[0]).map(([time, value]) => ({ time, value }))
      if (round % 3 === 2) {
        const raw = await store.read(1, {})
        if (JSON.stringify(raw) !== JSON.stringify(all) && bad++ < 3) t.same(raw, all, `raw rows after round ${round}`)
      }
      for (const iv of [15 * M, HOUR, 24 * HOUR, 7 * M]) {
        const agg = AGGREGATES[Math.floor(rnd() * AGGREGATES.length)]
        const got = await store.sample(1, { interval: iv, aggregate: agg })
        const want = expectedAggregates(all, (x) => Math.floor(x / iv) * iv, agg)
        if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3) t.same(got, want, `round ${round} (kind ${kind}): ${agg} by ${iv} µs after replacing [${start}, ${end})`)
      }
    }
    t.equal(bad, 0, 'every aggregate equals the fold of the raw points')
  })

  withStore('concurrent appends are all visible once resolved', async (t, store) => {
    const batches = Array.from({ length: 40 }, (_, b) => Array.from({ length: 50 }, (_, i) => obs(1 + (i % 5), b * 1000 + i, b + i / 100)))
    await Promise.all(batches.map(async (batch, b) => {
      await store.append(batch)
      // Read-your-writes: this batch is there as soon as its append resolves.
      const got = await store.read(1 + (b % 5), { start: b * 1000, end: b * 1000 + 1000 })
      t.ok(got.length >= 10, `batch ${b} readable after resolve`)
    }))
    let total = 0
    for (let s = 1; s <= 5; s++) total += await store.count(s)
    t.equal(total, 40 * 50)
  })

  withStore('sample matches a JS reference on larger interleaved data', async (t, store) => {
    // Three series interleaved; series 1 each 10 s for 2.4 days (20,736 points). The
    // intervals below cover few and many buckets, dense and sparse (an adapter may plan
    // each differently; the SQLite one does).
    const points: Array<{ time: number; value: number }> = []
    const batch: Observation[] = []
    for (let i = 0; i < 20_736; i++) {
      const time = DAY0 - 7 * HOUR + i * 10_000_000
      const value = Math.sin(i / 50) * 100 + (i % 7)
      points.push({ time, value })
      batch.push(obs(1, time, value), obs(2, time, -value), obs(3, time + 1, 1))
    }
    await store.append(batch)
    t.equal(await store.count(1), points.length)
    // Few buckets, many rows each.
    sameMeans(t, await store.sample(1, { interval: 15 * MIN }), expectedMeans(points, 15 * MIN), '15 min')
    // Many buckets (> 4096) with three rows each, and with two.
    sameMeans(t, await store.sample(1, { interval: 30_000_000 }), expectedMeans(points, 30_000_000), '30 s')
    sameMeans(t, await store.sample(1, { interval: 20_000_000 }), expectedMeans(points, 20_000_000), '20 s')
    // About one row per bucket, and buckets far more numerous than rows.
    sameMeans(t, await store.sample(1, { interval: 7_000_000 }), expectedMeans(points, 7_000_000), '7 s')
    sameMeans(t, await store.sample(1, { interval: 1 }), expectedMeans(points, 1).slice(0, points.length), '1 µs')
    const start = DAY0 + 1_234_567
    const end = DAY0 + 9 * HOUR + 3
    sameMeans(t, await store.sample(1, { start, end, interval: HOUR }), expectedMeans(points, HOUR, start, end), 'bounded 1 h')
    t.same((await store.read(1, { from: 'last', limit: 1000 })).map((p) => p.time), points.slice(-1000).map((p) => p.time))
  })

  withStore('aggregates over random data, ranges and intervals equal folding the raw points (property)', async (t, store) => {
    // Values are multiples of 1/8 below 2^20: every sum is exact in any order, so results
    // must be identical, not merely close, however an adapter splits the work (rollups).
    const rnd = prng(1414)
    const points = new Map<number, number>()
    const t0 = DAY0 - 3 * 86_400_000_000
    const span = 20 * 86_400_000_000
    for (let round = 0; round < 6; round++) {
      const batch: Observation[] = []
      // Mostly one per minute in a random stretch, some late and some overwrites of taken times.
      const from = t0 + Math.floor(rnd() * span)
      for (let i = 0; i < 3000; i++) {
        const time = rnd() < 0.9 ? from + i * MIN + Math.floor(rnd() * 59) * 1_000_000 : t0 + Math.floor(rnd() * span)
        const value = Math.floor((rnd() - 0.5) * 8192) / 8
        batch.push(obs(1, time, value))
        points.set(time, value)
      }
      for (const time of [...points.keys()].slice(0, 50)) { const v = Math.floor(rnd() * 100) / 8; batch.push(obs(1, time, v)); points.set(time, v) }
      await store.append(batch)
    }
    const all = [...points.entries()].map(([time, value]) => ({ time, value }))
    const intervals = [MIN, 2 * MIN, 15 * MIN, 30 * MIN, HOUR, 3 * HOUR, 24 * HOUR, 2 * 24 * HOUR, 7_000_000, 90 * 1_000_000]
    let bad = 0
    for (let k = 0; k < 40; k++) {
      const iv = intervals[Math.floor(rnd() * intervals.length)]
      const agg = AGGREGATES[Math.floor(rnd() * AGGREGATES.length)]
      const a = t0 + Math.floor(rnd() * span * 1.1) - span * 0.05
      const e = rnd() < 0.2 ? undefined : a + Math.floor(rnd() * span)
      const start = rnd() < 0.1 ? undefined : Math.floor(a)
      const got = await store.sample(1, { start, end: e, interval: iv, aggregate: agg })
      const want = expectedAggregates(all, (x) => Math.floor(x / iv) * iv, agg, start, e)
      if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3) t.same(got, want, `case ${k}: ${agg} by ${iv} µs over [${start}, ${e})`)
    }
    for (const unit of ['day', 'week', 'month'] as const) {
      for (const zone of ['UTC', 'Europe/Berlin', 'Asia/Kolkata']) {
        const agg = AGGREGATES[Math.floor(rnd() * AGGREGATES.length)]
        const start = t0 + Math.floor(rnd() * span / 2)
        const got = await store.sample(1, { start, interval: { unit, zone }, aggregate: agg })
        const want = expectedAggregates(all, localStart(unit, zone), agg, start)
        if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3) t.same(got, want, `${agg} by ${unit} in ${zone} from ${start}`)
      }
    }
    // In-order appends in batches of random sizes (the SQLite store merges them into its
    // rollups instead of recomputing), some ending and starting inside one bucket.
    const inOrder: Array<{ time: number; value: number }> = []
    let at = t0
    for (let b = 0; b < 8; b++) {
      const batch: Observation[] = []
      for (let i = Math.floor(rnd() * 1500); i >= 0; i--) {
        at += 1_000_000 + Math.floor(rnd() * 90) * 1_000_000
        const value = Math.floor((rnd() - 0.5) * 8192) / 8
        batch.push(obs(2, at, value))
        inOrder.push({ time: at, value })
      }
      await store.append(batch)
    }
    for (const iv of [MIN, 15 * MIN, HOUR, 24 * HOUR]) {
      for (const agg of AGGREGATES) {
        const got = await store.sample(2, { interval: iv, aggregate: agg })
        const want = expectedAggregates(inOrder, (x) => Math.floor(x / iv) * iv, agg)
        if (JSON.stringify(got) !== JSON.stringify(want) && bad++ < 3) t.same(got, want, `in-order batches: ${agg} by ${iv} µs`)
      }
    }
    t.equal(bad, 0, 'every case identical to the raw fold')
  })

  withStore('calendar days in Europe/Berlin: 23 and 25 hours at the DST switches, weeks from Monday', async (t, store) => {
    const zone = 'Europe/Berlin'
    const hourly: Observation[] = []
    // 2024-03-30 00:00 local (23:00Z on the 29th) to 2024-04-01: one observation per UTC hour.
    const from = Date.UTC(2024, 2, 29, 23) * 1000
    for (let h = 0; h < 72; h++) hourly.push(obs(1, from + h * HOUR, 1))
    const octFrom = Date.UTC(2024, 9, 25, 22) * 1000 // 2024-10-26 00:00 CEST
    for (let h = 0; h < 72; h++) hourly.push(obs(1, octFrom + h * HOUR, 1))
    await store.append(hourly)
    const local = (iso: string) => DateTime.fromISO(iso, { zone }).toMillis() * 1000
    const days = await store.sample(1, { start: from, end: from + 72 * HOUR, interval: { unit: 'day', zone }, aggregate: 'count' })
    t.same(days, [
      { time: local('2024-03-30T00:00'), mean: 24 },
      { time: local('2024-03-31T00:00'), mean: 23 },
      { time: local('2024-04-01T00:00'), mean: 24 },
      { time: local('2024-04-02T00:00'), mean: 1 },
    ], 'March 31 has 23 hours')
    const oct = await store.sample(1, { start: octFrom, end: octFrom + 72 * HOUR, interval: { unit: 'day', zone }, aggregate: 'count' })
    t.same(oct.map((p) => [DateTime.fromMillis(p.time / 1000, { zone }).toISO(), p.mean]), [
      ['2024-10-26T00:00:00.000+02:00', 24],
      ['2024-10-27T00:00:00.000+02:00', 25],
      ['2024-10-28T00:00:00.000+01:00', 23],
    ], 'October 27 has 25 hours (the range ends 23 hours into the 28th)')
    const weeks = await store.sample(1, { interval: { unit: 'week', zone }, aggregate: 'count' })
    t.same(weeks.map((p) => DateTime.fromMillis(p.time / 1000, { zone }).toISODate()), ['2024-03-25', '2024-04-01', '2024-10-21', '2024-10-28'], 'weeks start on Monday')
    t.same(weeks.map((p) => p.mean), [47, 25, 49, 23])
    const months = await store.sample(1, { interval: { unit: 'month', zone }, aggregate: 'sum' })
    t.same(months, [
      { time: local('2024-03-01T00:00'), mean: 47 },
      { time: local('2024-04-01T00:00'), mean: 25 },
      { time: local('2024-10-01T00:00'), mean: 72 },
    ])
  })
}
