// Setpoints (issue 11 "Done when"): the acknowledged round trip HTTP request → NEWSPT over the
// broker → edge agent (simulated BACnet-style driver, 1,000 points) → SPTACK → `written`
// readable through GET /v2/datapoint/setpoint/{reference}; p50/p99 of single operations, then
// open-loop load at a fixed rate (default 500 operations/s: p50/p99 and what was achieved),
// then the sustained maximum (closed loop, 32 in flight).
// Three processes, as in production: the platform (`npm start`), the edge agent (`lintel
// edge`, MQTT over TLS) and this client (HTTP over loopback). A round trip ends at the first
// GET that reads `written`; GETs are issued back to back (1 ms apart), so the figure includes
// up to ~1 ms of polling.
// Usage: npm run bench:setpoints   (BENCH_RUNS=3, BENCH_POINTS=1000, BENCH_RATE=500, BENCH_SECONDS=10)
import { spawn } from 'node:child_process'
import { mkdtempSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { Pool } from 'undici'
import { readFileSync } from 'node:fs'
import { api, basicHeader, createProject, emit, median, progress, startServer, type Server } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const POINTS = Number(process.env.BENCH_POINTS ?? 1000)
const RATE = Number(process.env.BENCH_RATE ?? 500)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 10)
const SINGLE = 500
const CONCURRENCY = 32

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b)
  return s.length === 0 ? NaN : s[Math.min(s.length - 1, Math.floor(p * s.length))]
}
const round = (x: number) => Math.round(x * 100) / 100
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))

async function cli(dataDir: string, args: string[]): Promise<void> {
  const child = spawn(process.execPath, ['bin/lintel.js', ...args], { env: { ...process.env, LINTEL_DATA_DIR: dataDir }, stdio: ['ignore', 'ignore', 'inherit'] })
  const code = await new Promise((r) => child.once('exit', r))
  if (code !== 0) throw new Error(`lintel ${args.join(' ')}: exit ${code}`)
}

async function site(): Promise<{ server: Server; pid: number; stop: () => Promise<void> }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'lintel-bench-sp-'))
  const server = await startServer({ LINTEL_DATA_DIR: dataDir })
  const pid = await createProject(server, 'setpoints')
  await cli(dataDir, ['project', 'setpoints', '--id', String(pid), '--enable'])
  const project = await api(server, 'GET', `/v2/project/${pid}`)
  const prefix = `${project.load_balancing_group ?? 'lintel'}/${project.project_handle ?? `p${pid}`}`
  await api(server, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'edge', password: 'edge-password', rights: 'write', validity: 7200, edge: true })
  const edge = spawn(process.execPath, ['--import', 'tsx', 'edge/main.ts', '--url', `mqtts://127.0.0.1:${server.mqtt.tls}`, '--ca', server.caFile,
    '--project', prefix, '--account', 'edge', '--points', String(POINTS)], { env: { ...process.env, LINTEL_EDGE_PASSWORD: 'edge-password' }, stdio: ['ignore', 'pipe', 'inherit'] })
  await new Promise<void>((resolve, reject) => {
    edge.stdout!.on('data', (d) => { if (String(d).includes('connected')) resolve() })
    edge.once('exit', (code) => reject(new Error(`edge agent exited ${code}`)))
  })
  // The points declare themselves writable (META) and get bounds.
  const meta = await mqtt.connectAsync(`mqtts://127.0.0.1:${server.mqtt.tls}`, { ca: readFileSync(server.caFile), username: 'edge', password: 'edge-password', clientId: 'bench-meta', reconnectPeriod: 0 })
  for (let i = 1; i <= POINTS; i++) {
    await meta.publishAsync(`META/${prefix}`, JSON.stringify({ entity: { id: `sim-${i}`, type: 'datapoint', source: 'bench' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  }
  await meta.endAsync()
  for (let i = 1; i <= POINTS; i++) await api(server, 'PUT', `/v2/datapoint?project_id=${pid}&dataPointID=sim-${i}`, { setpoint_min_value: 0, setpoint_max_value: 100 })
  return { server, pid, stop: async () => { edge.kill('SIGTERM'); await new Promise((r) => edge.once('exit', r)); await server.stop() } }
}

/** One acknowledged operation: ms from sending the POST to the first GET that reads `written`. */
let pool: Pool
const headers = { authorization: basicHeader }
async function roundTrip(server: Server, pid: number, n: number): Promise<number> {
  const began = performance.now()
  const res = await pool.request({ method: 'POST', path: `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=sim-${(n % POINTS) + 1}&value=${n % 100}&acked=true`, headers })
  const body = await res.body.json() as any
  if (res.statusCode !== 200) throw new Error(`POST setpoint: ${res.statusCode} ${JSON.stringify(body)}`)
  for (;;) {
    const got = await pool.request({ method: 'GET', path: `/v2/datapoint/setpoint/${body.resource.reference}`, headers })
    const op = await got.body.json() as any
    if (op.status === 'written') return performance.now() - began
    if (op.status === 'failed') throw new Error(`operation failed: ${op.log}`)
    await sleep(1)
  }
}

async function openLoop(server: Server, pid: number, rate: number, seconds: number) {
  const latencies: number[] = []
  const inflight: Promise<void>[] = []
  let errors = 0
  const total = rate * seconds
  const began = performance.now()
  for (let n = 0; n < total; n++) {
    const due = began + (n * 1000) / rate
    const wait = due - performance.now()
    if (wait > 1) await sleep(wait)
    inflight.push(roundTrip(server, pid, n).then((ms) => { latencies.push(ms) }, () => { errors++ }))
  }
  await Promise.all(inflight)
  const elapsed = (performance.now() - began) / 1000
  return { latencies, errors, achieved: total / elapsed }
}

async function closedLoop(server: Server, pid: number, seconds: number) {
  let done = 0
  const end = performance.now() + seconds * 1000
  const began = performance.now()
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    let n = w * 1_000_000
    while (performance.now() < end) { await roundTrip(server, pid, n++); done++ }
  }))
  return done / ((performance.now() - began) / 1000)
}

const results: { p50: number; p99: number; rateP50: number; rateP99: number; achieved: number; errors: number; sustained: number }[] = []
for (let run = 1; run <= RUNS; run++) {
  progress(`run ${run}/${RUNS}: starting the platform and the edge agent with ${POINTS} simulated points`)
  const s = await site()
  pool = new Pool(s.server.url, { connections: 64 })
  try {
    const single: number[] = []
    for (let n = 0; n < SINGLE; n++) single.push(await roundTrip(s.server, s.pid, n))
    progress(`  single: p50 ${round(pct(single, 0.5))} ms, p99 ${round(pct(single, 0.99))} ms`)
    const o = await openLoop(s.server, s.pid, RATE, SECONDS)
    progress(`  ${RATE}/s for ${SECONDS} s: p50 ${round(pct(o.latencies, 0.5))} ms, p99 ${round(pct(o.latencies, 0.99))} ms, achieved ${round(o.achieved)}/s, errors ${o.errors}`)
    const sustained = await closedLoop(s.server, s.pid, SECONDS)
    progress(`  sustained (closed loop, ${CONCURRENCY} in flight): ${round(sustained)} operations/s`)
    const r = { p50: pct(single, 0.5), p99: pct(single, 0.99), rateP50: pct(o.latencies, 0.5), rateP99: pct(o.latencies, 0.99), achieved: o.achieved, errors: o.errors, sustained }
    results.push(r)
    emit({ bench: 'setpoints', run, points: POINTS, single_p50_ms: round(r.p50), single_p99_ms: round(r.p99), rate: RATE, rate_p50_ms: round(r.rateP50), rate_p99_ms: round(r.rateP99), rate_achieved: round(r.achieved), errors: r.errors, sustained_ops_s: round(r.sustained) })
  } finally {
    await pool.close()
    await s.stop()
  }
}
const med = (k: keyof typeof results[number]) => round(median(results.map((r) => r[k])))
emit({
  bench: 'setpoints', summary: `median of ${RUNS}`, points: POINTS, single_p50_ms: med('p50'), single_p99_ms: med('p99'), rate: RATE,
  rate_p50_ms: med('rateP50'), rate_p99_ms: med('rateP99'), rate_achieved: med('achieved'), sustained_ops_s: med('sustained'),
  target: 'p99 < 50 ms at 500 operations/s', met: med('rateP99') < 50 && med('achieved') >= RATE * 0.98,
})
