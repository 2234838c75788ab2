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
// Prints NDJSON: one line per phase, then a summary; progress on stderr.
//   npm run bench:export                                    100,000,000 rows, 1,000 series
//   LINTEL_BENCH_EXPORT_ROWS=10000000 npm run bench:export  a shorter run
//   LINTEL_BENCH_ROUNDS=2
import { spawnSync } from 'node:child_process'
import { mkdtempSync, rmSync, statSync } from 'node:fs'
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
  const BATCH = 50_000
  let rows = 0
  const inflight = new Set<Promise<void>>()
  // Minute by minute across all series (as ingest arrives), in batches.
  let batch: { series: number; time: number; value: number }[] = []
  for (let i = 0; i < PER; i++) {
    for (let s = 0; s < SERIES; s++) {
      batch.push({ series: ids.get(id(s))!, time: T0 + i * MINUTE, value: value(s, i) })
      if (batch.length === BATCH) {
        const p: Promise<void> = store.append(batch).then(() => { inflight.delete(p) })
        inflight.add(p)
        rows += batch.length
        batch = []
        if (inflight.size >= 4) await Promise.race(inflight)
        if (rows % 5_000_000 === 0) progress(`build: ${rows.toLocaleString()} rows, ${Math.round(rows / ((performance.now() - t0) / 1000)).toLocaleString()} rows/s`)
      }
    }
  }
  if (batch.length > 0) { await store.append(batch); rows += batch.length }
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

const phase = process.argv[2]
if (phase) {
  const dir = process.argv[3]
  // JS memory apart from RSS: the SQLite store's memory-mapped pages count in RSS and grow with the store.
  let heapPeak = 0
  let buffersPeak = 0
  const sample = setInterval(() => {
    const m = process.memoryUsage()
    heapPeak = Math.max(heapPeak, m.heapUsed)
    buffersPeak = Math.max(buffersPeak, m.arrayBuffers)
  }, 100)
  sample.unref()
  const r = phase === 'build' ? await build(dir) : phase === 'duckdb' ? await duckdbPhase(dir) : await exportPhase(dir, phase as 'csv' | 'parquet')
  const peakRssMb = Math.round(process.resourceUsage().maxRSS / 1024)
  clearInterval(sample)
  const mb = (b: number) => Math.round(b / 1024 / 1024)
  process.stdout.write(JSON.stringify({ phase, ...r, rowsPerSecond: Math.round(r.rows / r.seconds), peakRssMb, peakHeapMb: mb(heapPeak), peakArrayBuffersMb: mb(buffersPeak) }) + '\n')
  process.exit(0)
}

const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-export-'))
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
try {
  const loadBefore = load()
  const built = run('build')
  const results: Record<string, { rowsPerSecond: number; peakRssMb: number; peakHeapMb: number }[]> = { parquet: [], duckdb: [], csv: [] }
  for (let r = 0; r < ROUNDS; r++) for (const p of ['parquet', 'duckdb', 'csv']) results[p].push(run(p))
  const best = (p: string) => results[p].reduce((a, b) => (b.rowsPerSecond > a.rowsPerSecond ? b : a))
  emit({
    summary: 'export', rows: ROWS, series: SERIES, rounds: ROUNDS, buildRowsPerSecond: built.rowsPerSecond,
    parquetRowsPerSecond: best('parquet').rowsPerSecond, csvRowsPerSecond: best('csv').rowsPerSecond, duckdbParquetRowsPerSecond: best('duckdb').rowsPerSecond,
    parquetVsDuckdb: +(best('parquet').rowsPerSecond / best('duckdb').rowsPerSecond).toFixed(3),
    peakRssMb: { parquet: Math.max(...results.parquet.map((x) => x.peakRssMb)), csv: Math.max(...results.csv.map((x) => x.peakRssMb)), duckdb: Math.max(...results.duckdb.map((x) => x.peakRssMb)) },
    peakHeapMb: { parquet: Math.max(...results.parquet.map((x) => x.peakHeapMb)), csv: Math.max(...results.csv.map((x) => x.peakHeapMb)) },
    loadBefore, loadAfter: load(),
  })
} finally {
  rmSync(dir, { recursive: true, force: true })
}
