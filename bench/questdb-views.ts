// npm run bench:questdb-views (issue 14 item 3, scaled mode: "use what QuestDB offers for this
// (materialized views) or the same rollups, measured"). A year of 1-minute data in one series
// of a scaled-store table (written through the store, as bench:reads does), then:
//   - 15-minute and daily means read by SAMPLE BY over the raw rows (what the scaled store
//     does, questdb-sql.ts sampleBySql), one /exec request each;
//   - the same means read from a materialized view that keeps 15-minute count/sum/min/max/
//     first/last per series (SAMPLE BY 15m, refreshed by QuestDB after each base commit);
//   - how long after an acknowledged append the view shows it (refresh lag).
// Medians of RUNS (default 7) runs; one JSON object per line with the load average.
// QuestDB at $LINTEL_QUESTDB_URL (default http://127.0.0.1:19000).
import { loadavg } from 'node:os'
import { openQuestdbStore } from '../engine/store/questdb-store.ts'
import { SHIFT, sampleBySql, storedBounds } from '../engine/store/questdb-sql.ts'
import { emit as emitLine, median, progress } from './lib.ts'

const emit = (o: object) => emitLine({ bench: 'questdb-views', ...o, load1: Math.round(loadavg()[0] * 10) / 10 })
const RUNS = Number(process.env.RUNS ?? 7)
const url = process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000'
const MINUTE = 60_000_000
const Y0 = Date.UTC(2023, 0, 1) * 1000
const Y1 = Y0 + 525_600 * MINUTE
const value = (i: number) => Math.round((20 + 5 * Math.sin(i / 720) + (i % 17) / 10) * 100) / 100
const table = `bench_views_${process.pid}`
const view = `${table}_15m`

async function exec(sql: string): Promise<{ dataset: unknown[][] }> {
  const res = await fetch(`${url}/exec?query=${encodeURIComponent(sql)}`)
  const body = await res.json() as { dataset: unknown[][]; error?: string }
  if (!res.ok || body.error) throw new Error(`${sql.slice(0, 120)}: ${body.error ?? res.status}`)
  return body
}

async function timed(name: string, sql: string, rows: number): Promise<void> {
  const got = (await exec(sql)).dataset.length
  if (got !== rows) throw new Error(`${name}: ${got} rows, expected ${rows}`)
  const runs: number[] = []
  for (let r = 0; r < RUNS; r++) { const t0 = performance.now(); await exec(sql); runs.push(performance.now() - t0) }
  emit({ read: name, rows, median_ms: Math.round(median(runs) * 100) / 100, runs_ms: runs.map((x) => Math.round(x * 100) / 100) })
}

const store = await openQuestdbStore({ url, table })
try {
  progress('writing a year of 1-minute data ...')
  for (let from = 0; from < 525_600; from += 100_000) {
    const batch = []
    for (let i = from; i < Math.min(525_600, from + 100_000); i++) batch.push({ series: 1, time: Y0 + i * MINUTE, value: value(i) })
    await store.append(batch)
  }
  const b = storedBounds(Y0, Y1)
  const origin = BigInt(Y0)
  await timed('SAMPLE BY 15m over raw rows (scaled store today)', sampleBySql(table, 1, b, '15m', origin), 35_040)
  await timed('SAMPLE BY 1d over raw rows (scaled store today)', sampleBySql(table, 1, b, '1d', origin), 365)

  const t0 = performance.now()
  await exec(`CREATE MATERIALIZED VIEW ${view} AS (SELECT ts, series, count() n, sum(value) s, min(value) mn, max(value) mx, first(value) f, last(value) l FROM ${table} SAMPLE BY 15m) PARTITION BY MONTH`)
  const rowsIn = async (sql: string) => Number((await exec(sql)).dataset[0][0])
  while (await rowsIn(`SELECT count() FROM ${view}`) < 35_040) await new Promise((r) => setTimeout(r, 50))
  emit({ step: 'materialized view (15-minute count/sum/min/max/first/last per series) built from a year of data', seconds: Math.round(performance.now() - t0) / 1000 })

  const where = `WHERE series = '1' AND ts >= ${b.lo} AND ts < ${b.hi}`
  await timed('15-minute means from the view', `SELECT ts::long - ${SHIFT} t, s / n m FROM ${view} ${where} ORDER BY ts`, 35_040)
  await timed('daily means from the view (SAMPLE BY 1d over its rows)', `SELECT ts::long - ${SHIFT} t, m FROM (SELECT ts, sum(s) / sum(n) m FROM ${view} ${where} SAMPLE BY 1d FROM ${origin + SHIFT}::timestamp)`, 365)

  // Refresh lag: append() resolves when the base table shows the rows; the view follows later.
  const lags: number[] = []
  for (let r = 0; r < RUNS; r++) {
    const t = Y1 + r * 15 * MINUTE
    await store.append([{ series: 1, time: t, value: 1 }])
    const a = performance.now()
    while (await rowsIn(`SELECT count() FROM ${view} WHERE series = '1' AND ts = ${BigInt(t) + SHIFT}`) === 0) await new Promise((res) => setTimeout(res, 5))
    lags.push(performance.now() - a)
  }
  emit({ step: 'view refresh lag after an acknowledged append (base table already visible)', median_ms: Math.round(median(lags)), runs_ms: lags.map((x) => Math.round(x)) })
} finally {
  await exec(`DROP MATERIALIZED VIEW IF EXISTS ${view}`).catch((err) => progress(String(err)))
  await exec(`DROP TABLE IF EXISTS ${table}`).catch((err) => progress(String(err)))
  await store.close()
}
