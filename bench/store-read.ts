// Benchmark of the embedded time-series store (engine/store/sqlite-store.ts), without HTTP:
// fills 1,000 interleaved series with 1-minute data, one of them (the target) for a full
// year (525,600 points), then measures read latency (medians over several runs):
// the target's year down-sampled to 15 minutes, and its last 1,000 raw points.
// NDJSON results on stdout, progress on stderr.
//
//   npm run bench:store-read -- [--days 7] [--runs 7] [--batch 10000] [--inflight 1,4,16] [--keep]
//
// The 999 other series hold one point every 6 hours over the year and 1-minute data over the
// last --days days; that last part is the interleaved fill (each batch: 10 minutes of all
// 1,000 series), whose rate is reported separately, in equal parts with 1, 4 and 16 appends
// in flight (concurrent producers; the writer commits what is waiting together).
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import type { Observation, TimeseriesStore } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { emit, median, progress } from './lib.ts'

const { values: args } = parseArgs({
  options: {
    days: { type: 'string', default: '7' },
    runs: { type: 'string', default: '7' },
    batch: { type: 'string', default: '10000' },
    inflight: { type: 'string', default: '1,4,16' },
    keep: { type: 'boolean', default: false },
  },
})
const DAYS = Number(args.days)
const RUNS = Number(args.runs)
const BATCH = Number(args.batch)
const INFLIGHT = args.inflight.split(',').map(Number)

const MINUTE = 60_000_000
const YEAR_MINUTES = 525_600
const SERIES = 1000
const TARGET = 1
const Y0 = Date.UTC(2023, 0, 1) * 1000
const Y1 = Y0 + YEAR_MINUTES * MINUTE
const value = (s: number, m: number) => 20 + 5 * Math.sin(m / 720 + s) + (m % 13) / 10

/** Appends batches from `next` with up to `inflightMax` appends outstanding. */
async function fill(store: TimeseriesStore, label: string, inflightMax: number, next: () => Observation[] | undefined): Promise<{ rows: number; seconds: number; loopDelayP99Ms: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const t0 = performance.now()
  let rows = 0
  let lastReport = t0
  const inflight = new Set<Promise<void>>()
  for (let batch = next(); batch; batch = next()) {
    const p: Promise<void> = store.append(batch).then(() => { inflight.delete(p) })
    inflight.add(p)
    rows += batch.length
    if (inflight.size >= inflightMax) await Promise.race(inflight)
    const now = performance.now()
    if (now - lastReport > 2000) {
      lastReport = now
      progress(`${label}: ${rows.toLocaleString()} rows, ${Math.round(rows / ((now - t0) / 1000)).toLocaleString()} rows/s`)
    }
  }
  await Promise.all(inflight)
  delay.disable()
  return { rows, seconds: (performance.now() - t0) / 1000, loopDelayP99Ms: delay.percentile(99) / 1e6 }
}

async function timeRuns<T>(runs: number, fn: () => Promise<T>): Promise<{ ms: number[]; result: T }> {
  let result = await fn() // warm-up: page cache and statement caches
  const ms: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    result = await fn()
    ms.push(performance.now() - t0)
  }
  return { ms, result }
}

const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d

async function main() {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-store-'))
  progress(`store in ${dir}`)
  const store = await openSqliteStore({ dir })
  try {
    const denseFrom = YEAR_MINUTES - DAYS * 1440
    // Phase 1: the target every minute, the others every 6 hours, up to the last DAYS days.
    let m = 0
    const sparse = await fill(store, 'year', 4, () => {
      if (m >= denseFrom) return undefined
      const batch: Observation[] = []
      while (m < denseFrom && batch.length < BATCH) {
        const time = Y0 + m * MINUTE
        batch.push({ series: TARGET, time, value: value(TARGET, m) })
        if (m % 360 === 0) for (let s = 2; s <= SERIES; s++) batch.push({ series: s, time, value: value(s, m) })
        m++
      }
      return batch
    })
    emit({ bench: 'store-fill', phase: 'year: target every minute, 999 others every 6 h', rows: sparse.rows, seconds: round(sparse.seconds), rowsPerSec: Math.round(sparse.rows / sparse.seconds), eventLoopDelayP99Ms: round(sparse.loopDelayP99Ms) })
    // Phase 2: the last DAYS days, all 1,000 series every minute, interleaved per minute,
    // in equal parts per number of appends in flight.
    const perBatch = Math.max(1, Math.floor(BATCH / SERIES))
    let denseRows = 0
    for (const [part, inflightMax] of INFLIGHT.entries()) {
      const until = part === INFLIGHT.length - 1 ? YEAR_MINUTES : m + Math.floor((YEAR_MINUTES - denseFrom) / INFLIGHT.length)
      const dense = await fill(store, `interleaved, ${inflightMax} in flight`, inflightMax, () => {
        if (m >= until) return undefined
        const batch: Observation[] = []
        for (let k = 0; k < perBatch && m < until; k++, m++) {
          const time = Y0 + m * MINUTE
          for (let s = 1; s <= SERIES; s++) batch.push({ series: s, time, value: value(s, m) })
        }
        return batch
      })
      denseRows += dense.rows
      emit({ bench: 'store-fill', phase: 'interleaved: 1,000 series every minute', batchRows: perBatch * SERIES, inflight: inflightMax, rows: dense.rows, seconds: round(dense.seconds), rowsPerSec: Math.round(dense.rows / dense.seconds), eventLoopDelayP99Ms: round(dense.loopDelayP99Ms) })
    }
    const bytes = readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0)
    const series = await store.listSeries()
    const targetRows = await store.count(TARGET, Y0, Y1)
    emit({ bench: 'store-size', series: series.length, rows: sparse.rows + denseRows, targetRows, mb: round(bytes / 1e6, 1) })
    if (targetRows !== YEAR_MINUTES || series.length !== SERIES) throw new Error(`fill incomplete: ${targetRows} target rows, ${series.length} series`)

    const cases: Array<[string, number, () => Promise<unknown[] | number>]> = [
      ['sample year of target, 15 min', RUNS, () => store.sample(TARGET, { start: Y0, end: Y1, interval: 15 * MINUTE })],
      ['raw last 1,000 of target', RUNS * 3, () => store.read(TARGET, { end: Y1, limit: 1000, from: 'last' })],
      ['raw first 1,000 of target from a start', RUNS * 3, () => store.read(TARGET, { start: Y0 + 100_000 * MINUTE, limit: 1000, from: 'first' })],
      ['count year of target', RUNS, () => store.count(TARGET, Y0, Y1)],
      ['sample year of target, 200 buckets (automatic sampling)', RUNS, () => store.sample(TARGET, { start: Y0, end: Y1, interval: Math.ceil(YEAR_MINUTES * 60 / 200) * 1_000_000 })],
      ['sample last day of an interleaved series, 15 min', RUNS * 3, () => store.sample(500, { start: Y1 - 1440 * MINUTE, end: Y1, interval: 15 * MINUTE })],
      ['raw last 1,000 of an interleaved series', RUNS * 3, () => store.read(500, { end: Y1, limit: 1000, from: 'last' })],
    ]
    for (const [name, runs, fn] of cases) {
      progress(`read: ${name}`)
      const { ms, result } = await timeRuns(runs, fn)
      emit({ bench: 'store-read', case: name, runs, medianMs: round(median(ms)), minMs: round(Math.min(...ms)), maxMs: round(Math.max(...ms)), points: Array.isArray(result) ? result.length : result })
    }
  } finally {
    await store.close()
    if (!args.keep) rmSync(dir, { recursive: true, force: true })
    else progress(`kept ${dir}`)
  }
}

await main()
