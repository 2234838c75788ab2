// Export throughput (issue 34, "Done when": export of 100 million observations of 1,000 series
// to Parquet and CSV, rows/s and peak memory, against DuckDB writing the same rows to Parquet
// in the same run). Phases, each in its own process so each peak RSS (VmHWM) is its own:
//   build    an embedded (SQLite) store with SERIES series x ROWS/SERIES minutes each
//   parquet  the export job path (engine/export/jobs.ts: store reads → encoder → documents
//            upload into a project space on disk), Parquet
//   csv      the same, CSV
//   duckdb   the peer: DuckDB (@duckdb/node-api) writing the same rows (generated in SQL, sorted
//            by datapoint then time; no store to read) to Parquet with COPY
// Exports and the peer alternate (parquet, duckdb, csv, then again per extra round).
// Memory: each phase reports peak RSS (VmHWM) and its anonymous part (RssAnon): the store is
// read through SQLite's own page cache (no mmap), so nearly all of RSS is anonymous. It rises
// from 1M to 10M rows and then stays (2026-11-28, HISTORY): bounded caches filling up, not
// per-row state: each reader connection's page cache (64 MiB, sqlite-schema.ts) and V8's young
// generation, which `--max-semi-space-size=64` (as `npm start` runs) lets grow to 2 x 64 MiB
// per thread under the export's allocation rate.
// Prints NDJSON: one line per phase, then a summary; progress on stderr.
//   npm run bench:export                                    100,000,000 rows, 1,000 series
//   LINTEL_BENCH_EXPORT_ROWS=10000000 npm run bench:export  a shorter run
//   LINTEL_BENCH_ROUNDS=2
//   LINTEL_BENCH_STORE_DIR=/path  keep the built store there and reuse it (see below)
import { spawnSync } from 'node:child_process'
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'
import { emit, progress } from './lib.ts'

const ROWS = Number(process.env.LINTEL_BENCH_EXPORT_ROWS ?? 100_000_000)
const SERIES = Number(process.env.LINTEL_BENCH_EXPORT_SERIES ?? 1_000)
const ROUNDS = Number(process.env.LINTEL_BENCH_ROUNDS ?? 1)
const PER = Math.ceil(ROWS / SERIES)
const T0 = Date.UTC(2020, 0, 1) * 1000
const MINUTE = 60_000_000
const value = (s: number, i: number) => 20 + (i % 600) / 8 + s / 1000

const id = (s: number) => `site/dp-${String(s).padStart(5, '0')}`

async function build(dir: string) {
  const { openSqliteStore } = await import('../engine/store/sqlite-store.ts')
  const { Catalog } = await import('../catalog/index.ts')
  const { adminEndpoints } = await import('../api/registry.ts')
  const catalog = Catalog.open(dir, adminEndpoints)
  const { company, user } = await catalog.createCompanyWithAdmin('Bench', { email: 'bench@lintel.test', password: 'bench-password' })
  const { project } = await catalog.projects.create(company.id, { name: 'Export' }, user.id)
  const ids = await catalog.datapoints.ensure(project.id, Array.from({ length: SERIES }, (_, s) => id(s)))
  await catalog.files.setLimits({ kind: 'project', companyId: company.id, projectId: project.id }, { space_bytes: 1024 ** 4, file_size_bytes: 1024 ** 4 })
  await catalog.close()
  const store = await openSqliteStore({ dir })
  const t0 = performance.now()
  // Series after series through the store's bulk path (replaceRange: one transaction per
  // chunk straight into obs and the rollups, no ingest tail), CHUNK minutes at a time, 2 in
  // flight: the layout compaction leaves behind (each series contiguous), built ~5x faster
  // than interleaved appends through the tail (HISTORY: 55-108k rows/s), so 100M rows fit a run.
  const CHUNK = 50_000
  let rows = 0
  const inflight = new Set<Promise<void>>()
  for (let s = 0; s < SERIES; s++) {
    const sid = ids.get(id(s))!
    for (let i0 = 0; i0 < PER; i0 += CHUNK) {
      const i1 = Math.min(PER, i0 + CHUNK)
      const points = Array.from({ length: i1 - i0 }, (_, k) => ({ time: T0 + (i0 + k) * MINUTE, value: value(s, i0 + k) }))
      const p: Promise<void> = store.replaceRange(sid, T0 + i0 * MINUTE, T0 + i1 * MINUTE, points).then(() => { inflight.delete(p) })
      inflight.add(p)
      rows += points.length
      if (inflight.size >= 2) await Promise.race(inflight)
    }
    if ((s + 1) % 100 === 0) progress(`build: ${rows.toLocaleString()} rows, ${Math.round(rows / ((performance.now() - t0) / 1000)).toLocaleString()} rows/s`)
  }
  await Promise.all(inflight)
  await store.close()
  return { rows, seconds: (performance.now() - t0) / 1000 }
}

async function exportPhase(dir: string, format: 'csv' | 'parquet') {
  const { openSqliteStore } = await import('../engine/store/sqlite-store.ts')
  const { Catalog } = await import('../catalog/index.ts')
  const { adminEndpoints } = await import('../api/registry.ts')
  const { openFsBlobStore } = await import('../engine/blobs/fs-store.ts')
  const { Documents } = await import('../engine/blobs/documents.ts')
  const { ExportRunner } = await import('../engine/export/jobs.ts')
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const blobs = await openFsBlobStore({ dir: join(dir, 'files'), host: '127.0.0.1', port: 0 })
  const documents = new Documents(catalog.files, blobs)
  const company = (await catalog.companies.list())[0]
  const project = (await catalog.projects.listByCompany(company.id))[0]
  const dps = (await catalog.datapoints.listByProject(project.id)).map((d) => ({ id: d.id, dataPointID: d.dataPointID })).sort((a, b) => (a.dataPointID < b.dataPointID ? -1 : 1))
  const runner = await ExportRunner.start({ jobs: catalog.exportJobs, store, documents, ownsAllJobs: true })
  const path = `bench/${format}-${Date.now()}.${format}`
  const job = await catalog.exportJobs.create({ project_id: project.id, user_id: 1, format, path, spec: { datapoints: dps.map((d) => d.dataPointID), start: T0, end: T0 + PER * MINUTE }, rows_estimate: ROWS }, Date.now())
  const t0 = performance.now()
  const ticker = setInterval(() => {
    catalog.exportJobs.get(project.id, job.id).then((j) => j && progress(`${format}: ${j.rows_done.toLocaleString()} rows`), () => {})
  }, 10_000)
  await runner.run(job, project.company_id, dps)
  clearInterval(ticker)
  const seconds = (performance.now() - t0) / 1000
  const done = (await catalog.exportJobs.get(project.id, job.id))!
  if (done.state !== 'done') throw new Error(`export failed: ${done.error}`)
  await documents.delete({ kind: 'project', companyId: project.company_id, projectId: project.id }, path)
  await store.close(); await blobs.close(); await catalog.close()
  return { rows: done.rows_done, seconds, bytes: done.bytes }
}

async function duckdbPhase(dir: string) {
  const { DuckDBInstance } = await import('@duckdb/node-api')
  const db = await DuckDBInstance.create(':memory:', { threads: '2' })
  const c = await db.connect()
  const file = join(dir, 'duck.parquet')
  const t0 = performance.now()
  await c.run(`COPY (
    SELECT 'site/dp-' || lpad(s::VARCHAR, 5, '0') AS datapoint, make_timestamp(${T0}::BIGINT + i * ${MINUTE}::BIGINT) AS time,
      20 + (i % 600) / 8 + s / 1000 AS value
    FROM range(${SERIES}) a(s), range(${PER}) b(i) ORDER BY datapoint, time
  ) TO '${file}' (FORMAT parquet, ROW_GROUP_SIZE 122880)`)
  const seconds = (performance.now() - t0) / 1000
  const bytes = statSync(file).size
  const rows = Number((await c.runAndReadAll(`SELECT count(*) FROM '${file}'`)).getRows()[0][0])
  rmSync(file)
  c.closeSync(); db.closeSync()
  return { rows, seconds, bytes }
}

const mb = (b: number) => Math.round(b / 1024 / 1024)
/** VmRSS, RssAnon, RssFile, RssShmem, VmHWM of this process, in bytes (Linux). */
function procStatus(): Record<string, number> {
  const out: Record<string, number> = {}
  for (const m of readFileSync('/proc/self/status', 'utf8').matchAll(/^(VmRSS|RssAnon|RssFile|RssShmem|VmHWM):\s+(\d+) kB/gm)) out[m[1]] = Number(m[2]) * 1024
  return out
}

const phase = process.argv[2]
if (phase) {
  const dir = process.argv[3]
  // Memory by kind (/proc/self/status: RssAnon is the process's own memory, heap and SQLite's
  // page caches included; RssFile counts file pages mapped, e.g. code and a store's mmap)
  // beside the JS figures; peaks of 100 ms samples, a line on stderr every 10 s.
  const peak: Record<string, number> = {}
  let ticks = 0
  const sample = setInterval(() => {
    const u = process.memoryUsage()
    const m = { ...procStatus(), heapTotal: u.heapTotal, heapUsed: u.heapUsed, external: u.external, arrayBuffers: u.arrayBuffers }
    for (const [k, v] of Object.entries(m)) peak[k] = Math.max(peak[k] ?? 0, v)
    if (++ticks % 100 === 0) progress(`${phase} memory MiB: ${Object.entries(m).map(([k, v]) => `${k} ${mb(v)}`).join(', ')}`)
  }, 100)
  sample.unref()
  const r = phase === 'build' ? await build(dir) : phase === 'duckdb' ? await duckdbPhase(dir) : await exportPhase(dir, phase as 'csv' | 'parquet')
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  clearInterval(sample)
  process.stdout.write(JSON.stringify({
    phase, ...r, rowsPerSecond: Math.round(r.rows / r.seconds), peakRssMb, peakRssAnonMb: mb(peak.RssAnon ?? 0), peakRssFileMb: mb(peak.RssFile ?? 0),
    peakHeapMb: mb(peak.heapUsed), peakHeapTotalMb: mb(peak.heapTotal), peakExternalMb: mb(peak.external), peakArrayBuffersMb: mb(peak.arrayBuffers),
  }) + '\n')
  process.exit(0)
}

// LINTEL_BENCH_STORE_DIR keeps the built store there and reuses it when it holds the same rows
// and series (bench-export.json; bench:retention can start from it too): a 100M-row build
// takes minutes. Without it, a temporary directory, removed at the end.
const KEEP = process.env.LINTEL_BENCH_STORE_DIR
const dir = KEEP ?? mkdtempSync(join(tmpdir(), 'lintel-bench-export-'))
const marker = join(dir, 'bench-export.json')
const self = fileURLToPath(import.meta.url)
const run = (p: string) => {
  progress(`phase ${p} ...`)
  const r = spawnSync(process.execPath, [...process.execArgv, '--max-semi-space-size=64', self, p, dir], { stdio: ['ignore', 'pipe', 'inherit'], encoding: 'utf8', maxBuffer: 1 << 20 })
  if (r.status !== 0) throw new Error(`phase ${p} failed (exit ${r.status})`)
  const line = JSON.parse(r.stdout.trim().split('\n').pop()!)
  emit(line)
  return line
}
const load = () => (spawnSync('uptime', { encoding: 'utf8' }).stdout ?? '').trim()
type Phase = { rowsPerSecond: number; peakRssMb: number; peakRssAnonMb: number; peakHeapMb: number }
try {
  const loadBefore = load()
  const kept = existsSync(marker) ? JSON.parse(readFileSync(marker, 'utf8')) as { rows: number; series: number; rowsPerSecond: number } : undefined
  let built: { rowsPerSecond: number; reused?: boolean }
  if (kept && kept.rows === PER * SERIES && kept.series === SERIES) {
    progress(`reusing the store in ${dir}`)
    built = { rowsPerSecond: kept.rowsPerSecond, reused: true }
  } else {
    if (KEEP) { rmSync(dir, { recursive: true, force: true }); mkdirSync(dir, { recursive: true }) }
    built = run('build')
    writeFileSync(marker, JSON.stringify({ rows: PER * SERIES, series: SERIES, rowsPerSecond: built.rowsPerSecond }))
  }
  const storeMb = Math.round(statSync(join(dir, 'timeseries.db')).size / 2 ** 20)
  const results: Record<string, Phase[]> = { parquet: [], duckdb: [], csv: [] }
  for (let r = 0; r < ROUNDS; r++) for (const p of ['parquet', 'duckdb', 'csv']) results[p].push(run(p))
  const best = (p: string) => results[p].reduce((a, b) => (b.rowsPerSecond > a.rowsPerSecond ? b : a))
  const most = (p: string, k: keyof Phase) => Math.max(...results[p].map((x) => x[k]))
  emit({
    summary: 'export', rows: ROWS, series: SERIES, rounds: ROUNDS, buildRowsPerSecond: built.rowsPerSecond, storeReused: built.reused ?? false, storeMb,
    parquetRowsPerSecond: best('parquet').rowsPerSecond, csvRowsPerSecond: best('csv').rowsPerSecond, duckdbParquetRowsPerSecond: best('duckdb').rowsPerSecond,
    parquetVsDuckdb: +(best('parquet').rowsPerSecond / best('duckdb').rowsPerSecond).toFixed(3),
    peakRssMb: { parquet: most('parquet', 'peakRssMb'), csv: most('csv', 'peakRssMb'), duckdb: most('duckdb', 'peakRssMb') },
    peakRssAnonMb: { parquet: most('parquet', 'peakRssAnonMb'), csv: most('csv', 'peakRssAnonMb'), duckdb: most('duckdb', 'peakRssAnonMb') },
    peakHeapMb: { parquet: most('parquet', 'peakHeapMb'), csv: most('csv', 'peakHeapMb') },
    loadBefore, loadAfter: load(),
  })
} finally {
  if (!KEEP) rmSync(dir, { recursive: true, force: true })
}
