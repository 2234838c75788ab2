// Embedded vs scaled time-series store, and QuestDB alone (the peer), in one run:
//   - sqlite:      engine/store/sqlite-store.ts (the embedded default)
//   - questdb:     engine/store/questdb-store.ts (the scaled adapter: ILP writes that resolve
//                  when durable and visible, SQL reads)
//   - questdb-ilp: QuestDB fed directly by @questdb/nodejs-client (one Sender, a flush per
//                  batch) and queried directly over /exec with SAMPLE BY: what QuestDB
//                  gives without the adapter's guarantees.
// Ingest: 1,000 series every minute, interleaved (each 10k batch = 10 minutes of all of
// them), --rows rows per number of appends in flight (the peer: one Sender, 1 in flight).
// Reads (medians of --runs after a warm-up): one series' year of 1-minute data down-sampled
// to 15-minute means (35,040 buckets), and its last 1,000 raw points. The interleaved part
// is the last days of that year, so the read also crosses partitions of all 1,000 series.
// NDJSON results on stdout (one line per measurement, then ratio lines), progress on stderr.
//
//   npm run bench:store-compare -- [--rows 2000000] [--inflight 1,4] [--runs 7] [--url http://127.0.0.1:19000] [--keep]
//
// QuestDB: $LINTEL_QUESTDB_URL or --url; when nothing answers there, the bench starts one
// with scripts/services/questdb.sh (default ports) and stops it at the end.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readdirSync, rmSync, statSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseArgs } from 'node:util'
import { Sender } from '@questdb/nodejs-client'
import type { MeanPoint, Observation, TimeseriesStore } from '../engine/store/port.ts'
import { QuestdbHttp } from '../engine/store/questdb-http.ts'
import { openQuestdbStore } from '../engine/store/questdb-store.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { emit, median, progress } from './lib.ts'

const { values: args } = parseArgs({
  options: {
    rows: { type: 'string', default: '2000000' },
    inflight: { type: 'string', default: '1,4' },
    runs: { type: 'string', default: '7' },
    batch: { type: 'string', default: '10000' },
    url: { type: 'string', default: process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000' },
    keep: { type: 'boolean', default: false },
  },
})
const ROWS = Number(args.rows)
const INFLIGHT = args.inflight.split(',').map(Number)
const RUNS = Number(args.runs)
const BATCH = Number(args.batch)
const URL = args.url

const MINUTE = 60_000_000
const YEAR_MINUTES = 525_600
const SERIES = 1000
const TARGET = 1
const Y0 = Date.UTC(2023, 0, 1) * 1000
const Y1 = Y0 + YEAR_MINUTES * MINUTE
const PER_BATCH_MINUTES = Math.max(1, Math.floor(BATCH / SERIES))
const MINUTES_PER_LEVEL = Math.ceil(ROWS / SERIES / PER_BATCH_MINUTES) * PER_BATCH_MINUTES
/** First minute of the interleaved part: the last days of the year. */
const DENSE_FROM = YEAR_MINUTES - MINUTES_PER_LEVEL * INFLIGHT.length
const value = (s: number, m: number) => 20 + 5 * Math.sin(m / 720 + s) + (m % 13) / 10
const round = (x: number, d = 2) => Math.round(x * 10 ** d) / 10 ** d
const BENCH = 'store-compare'

if (DENSE_FROM < 0) throw new Error('--rows too large: the interleaved part must fit in one year')

/** Interleaved batches: all series for PER_BATCH_MINUTES minutes, minutes [from, to). */
function interleaved(from: number, to: number): () => Observation[] | undefined {
  let m = from
  return () => {
    if (m >= to) return undefined
    const batch: Observation[] = []
    for (let k = 0; k < PER_BATCH_MINUTES && m < to; k++, m++) {
      const time = Y0 + m * MINUTE
      for (let s = 1; s <= SERIES; s++) batch.push({ series: s, time, value: value(s, m) })
    }
    return batch
  }
}

/** The target's history before the interleaved part, BATCH rows at a time. */
function history(): () => Observation[] | undefined {
  let m = 0
  return () => {
    if (m >= DENSE_FROM) return undefined
    const batch: Observation[] = []
    for (; m < DENSE_FROM && batch.length < BATCH; m++) batch.push({ series: TARGET, time: Y0 + m * MINUTE, value: value(TARGET, m) })
    return batch
  }
}

async function fill(label: string, inflightMax: number, next: () => Observation[] | undefined, append: (b: Observation[]) => Promise<void>): Promise<{ rows: number; seconds: number; loopDelayP99Ms: number }> {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const t0 = performance.now()
  let rows = 0
  let lastReport = t0
  const inflight = new Set<Promise<void>>()
  for (let batch = next(); batch; batch = next()) {
    const p: Promise<void> = append(batch).then(() => { inflight.delete(p) })
    inflight.add(p)
    rows += batch.length
    if (inflight.size >= inflightMax) await Promise.race(inflight)
    const now = performance.now()
    if (now - lastReport > 3000) {
      lastReport = now
      progress(`${label}: ${rows.toLocaleString()} rows, ${Math.round(rows / ((now - t0) / 1000)).toLocaleString()} rows/s`)
    }
  }
  await Promise.all(inflight)
  delay.disable()
  return { rows, seconds: (performance.now() - t0) / 1000, loopDelayP99Ms: round(delay.percentile(99) / 1e6) }
}

async function timeRuns<T>(runs: number, fn: () => Promise<T>): Promise<{ ms: number[]; result: T }> {
  let result = await fn()
  const ms: number[] = []
  for (let i = 0; i < runs; i++) {
    const t0 = performance.now()
    result = await fn()
    ms.push(performance.now() - t0)
  }
  return { ms, result }
}

interface Results { ingest: Map<number, number>; sampleMs: number; lastMs: number; buckets: number; means?: MeanPoint[] }

/** Ingest and reads through the port (both adapters). */
async function throughPort(name: string, store: TimeseriesStore): Promise<Results> {
  const ingest = new Map<number, number>()
  for (const [i, level] of INFLIGHT.entries()) {
    const from = DENSE_FROM + i * MINUTES_PER_LEVEL
    const r = await fill(`${name} interleaved, ${level} in flight`, level, interleaved(from, from + MINUTES_PER_LEVEL), (b) => store.append(b))
    ingest.set(level, r.rows / r.seconds)
    emit({ bench: BENCH, store: name, phase: 'ingest interleaved', series: SERIES, batchRows: PER_BATCH_MINUTES * SERIES, inflight: level, rows: r.rows, seconds: round(r.seconds), rowsPerSec: Math.round(r.rows / r.seconds), eventLoopDelayP99Ms: r.loopDelayP99Ms })
  }
  const h = await fill(`${name} history of the target`, 4, history(), (b) => store.append(b))
  emit({ bench: BENCH, store: name, phase: 'load history of one series (not compared)', inflight: 4, rows: h.rows, seconds: round(h.seconds), rowsPerSec: Math.round(h.rows / h.seconds) })
  const n = await store.count(TARGET, Y0, Y1)
  if (n !== YEAR_MINUTES) throw new Error(`${name}: the target holds ${n} rows in the year, want ${YEAR_MINUTES}`)
  progress(`${name}: reads`)
  const sample = await timeRuns(RUNS, () => store.sample(TARGET, { start: Y0, end: Y1, interval: 15 * MINUTE }))
  const last = await timeRuns(RUNS * 3, () => store.read(TARGET, { end: Y1, limit: 1000, from: 'last' }))
  if (last.result.length !== 1000) throw new Error(`${name}: last read gave ${last.result.length} points`)
  const res: Results = { ingest, sampleMs: median(sample.ms), lastMs: median(last.ms), buckets: sample.result.length, means: sample.result }
  emit({ bench: BENCH, store: name, phase: 'read', case: 'one series, year of 1-minute data, 15-minute means', runs: RUNS, medianMs: round(res.sampleMs), minMs: round(Math.min(...sample.ms)), buckets: res.buckets })
  emit({ bench: BENCH, store: name, phase: 'read', case: 'one series, last 1,000 raw points', runs: RUNS * 3, medianMs: round(res.lastMs), minMs: round(Math.min(...last.ms)) })
  return res
}

async function applied(http: QuestdbHttp, table: string): Promise<void> {
  for (;;) {
    const [[writerTxn, sequencerTxn, suspended]] = await http.exec(`SELECT writerTxn, sequencerTxn, suspended FROM wal_tables() WHERE name = '${table}'`) as Array<[number, number, boolean]>
    if (suspended) throw new Error(`${table} is suspended`)
    if (writerTxn >= sequencerTxn) return
    await new Promise((r) => setTimeout(r, 5))
  }
}

/** The peer: QuestDB alone, fed by one Sender and read by plain SQL. */
async function peer(http: QuestdbHttp, table: string): Promise<Results> {
  await http.exec(`CREATE TABLE ${table} (ts TIMESTAMP, series SYMBOL CAPACITY 65536 CACHE INDEX, value DOUBLE) TIMESTAMP(ts) PARTITION BY DAY WAL DEDUP UPSERT KEYS(ts, series)`)
  const host = new globalThis.URL(URL).host
  const sender = await Sender.fromConfig(`http::addr=${host};auto_flush=off;protocol_version=2;init_buf_size=4194304;max_buf_size=268435456;`)
  const send = async (batch: Observation[]) => {
    for (const o of batch) sender.table(table).symbol('series', String(o.series)).floatColumn('value', o.value).at(BigInt(o.time), 'us')
    await sender.flush()
  }
  try {
    const all = interleaved(DENSE_FROM, YEAR_MINUTES)
    const t0 = performance.now()
    const r = await fill('questdb-ilp interleaved, one Sender', 1, all, send)
    await applied(http, table)
    const visible = (performance.now() - t0) / 1000
    emit({ bench: BENCH, store: 'questdb-ilp', phase: 'ingest interleaved', series: SERIES, batchRows: PER_BATCH_MINUTES * SERIES, inflight: 1, rows: r.rows, seconds: round(r.seconds), rowsPerSec: Math.round(r.rows / r.seconds), visibleSeconds: round(visible), visibleRowsPerSec: Math.round(r.rows / visible), eventLoopDelayP99Ms: r.loopDelayP99Ms })
    const h = await fill('questdb-ilp history of the target', 1, history(), send)
    await applied(http, table)
    emit({ bench: BENCH, store: 'questdb-ilp', phase: 'load history of one series (not compared)', inflight: 1, rows: h.rows, seconds: round(h.seconds), rowsPerSec: Math.round(h.rows / h.seconds) })
    const ingest = new Map([[1, r.rows / r.seconds]])
    const iso = (us: number) => new Date(us / 1000).toISOString()
    progress('questdb-ilp: reads')
    const sampleSql = `SELECT ts, avg(value) FROM ${table} WHERE series = '${TARGET}' AND ts >= '${iso(Y0)}' AND ts < '${iso(Y1)}' SAMPLE BY 15m`
    const lastSql = `SELECT ts, value FROM ${table} WHERE series = '${TARGET}' AND ts < '${iso(Y1)}' ORDER BY ts DESC LIMIT 1000`
    const sample = await timeRuns(RUNS, () => http.exec(sampleSql))
    const last = await timeRuns(RUNS * 3, () => http.exec(lastSql))
    const res: Results = { ingest, sampleMs: median(sample.ms), lastMs: median(last.ms), buckets: sample.result.length }
    emit({ bench: BENCH, store: 'questdb-ilp', phase: 'read', case: 'one series, year of 1-minute data, 15-minute means', query: 'SAMPLE BY 15m over /exec', runs: RUNS, medianMs: round(res.sampleMs), minMs: round(Math.min(...sample.ms)), buckets: res.buckets })
    emit({ bench: BENCH, store: 'questdb-ilp', phase: 'read', case: 'one series, last 1,000 raw points', runs: RUNS * 3, medianMs: round(res.lastMs), minMs: round(Math.min(...last.ms)) })
    return res
  } finally {
    await sender.close()
  }
}

async function reachable(): Promise<boolean> {
  try {
    return (await fetch(`${URL}/exec?query=select%201`, { signal: AbortSignal.timeout(2000) })).ok
  } catch {
    return false
  }
}

async function tableMb(http: QuestdbHttp, table: string): Promise<number> {
  const [[bytes]] = await http.exec(`SELECT sum(diskSize) FROM table_partitions('${table}')`)
  return round(Number(bytes) / 1e6, 1)
}

async function main() {
  let started = false
  if (!await reachable()) {
    progress(`no QuestDB at ${URL}: starting one with scripts/services/questdb.sh`)
    execFileSync('bash', [join(import.meta.dirname, '..', 'scripts', 'services', 'questdb.sh'), 'start'], { stdio: ['ignore', 'inherit', 'inherit'] })
    started = true
  }
  // Short names of equal length: the ILP client writes the table name into every row byte
  // by byte, so its length shows in the rate (production uses 'obs').
  const run = Date.now().toString(36)
  const tableAdapter = `a${run}`
  const tablePeer = `p${run}`
  const http = new QuestdbHttp({ url: URL })
  const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-compare-'))
  emit({ bench: BENCH, config: { rowsPerLevel: MINUTES_PER_LEVEL * SERIES, inflight: INFLIGHT, batch: PER_BATCH_MINUTES * SERIES, runs: RUNS, url: URL, questdb: (await http.exec('SELECT build()'))[0]?.[0] } })
  try {
    const sqlite = await openSqliteStore({ dir })
    let lite: Results
    try {
      lite = await throughPort('sqlite', sqlite)
    } finally {
      await sqlite.close()
    }
    const liteMb = round(readdirSync(dir).reduce((sum, f) => sum + statSync(join(dir, f)).size, 0) / 1e6, 1)
    const quest = await openQuestdbStore({ url: URL, table: tableAdapter })
    let qdb: Results
    try {
      qdb = await throughPort('questdb', quest)
    } finally {
      await quest.close()
    }
    const bare = await peer(http, tablePeer)
    emit({ bench: BENCH, phase: 'size', sqliteMb: liteMb, questdbMb: await tableMb(http, tableAdapter), questdbIlpMb: await tableMb(http, tablePeer) })

    // The adapters must agree bucket for bucket; the peer's bucket count too.
    const a = lite.means!; const b = qdb.means!
    const same = a.length === b.length && a.every((p, i) => p.time === b[i].time && Math.abs(p.mean - b[i].mean) <= 1e-9 * Math.abs(p.mean))
    if (!same || bare.buckets !== a.length) throw new Error(`results differ: sqlite ${a.length} buckets, questdb ${b.length} (equal: ${same}), peer ${bare.buckets}`)

    const ratio = (name: string, x: number, unit: string) => emit({ bench: BENCH, ratio: name, value: round(x, 3), unit })
    for (const level of INFLIGHT) {
      ratio(`ingest rows/s questdb / sqlite, ${level} in flight`, qdb.ingest.get(level)! / lite.ingest.get(level)!, 'x')
      ratio(`ingest rows/s questdb / questdb-ilp, ${level} in flight vs the peer's one Sender`, qdb.ingest.get(level)! / bare.ingest.get(1)!, 'x')
    }
    ratio('ingest rows/s sqlite / questdb-ilp, 1 in flight', lite.ingest.get(INFLIGHT[0])! / bare.ingest.get(1)!, 'x')
    ratio('15-minute means of a year: latency questdb / sqlite', qdb.sampleMs / lite.sampleMs, 'x (below 1 = questdb faster)')
    ratio('15-minute means of a year: latency questdb / questdb-ilp', qdb.sampleMs / bare.sampleMs, 'x')
    ratio('15-minute means of a year: latency sqlite / questdb-ilp', lite.sampleMs / bare.sampleMs, 'x')
    ratio('last 1,000 raw points: latency questdb / sqlite', qdb.lastMs / lite.lastMs, 'x')
    ratio('last 1,000 raw points: latency questdb / questdb-ilp', qdb.lastMs / bare.lastMs, 'x')
  } finally {
    rmSync(dir, { recursive: true, force: true })
    if (!args.keep) {
      for (const t of [tableAdapter, tablePeer]) await http.exec(`DROP TABLE IF EXISTS ${t}`).catch(() => {})
    } else progress(`kept QuestDB tables ${tableAdapter}, ${tablePeer}`)
    await http.close()
    if (started) execFileSync('bash', [join(import.meta.dirname, '..', 'scripts', 'services', 'questdb.sh'), 'stop'], { stdio: ['ignore', 'inherit', 'inherit'] })
  }
}

await main()
