// JSON ingest through HTTP (issue 3, benchmark a): observations/s stored by
// POST /v2/project/{id}/timeseries on the embedded default, server in a child process.
// Bodies: `series` datapoints × `per` observations each (1-minute steps), generated before
// the clock starts; `concurrency` requests in flight. Each run uses a fresh server.
// With BENCH_SCALED=1 (or =both, side by side) the same load goes to one process running all roles in the scaled mode
// (QuestDB store, Kafka log; services from scripts/services/all.sh): requests are answered once
// Kafka acknowledged, and "stored" is when the last observation is readable from QuestDB
// (one project = one partition, written in order, so the last one visible means all are).
// BENCH_PROJECTS=n spreads the requests round-robin over n projects (n log partitions at
// most); BENCH_WORKERS=n (scaled) adds n-1 worker processes beside the all-roles server, each
// with its own data directory, so that n workers split the log's partitions.
// Usage: npm run bench:http-ingest   (BENCH_RUNS, BENCH_REQUESTS, BENCH_SERIES, BENCH_PER, BENCH_CONCURRENCY, BENCH_SCALED, BENCH_PROJECTS, BENCH_WORKERS)
import { spawn } from 'node:child_process'
import { once } from 'node:events'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Pool } from 'undici'
import { basicHeader, createProject, emit, median, peakRssMb, progress, startServer } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 3)
const requests = Number(process.env.BENCH_REQUESTS ?? 200)
const series = Number(process.env.BENCH_SERIES ?? 100)
const per = Number(process.env.BENCH_PER ?? 100)
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? 4)
const projects = Number(process.env.BENCH_PROJECTS ?? 1)
const workers = Number(process.env.BENCH_WORKERS ?? 1)
const T0 = Date.parse('2024-01-01T00:00:00Z')
// BENCH_SCALED=1: the scaled mode only; BENCH_SCALED=both: embedded and scaled in one run, with the ratio.
const modes = process.env.BENCH_SCALED === 'both' ? [false, true] : [process.env.BENCH_SCALED === '1']
const scaledEnv = (scaled: boolean, run: number): Record<string, string> => scaled ? {
  LINTEL_STORE: 'questdb', LINTEL_QUESTDB: 'http://127.0.0.1:19000', LINTEL_QUESTDB_TABLE: `bench_${process.pid}_${run}`,
  LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:19092', LINTEL_KAFKA_TOPIC: `bench.${process.pid}.${run}`,
} : {}

function body(request: number): string {
  const parts: string[] = []
  for (let s = 0; s < series; s++) {
    const obs: string[] = []
    for (let i = 0; i < per; i++) {
      const t = new Date(T0 + (request * per + i) * 60_000).toISOString()
      obs.push(`{"time":"${t}","value":${(s + i * 0.01).toFixed(2)}}`)
    }
    parts.push(`"building/floor ${s % 7}/sensor ${s}":[${obs.join(',')}]`)
  }
  return `{${parts.join(',')}}`
}

progress(`generating ${requests} bodies of ${series * per} observations`)
const bodies = Array.from({ length: requests }, (_, i) => body(i))
const medians: Record<string, number> = {}
for (const scaled of modes) {
const rates: number[] = []
for (let run = 1; run <= runs; run++) {
  const server = await startServer(scaledEnv(scaled, run))
  const extra: { stop: () => Promise<void> }[] = []
  try {
    for (let w = 1; scaled && w < workers; w++) extra.push(await startWorker(server.dataDir, scaledEnv(true, run)))
    const pids: number[] = []
    for (let k = 0; k < projects; k++) pids.push(await createProject(server, `ingest ${k}`))
    const pool = new Pool(server.url, { connections: concurrency })
    let next = 0
    const started = process.hrtime.bigint()
    await Promise.all(Array.from({ length: concurrency }, async () => {
      while (next < bodies.length) {
        const i = next++
        const b = bodies[i]
        const path = `/v2/project/${pids[i % projects]}/timeseries`
        const res = await pool.request({ method: 'POST', path, body: b, headers: { authorization: basicHeader, 'content-type': 'application/json' } })
        const text = await res.body.text()
        if (res.statusCode !== 200) throw new Error(`${res.statusCode} ${text}`)
      }
    }))
    const seconds = Number(process.hrtime.bigint() - started) / 1e9
    await pool.close()
    // Stored: in each project, the newest observation of the last series of its last body is readable.
    const lastId = encodeURIComponent(`building/floor ${(series - 1) % 7}/sensor ${series - 1}`)
    for (let k = 0; k < projects; k++) {
      const lastRequest = requests - 1 - ((requests - 1 - k) % projects)
      const lastTime = new Date(T0 + (lastRequest * per + per - 1) * 60_000).toISOString()
      for (;;) {
        const r = await fetch(`${server.url}/v2/datapoint/timeseries?project_id=${pids[k]}&dataPointID=${lastId}&start=${lastTime}&max=1`, { headers: { authorization: basicHeader } })
        if (r.status === 200 && (await r.json()).data.length === 1) break
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const storedSeconds = Number(process.hrtime.bigint() - started) / 1e9
    const obs = requests * series * per
    rates.push(obs / storedSeconds)
    emit({ bench: 'http-ingest', mode: scaled ? 'scaled' : 'embedded', run, observations: obs, acked_seconds: +seconds.toFixed(3), acked_per_s: Math.round(obs / seconds),
      stored_seconds: +storedSeconds.toFixed(3), observations_per_s: Math.round(obs / storedSeconds), server_peak_rss_mb: await peakRssMb(server.child.pid!) })
  } finally {
    for (const w of extra) await w.stop()
    await server.stop()
  }
}
medians[scaled ? 'scaled' : 'embedded'] = median(rates)
emit({ bench: 'http-ingest', summary: true, mode: scaled ? 'scaled' : 'embedded', runs, series_per_request: series, observations_per_series: per, concurrency,
  projects, ...(scaled ? { workers } : {}), observations_per_s_median: Math.round(median(rates)) })
}
if (modes.length === 2) emit({ bench: 'http-ingest', ratio: 'stored observations/s, scaled / embedded', value: +(medians.scaled / medians.embedded).toFixed(3) })

/** A worker process beside the server: its own data directory, the server's catalog. */
async function startWorker(catalogDir: string, env: Record<string, string>): Promise<{ stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lintel-bench-worker-'))
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env: { ...process.env, ...env, LINTEL_ROLES: 'worker', LINTEL_DATA_DIR: dataDir, LINTEL_CATALOG_DIR: catalogDir, LINTEL_LOG_LEVEL: 'warn' },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  let out = ''
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => { out += d; if (out.includes('lintel roles: ')) resolve() })
    child.once('exit', (code) => reject(new Error(`worker exited ${code}: ${out}`)))
  })
  return { stop: async () => { child.kill('SIGTERM'); await once(child, 'exit'); rmSync(dataDir, { recursive: true, force: true }) } }
}
