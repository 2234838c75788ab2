// bench:retention (issue 34 item 2): a retention sweep of 10% of a large SQLite store while
// ingest runs, against the same ingest without a sweep, in one run and alternated.
//
// The store is filled with ROWS rows (1,000 series, one row a minute each, series after series
// through the bulk path: the layout compaction of the ingest tail leaves), then
// PAIRS pairs of phases run, each phase with the same ingest: batches of 10 rows per series (10,000
// rows, times after everything stored) appended as fast as taken, 4 in flight. A phase "sweep"
// runs the retention runtime's own loop (engine/retention trimSeries: steps of 20,000 rows on the
// writer thread between appends) over the next 10% / PAIRS of the rows, and lasts as long as that
// sweep; "plain" phases without a sweep run before the first sweep (10 s) and after each sweep
// (as long as it), after a 10 s warm-up that is not counted. The figure is the ingest rate
// (rows/s) of each phase; per sweep the ratio to the mean of the plain phases around it.
// The file size before the phases and after (the phases also ingest; disk space really returned
// is shown by test/engine/sqlite-retention.test.ts).
//
//   npm run bench:retention -- [rows=10000000] [pairs=4]
//   LINTEL_BENCH_STORE_DIR=/path  reuse (copy) a store of those rows kept there, or fill and keep one
// NDJSON on stdout, progress on stderr.
import { copyFileSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import type { Observation, TimeseriesStore } from '../engine/store/port.ts'
import { ROLLUP_LEVELS } from '../engine/store/sqlite-rollups.ts'
import { trimSeries } from '../engine/retention/index.ts'
import { DB_FILE } from '../engine/store/sqlite-schema.ts'
import { emit, progress } from './lib.ts'

const ROWS = Number(process.argv[2] ?? 10_000_000)
const PAIRS = Number(process.argv[3] ?? 4)
const SERIES = 1000
/** Ingest before the first measured phase, not counted. */
const WARMUP_S = 10
const M = 60_000_000
const T0 = Date.UTC(2020, 0, 1) * 1000
const MINUTES = Math.ceil(ROWS / SERIES)
const ids = Array.from({ length: SERIES }, (_, i) => i + 1)

function batch(fromMinute: number, minutes: number): Observation[] {
  const out: Observation[] = []
  for (let m = fromMinute; m < fromMinute + minutes; m++) for (const s of ids) out.push({ series: s, time: T0 + m * M, value: (s * 7 + m) % 1000 })
  return out
}

/** Appends live batches, 4 in flight, until `until` resolves; the rows/s. */
async function ingest(store: TimeseriesStore, next: { minute: number }, until: Promise<unknown>): Promise<{ rows: number; seconds: number }> {
  let done = false
  void until.then(() => { done = true })
  const began = performance.now()
  let rows = 0
  const worker = async () => {
    while (!done) {
      const b = batch(next.minute, 10)
      next.minute += 10
      await store.append(b)
      rows += b.length
    }
  }
  await Promise.all([worker(), worker(), worker(), worker()])
  return { rows, seconds: (performance.now() - began) / 1000 }
}

/** Fills a store in `at` series after series through the bulk path (replaceRange, ~5x appends through the tail). */
async function fill(at: string): Promise<void> {
  const store = await openSqliteStore({ dir: at })
  const CHUNK = 50_000
  for (const s of ids) {
    for (let m0 = 0; m0 < MINUTES; m0 += CHUNK) {
      const m1 = Math.min(MINUTES, m0 + CHUNK)
      const points = Array.from({ length: m1 - m0 }, (_, k) => ({ time: T0 + (m0 + k) * M, value: (s * 7 + m0 + k) % 1000 }))
      await store.replaceRange(s, T0 + m0 * M, T0 + m1 * M, points)
    }
    if (s % 100 === 0) progress(`filled ${(s * MINUTES).toLocaleString()} of ${ROWS.toLocaleString()} rows`)
  }
  await store.close()
}

// LINTEL_BENCH_STORE_DIR: a store of the same rows kept there (by bench:export or an earlier run
// of this bench; its marker file says how many rows) is copied instead of filled, else filled
// there and kept. The sweep works on the copy, so the kept store stays as built.
const KEEP = process.env.LINTEL_BENCH_STORE_DIR
const kept = (): boolean => ['bench-export.json', 'bench-retention.json'].some((f) => {
  const m = join(KEEP!, f)
  if (!existsSync(m)) return false
  const { rows, series } = JSON.parse(readFileSync(m, 'utf8')) as { rows: number; series: number }
  return rows === MINUTES * SERIES && series === SERIES
})
const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-retention-'))
try {
  const fillStart = performance.now()
  let copied = false
  if (KEEP) {
    if (kept()) copied = true
    else {
      rmSync(KEEP, { recursive: true, force: true }); mkdirSync(KEEP, { recursive: true })
      await fill(KEEP)
      writeFileSync(join(KEEP, 'bench-retention.json'), JSON.stringify({ rows: MINUTES * SERIES, series: SERIES }))
    }
    copyFileSync(join(KEEP, DB_FILE), join(dir, DB_FILE))
  } else await fill(dir)
  const fillSeconds = (performance.now() - fillStart) / 1000
  const store = await openSqliteStore({ dir })
  const sizeFull = statSync(join(dir, DB_FILE)).size
  emit({ bench: 'retention', phase: copied ? 'copy' : 'fill', rows: MINUTES * SERIES, seconds: +fillSeconds.toFixed(1), rows_per_s: copied ? undefined : Math.round(MINUTES * SERIES / fillSeconds), file_mb: +(sizeFull / 2 ** 20).toFixed(1) })
  const next = { minute: MINUTES }
  const wait = (seconds: number) => new Promise((r) => setTimeout(r, seconds * 1000))
  const rate = (x: { rows: number; seconds: number }) => x.rows / x.seconds
  // Warm-up, not counted: the first seconds on a freshly opened store ingest faster than later
  // (pair 1 was the lowest ratio in every earlier run, its plain phase those first 10 s).
  let ingested = (await ingest(store, next, wait(WARMUP_S))).rows
  let before = await ingest(store, next, wait(10))
  ingested += before.rows
  const ratios: number[] = []
  let removedAll = 0
  for (let pair = 1; pair <= PAIRS; pair++) {
    // The next slice of the oldest 10%: everything before its bound, raw rows and every rollup level.
    const bound = T0 + Math.round(MINUTES * 0.1 * pair / PAIRS) * M
    const bounds = { raw: bound, rollups: ROLLUP_LEVELS.map((level) => ({ level, before: bound })) }
    const sweepStart = performance.now()
    let removed = 0
    const sweep = trimSeries(store, ids, bounds, 20_000).then((n) => { removed = n })
    const during = await ingest(store, next, sweep)
    const sweepSeconds = (performance.now() - sweepStart) / 1000
    // The plain phase after the sweep lasts as long as it; each sweep is compared with the mean of
    // the plain phases around it (ingest slows as the store grows: one side alone would skew).
    const after = await ingest(store, next, wait(Math.max(5, sweepSeconds)))
    removedAll += removed
    ingested += during.rows + after.rows
    const a = (rate(before) + rate(after)) / 2
    const b = rate(during)
    ratios.push(b / a)
    emit({ bench: 'retention', pair, plain_rows_per_s: Math.round(a), plain_before: Math.round(rate(before)), plain_after: Math.round(rate(after)), sweep_rows_per_s: Math.round(b), ratio: +(b / a).toFixed(3), removed, sweep_seconds: +sweepSeconds.toFixed(1), removed_per_s: Math.round(removed / sweepSeconds) })
    progress(`pair ${pair}: plain ${Math.round(a)} rows/s, during the sweep ${Math.round(b)} rows/s (${(100 * b / a).toFixed(0)}%), ${removed} rows removed in ${sweepSeconds.toFixed(1)} s`)
    before = after
  }
  await store.close()
  const sizeAfter = statSync(join(dir, DB_FILE)).size
  const sorted = [...ratios].sort((x, y) => x - y)
  emit({
    bench: 'retention', summary: true, store_rows: MINUTES * SERIES, series: SERIES, removed: removedAll, pairs: PAIRS,
    ratio_median: +sorted[Math.floor(sorted.length / 2)].toFixed(3), ratio_min: +sorted[0].toFixed(3),
    ingested_during_phases: ingested, file_mb_before: +(sizeFull / 2 ** 20).toFixed(1), file_mb_after: +(sizeAfter / 2 ** 20).toFixed(1),
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
