// npm run bench:reads (issue 14, "Done when"): a year of 1-minute data in one series, read
// through HTTP end to end from a server child process (the embedded store):
//   - 15-minute means over the year, daily means over the year, the last 1,000 raw points,
//     timed by this process's keep-alive client (undici, the answer's bytes) and by curl beside it;
//   - QuestDB's own SAMPLE BY on the same data (the scaled adapter's sample(), one /exec
//     request), beside it;
//   - the event-loop delay of the server (perf_hooks.monitorEventLoopDelay, bench/loop-probe.ts)
//     while big reads run;
//   - mixed reads and writes with 10 connections (autocannon): requests/s and latency.
// Medians of RUNS runs (default 7), SETTLE_MS (default 3000) after the year was written. Prints one JSON object per line. ONLY=reads measures the
// reads alone (no event-loop, mixed or QuestDB part), e.g. for a profile of the server:
//   ONLY=reads BENCH_NODE_ARGS="--cpu-prof --cpu-prof-dir=/tmp/prof" npm run bench:reads
// QuestDB at $LINTEL_QUESTDB_URL (default http://127.0.0.1:19000); skipped when unreachable.
import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { performance } from 'node:perf_hooks'
import autocannon from 'autocannon'
import { Pool } from 'undici'
import { openQuestdbStore } from '../engine/store/questdb-store.ts'
import { basicHeader, createProject, emit as emitLine, median, progress, startServer, writeMinuteSeries } from './lib.ts'

/** Every line carries the machine's 1-minute load average: the machine is shared (2 cores). */
const emit = (o: object) => emitLine({ ...o, load1: Math.round(loadavg()[0] * 10) / 10 })

const RUNS = Number(process.env.RUNS ?? 7)
const MIX_SECONDS = Number(process.env.MIX_SECONDS ?? 10)
const READS_ONLY = process.env.ONLY === 'reads'
const SETTLE_MS = Number(process.env.SETTLE_MS ?? 3000)
const Y0 = Date.UTC(2023, 0, 1)
const MINUTES = 525_600
/** Milliseconds to 2 decimals, as printed. */
const ms2 = (x: number) => Math.round(x * 100) / 100
const value = (i: number) => Math.round((20 + 5 * Math.sin(i / 720) + (i % 17) / 10) * 100) / 100

const probeFile = join(mkdtempSync(join(tmpdir(), 'lintel-probe-')), 'loop.json')
const server = await startServer({ LINTEL_LOOP_PROBE: probeFile }, ['./bench/loop-probe.ts'])
const pool = new Pool(server.url, { connections: 10 })
try {
  const pid = await createProject(server, 'reads')
  progress('writing a year of 1-minute data over HTTP ...')
  const w0 = performance.now()
  await writeMinuteSeries(pool, pid, 'year', Y0, MINUTES, value)
  emit({ bench: 'reads', step: 'ingest a year of 1-minute data over HTTP (rollups maintained)', observations: MINUTES, seconds: Math.round(performance.now() - w0) / 1000 })
  // The year is historical data: let the store finish moving it from its ingest tail into the
  // main table and rollups (~1 s in the background after the last write) before timing reads
  // of it. Reads right after writes are what the mixed part below measures.
  await new Promise((r) => setTimeout(r, SETTLE_MS))

  const q = (extra: string) => `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=year&${extra}`
  const year = 'start=2023-01-01T00:00:00Z&end=2024-01-01T00:00:00Z'
  // The timed client takes the answer's bytes, as curl -o does; decoding and parsing them (a
  // 1.95 MB answer is ~35,000 objects in this process, which shares the 2 cores with the
  // server) happen after the timed runs, so their garbage does not land in the next timing.
  const getBytes = async (path: string): Promise<{ ms: number; body: Buffer }> => {
    const t0 = performance.now()
    const res = await pool.request({ path, method: 'GET', headers: { authorization: basicHeader } })
    const body = Buffer.from(await res.body.arrayBuffer())
    const ms = performance.now() - t0
    if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${body.toString('utf8', 0, 200)}`)
    return { ms, body }
  }
  const get = async (path: string): Promise<{ ms: number; bytes: number; n: number }> => {
    const { ms, body } = await getBytes(path)
    return { ms, bytes: body.length, n: JSON.parse(body.toString('utf8')).data.length }
  }
  /** curl's own time_total (ms) of one GET on a new connection; NaN when there is no curl. */
  const curlMs = (path: string): number => {
    let out: string
    try {
      out = execFileSync('curl', ['-sS', '-o', '/dev/null', '-w', '%{http_code} %{time_total}', '-H', `authorization: ${basicHeader}`, server.url + path]).toString()
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code === 'ENOENT') return NaN
      throw err
    }
    const [status, seconds] = out.split(' ')
    if (status !== '200') throw new Error(`curl ${path}: ${status}`)
    return 1000 * Number(seconds)
  }
  const reads: Array<[string, string, number]> = [
    ['15-minute means over the year', q(`${year}&samplerate=15m`), 30],
    ['daily means over the year', q(`${year}&samplerate=1d`), 5],
    ['last 1,000 raw', q('max=1000'), 3],
    ['hourly means over the year', q(`${year}&samplerate=1h`), NaN],
    ['calendar months (1M), max', q(`${year}&samplerate=1M&aggregate=max`), NaN],
  ]
  for (const [name, path, target] of reads) {
    await get(path)
    const runs: number[] = []
    let last: Buffer = Buffer.alloc(0)
    for (let r = 0; r < RUNS; r++) { const x = await getBytes(path); runs.push(x.ms); last = x.body }
    // curl beside it, on the same read right after: a client of another make, a new connection each time.
    const curlRuns = Array.from({ length: RUNS }, () => curlMs(path))
    emit({ bench: 'reads', read: name, http: true, median_ms: ms2(median(runs)), runs_ms: runs.map(ms2), curl_median_ms: ms2(median(curlRuns)), curl_runs_ms: curlRuns.map(ms2),
      points: JSON.parse(last.toString('utf8')).data.length, bytes: last.length, target_ms: Number.isNaN(target) ? undefined : target })
  }

  // A labelled block: ONLY=reads leaves it.
  loadParts: {
    if (READS_ONLY) break loadParts
    // Event-loop delay of the server while big reads run one after another.
    const probe = () => { server.child.kill('SIGUSR2'); return new Promise((r) => setTimeout(r, 100)) }
    await probe()
    for (let r = 0; r < 3; r++) { await get(q(`${year}&samplerate=15m`)); await get(q('start=2023-01-01T00:00:00Z&max=100000')) }
    await probe()
    emit({ bench: 'reads', step: 'server event-loop delay during 3 x (15-minute means of a year + 100,000 raw points)', loop_delay_ms: JSON.parse(readFileSync(probeFile, 'utf8')) })

    // Mixed load: half writes (10 observations of another series each), half reads.
    let tick = 0
    const write = () => JSON.stringify({ live: Array.from({ length: 10 }, () => ({ time: new Date(Y0 + (tick++) * 1000).toISOString(), value: tick % 100 })) })
    const headers = { authorization: basicHeader, 'content-type': 'application/json' }
    const post = { method: 'POST' as const, path: `/v2/project/${pid}/timeseries`, headers, setupRequest: (req: any) => ({ ...req, body: write() }) }
    const mixRuns: Array<{ rps: number; p50: number; p99: number; errors: number }> = []
    for (let r = 0; r < 3; r++) {
      await probe()
      const result = await autocannon({
        url: server.url, connections: 10, duration: MIX_SECONDS,
        requests: [
          post, { method: 'GET', path: q('max=100'), headers },
          post, { method: 'GET', path: q(`${year}&samplerate=1d`), headers },
          post, { method: 'GET', path: q('start=2023-06-01T00:00:00Z&end=2023-06-02T00:00:00Z&samplerate=1h'), headers },
          post, { method: 'GET', path: q('start=2023-06-01T00:00:00Z&end=2023-06-08T00:00:00Z&samplerate=15m'), headers },
        ],
      })
      await probe()
      const loop = JSON.parse(readFileSync(probeFile, 'utf8'))
      const x = { rps: Math.round(result.requests.average), p50: result.latency.p50, p99: result.latency.p99, errors: result.errors + result.non2xx, loop_delay_ms: loop }
      mixRuns.push(x)
      emit({ bench: 'reads', step: `mixed run ${r + 1}`, ...x })
    }
    emit({
      bench: 'reads', mixed: '10 connections, 50% writes of 10 observations, 50% reads (last 100 raw; daily means of a year; hourly means of a day; 15-minute means of a week)',
      median_rps: median(mixRuns.map((x) => x.rps)), median_p99_ms: median(mixRuns.map((x) => x.p99)), target: { rps: 1000, p99_ms: 50 },
    })

    // QuestDB's own SAMPLE BY on the same data.
    const url = process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000'
    const table = `bench_reads_${process.pid}`
    let qdb
    try { qdb = await openQuestdbStore({ url, table }) } catch (err) { progress(`QuestDB not reachable at ${url}: ${(err as Error).message}; skipped`) }
    if (qdb) {
      try {
        const all = Array.from({ length: MINUTES }, (_, i) => ({ series: 1, time: (Y0 + i * 60_000) * 1000, value: value(i) }))
        for (let i = 0; i < all.length; i += 100_000) await qdb.append(all.slice(i, i + 100_000))
        const Y1 = Date.UTC(2024, 0, 1) * 1000
        const cases: Array<[string, () => Promise<unknown>]> = [
          ['15-minute means over the year', () => qdb.sample(1, { start: Y0 * 1000, end: Y1, interval: 15 * 60_000_000 })],
          ['daily means over the year', () => qdb.sample(1, { start: Y0 * 1000, end: Y1, interval: 86_400_000_000 })],
          ['last 1,000 raw', () => qdb.read(1, { limit: 1000, from: 'last' })],
        ]
        for (const [name, fn] of cases) {
          await fn()
          const runs: number[] = []
          for (let r = 0; r < RUNS; r++) { const t0 = performance.now(); await fn(); runs.push(performance.now() - t0) }
          emit({ bench: 'reads', read: name, questdb: 'SAMPLE BY / ORDER BY through the scaled store (one /exec request, not through the platform HTTP API)', median_ms: ms2(median(runs)), runs_ms: runs.map(ms2) })
        }
      } finally {
        await fetch(`${url}/exec?query=${encodeURIComponent(`DROP TABLE IF EXISTS ${table}`)}`).catch(() => {})
        await qdb.close()
      }
    }
  }
} finally {
  await pool.close()
  await server.stop()
}
