// Virtual datapoints end to end (issue 14 item 1): 1,000 running formula virtual datapoints
// (`P1+P2+P3+P4+P5`, every pin on its own input series, default pin settings: count 1, max,
// every_value) over 5,000 input series, inputs through the real ingest of a started platform
// (child process, embedded default): HTTP JSON (POST /v2/project/{id}/timeseries) and MQTT line
// protocol (QoS 1 over plain TCP).
//
// Load unit: a slice = one HTTP request or one MQTT message of 1,000 observations (200 virtual
// datapoints × 5 pins, one observation each; BENCH_SLICE_VDPS); a round = 5 slices = one
// observation on every input. Every input observation causes exactly one evaluation (a warm-up
// round first gives every pin a value), and every evaluation's output has its own time (the
// input's), so evaluations = output rows stored, which the bench counts in the store at the end.
//
// Latency: from the acknowledgement of a slice (HTTP 200 / MQTT PUBACK, both sent only once the
// inputs are durable) to "readable": the output of the slice's last virtual datapoint, at the
// time of its last input, is committed in the time-series store, seen by a fresh read of the
// store file (a read-only SQLite connection in this process, polled every 1 ms, what the API's
// reads see as well; resolution ~1 ms). An output committed before the client saw its
// acknowledgement counts as 0 ms.
//
// Phase "max": slices as fast as the platform takes them (BENCH_CONCURRENCY in flight);
// evaluations/s = evaluations / (first send → every output of the last round readable) (and,
// in the line of phase "settle", until the store's ingest tail is compacted as well), and
// the server's CPU time (all its threads, /proc) per evaluation over the same span: on a
// shared machine the rate moves with its neighbours, the CPU per evaluation much less.
// Phase "rate": slices at a fixed offered rate (BENCH_RATE evaluations/s, default 100,000)
// for BENCH_RATE_SECONDS; p50/p99 of the probes. It starts once the store has compacted what
// the max phase left in its ingest tail (the time that took is printed), so it measures the
// offered rate, not the aftermath of the burst before it.
// Each run: a fresh server and data directory; both transports, both phases.
// Figures and what bounds them: README "Benchmarks".
// Usage: npm run bench:vdp   (BENCH_RUNS=3, BENCH_ROUNDS=600, BENCH_RATE=100000,
//   BENCH_RATE_SECONDS=10, BENCH_TRANSPORT=http,mqtt, BENCH_VDPS=1000,
//   BENCH_SLICE_VDPS=200: virtual datapoints per slice, one connection per slice position,
//   BENCH_CONCURRENCY: senders in the max phase, default and at most one per slice position,
//   BENCH_PROFILE=<dir>: the server and its store workers write --cpu-prof profiles there)
import Database from 'better-sqlite3'
import mqtt, { type MqttClient } from 'mqtt'
import { join } from 'node:path'
import { Pool } from 'undici'
import { api, basicHeader, createProject, emit, median, peakRssMb, processCpuMs, progress, startServer, type Server } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const VDPS = Number(process.env.BENCH_VDPS ?? 1000)
const PINS = 5
const SLICE_VDPS = Number(process.env.BENCH_SLICE_VDPS ?? 200)
const SLICES = Math.ceil(VDPS / SLICE_VDPS)
// 600 rounds (3,000,000 evaluations, 6,000,000 rows stored): the store's ingest tail, compacted
// in the background, holds up to 524,288 rows that are readable but not yet compacted when the
// span ends; over 600 rounds that is at most ~9% of the compaction work. The phase "settle"
// prints the rate until that is compacted too.
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 600)
const RATE = Number(process.env.BENCH_RATE ?? 100_000)
const RATE_SECONDS = Number(process.env.BENCH_RATE_SECONDS ?? 10)
// One sender per slice position by default: with fewer, one of them sent two positions in turn
// and, once the others were done, went on alone with one request in flight (4 senders for 5
// positions: 134k-143k evaluations/s against 151k-161k with 5, 3 alternating pairs, HTTP).
const CONCURRENCY = Math.min(SLICES, Number(process.env.BENCH_CONCURRENCY ?? SLICES))
const TRANSPORTS = (process.env.BENCH_TRANSPORT ?? 'http,mqtt').split(',') as ('http' | 'mqtt')[]
const T0 = Date.parse('2024-01-01T00:00:00Z') // ms
const ROUND_MS = 10_000

const input = (v: number, k: number) => `in/${v}/${k}`
const output = (v: number) => `vdp/${v}`
/** Event time (ms) of pin k's observation in round r: unique per pin, so each evaluation has its own output time. */
const timeMs = (r: number, k: number) => T0 + r * ROUND_MS + k * 1000
const value = (r: number, v: number, k: number) => ((r * 7 + v + k) % 1000) / 10

/** The virtual datapoint whose output probes a slice: its last one. */
const probedVdp = (slice: number) => Math.min(VDPS, (slice + 1) * SLICE_VDPS) - 1

interface Slice { round: number; slice: number; http: string; line: string; probeVdp: number; probeTime: number }

function makeSlice(round: number, slice: number): Slice {
  const parts: string[] = []
  const lines: string[] = []
  for (let v = slice * SLICE_VDPS; v <= probedVdp(slice); v++) {
    for (let k = 0; k < PINS; k++) {
      const ms = timeMs(round, k)
      parts.push(`"${input(v, k)}":[{"time":"${new Date(ms).toISOString()}","value":${value(round, v, k)}}]`)
      lines.push(`${input(v, k)} value=${value(round, v, k)} ${ms}`)
    }
  }
  return { round, slice, http: `{${parts.join(',')}}`, line: lines.join('\n'), probeVdp: probedVdp(slice), probeTime: timeMs(round, PINS - 1) * 1000 }
}

const slicesOf = (fromRound: number, rounds: number): Slice[] => {
  const out: Slice[] = []
  for (let r = fromRound; r < fromRound + rounds; r++) for (let s = 0; s < SLICES; s++) out.push(makeSlice(r, s))
  return out
}

function percentile(xs: number[], p: number): number {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.ceil((p / 100) * s.length) - 1)]
}

/**
 * Watches the store file: when is an output row committed? A committed row is in obs or,
 * until compacted, in the ingest tail (engine/store/sqlite-schema.ts). The tail is read
 * incrementally from the last rowid seen, and only the rows of probed series come into
 * JavaScript: the watcher shares the 2 cores with the platform, so it filters in SQLite.
 */
class StoreWatch {
  private readonly ts: Database.Database
  private readonly inObs: Database.Statement
  private readonly tailTop: Database.Statement
  private readonly tailAfter: Database.Statement
  private readonly count: Database.Statement
  private readonly tailSeriesLeft: Database.Statement
  /** Output rows waited for, by `series:time`, with whoever waits for each. */
  private readonly probes = new Map<string, { series: number; time: number; waiting: Array<(at: number) => void> }>()
  private seen = 0
  private timer: NodeJS.Timeout | undefined
  readonly outSeries: number[]

  constructor (dataDir: string, projectId: number) {
    const cat = new Database(join(dataDir, 'catalog.db'), { readonly: true, fileMustExist: true })
    const byName = new Map((cat.prepare('SELECT id, datapoint_id FROM datapoints WHERE project_id = ?').all(projectId) as { id: number; datapoint_id: string }[]).map((r) => [r.datapoint_id, r.id]))
    cat.close()
    this.outSeries = Array.from({ length: VDPS }, (_, v) => byName.get(output(v))!)
    this.ts = new Database(join(dataDir, 'timeseries', 'timeseries.db'), { readonly: true, fileMustExist: true })
    this.inObs = this.ts.prepare('SELECT 1 FROM obs WHERE series = ? AND time = ?').pluck()
    this.tailTop = this.ts.prepare('SELECT max(rowid) FROM obs_tail').pluck()
    const probed = Array.from({ length: SLICES }, (_, slice) => this.outSeries[probedVdp(slice)])
    this.tailAfter = this.ts.prepare(`SELECT series, time FROM obs_tail WHERE rowid > ? AND rowid <= ? AND series IN (${probed.join(',')})`).raw()
    this.tailSeriesLeft = this.ts.prepare('SELECT count(*) FROM tail_series').pluck()
    const ids = this.outSeries.join(',')
    this.count = this.ts.prepare(`SELECT count(*) FROM (
      SELECT series, time FROM obs WHERE series IN (${ids}) AND time >= @a AND time <= @b
      UNION SELECT series, time FROM obs_tail WHERE series IN (${ids}) AND time >= @a AND time <= @b)`).pluck()
  }

  /** Resolves with performance.now() at the first poll that sees the row. */
  readable(vdp: number, timeUs: number): Promise<number> {
    return new Promise((resolve) => {
      const series = this.outSeries[vdp]
      const key = `${series}:${timeUs}`
      const probe = this.probes.get(key)
      if (probe) probe.waiting.push(resolve)
      else this.probes.set(key, { series, time: timeUs, waiting: [resolve] })
      this.timer ??= setInterval(() => this.poll(), 1)
    })
  }

  private found(key: string, now: number): void {
    for (const resolve of this.probes.get(key)?.waiting ?? []) resolve(now)
    this.probes.delete(key)
  }

  private poll(): void {
    const now = performance.now()
    const top = (this.tailTop.get() as number | null) ?? 0
    if (top < this.seen) this.seen = 0 // compacted: the tail starts again from rowid 1
    for (const [series, time] of this.tailAfter.all(this.seen, top) as Array<[number, number]>) {
      const key = `${series}:${time}`
      if (this.probes.has(key)) this.found(key, now)
    }
    this.seen = top
    for (const [key, { series, time }] of this.probes) if (this.inObs.get(series, time) !== undefined) this.found(key, now)
    if (this.probes.size === 0) { clearInterval(this.timer); this.timer = undefined }
  }

  /** Output rows with times in [fromUs, toUs]. */
  outputs(fromUs: number, toUs: number): number {
    return this.count.get({ a: fromUs, b: toUs }) as number
  }

  /** Whether the store's ingest tail is compacted (nothing left to move into obs and the rollups). */
  settled(): boolean {
    return this.tailSeriesLeft.get() === 0
  }

  close(): void { clearInterval(this.timer); this.ts.close() }
}

interface Sender { send(s: Slice): Promise<void>; close(): Promise<void> }

// One connection (HTTP) or client (MQTT) per slice position: the observations of a virtual
// datapoint always travel one connection, in order, so none arrives late (which would make it
// recompute, engine/vdp/runtime.ts) however many requests are in flight.
function httpSender(server: Server, pid: number): Sender {
  const pools = Array.from({ length: SLICES }, () => new Pool(server.url, { connections: 1, pipelining: 1 }))
  const path = `/v2/project/${pid}/timeseries`
  return {
    send: async (s) => {
      const res = await pools[s.slice].request({ method: 'POST', path, body: s.http, headers: { authorization: basicHeader, 'content-type': 'application/json' } })
      const text = await res.body.text()
      if (res.statusCode !== 200) throw new Error(`ingest ${res.statusCode} ${text}`)
    },
    close: async () => { await Promise.all(pools.map((p) => p.close())) },
  }
}

async function mqttSender(server: Server, handle: string): Promise<Sender> {
  const clients: MqttClient[] = []
  for (let i = 0; i < SLICES; i++) {
    clients.push(await mqtt.connectAsync(`mqtt://127.0.0.1:${server.mqtt.tcp}`, { clientId: `bench-vdp-${i}`, username: 'bench', password: 'bench-password', reconnectPeriod: 0 }))
  }
  return {
    send: async (s) => { await clients[s.slice].publishAsync(`lintel/${handle}/bench`, s.line, { qos: 1 }) },
    close: async () => { await Promise.all(clients.map((c) => c.endAsync())) },
  }
}

interface Probe { ack: number; readable: Promise<number> }

async function latencies(probes: Probe[]): Promise<{ p50: number; p99: number; max: number; before_ack: number }> {
  const ms: number[] = []
  let before = 0
  for (const p of probes) {
    const d = (await p.readable) - p.ack
    if (d < 0) before++
    ms.push(Math.max(0, d))
  }
  return { p50: +percentile(ms, 50).toFixed(1), p99: +percentile(ms, 99).toFixed(1), max: +Math.max(...ms).toFixed(1), before_ack: before }
}

/** Sends slices with up to `CONCURRENCY` in flight, each probed; one slice position is sent by one worker, in round order. */
async function sendMax(sender: Sender, watch: StoreWatch, slices: Slice[]): Promise<Probe[]> {
  const probes: Probe[] = []
  await Promise.all(Array.from({ length: CONCURRENCY }, async (_, w) => {
    for (const s of slices) {
      if (s.slice % CONCURRENCY !== w) continue
      const readable = watch.readable(s.probeVdp, s.probeTime)
      await sender.send(s)
      probes.push({ ack: performance.now(), readable })
    }
  }))
  return probes
}

/** Sends slices at a fixed rate (one every `interval` ms, on a schedule, not after the previous ack). */
async function sendAtRate(sender: Sender, watch: StoreWatch, slices: Slice[], intervalMs: number): Promise<{ probes: Probe[]; lagMs: number }> {
  const probes: Promise<Probe>[] = []
  const start = performance.now()
  let lag = 0
  for (let i = 0; i < slices.length; i++) {
    const due = start + i * intervalMs
    const wait = due - performance.now()
    if (wait > 1) await new Promise((r) => setTimeout(r, wait))
    lag = Math.max(lag, performance.now() - due)
    const s = slices[i]
    const readable = watch.readable(s.probeVdp, s.probeTime)
    probes.push(sender.send(s).then(() => ({ ack: performance.now(), readable })))
  }
  return { probes: await Promise.all(probes), lagMs: lag }
}

/** Polls `done` every `everyMs` until it holds or `ms` passed; milliseconds waited. */
async function pollUntil(done: () => boolean, ms: number, everyMs: number): Promise<number> {
  const start = performance.now()
  while (!done() && performance.now() - start < ms) await new Promise((r) => setTimeout(r, everyMs))
  return performance.now() - start
}

/** Output rows with times in [fromUs, toUs] once there are `expected` (or `ms` passed). */
async function waitOutputs(watch: StoreWatch, fromUs: number, toUs: number, expected: number, ms = 600_000): Promise<number> {
  let n = 0
  await pollUntil(() => (n = watch.outputs(fromUs, toUs)) >= expected, ms, 5)
  return n
}

/** Waits until the ingest tail is compacted (at most `ms`); seconds waited. */
async function waitSettled(watch: StoreWatch, ms = 120_000): Promise<number> {
  return +((await pollUntil(() => watch.settled(), ms, 20)) / 1000).toFixed(2)
}

async function setup(server: Server): Promise<{ pid: number; handle: string }> {
  const pid = await createProject(server, 'vdp-bench')
  const handle = (await api(server, 'GET', `/v2/project/${pid}`)).project.project_handle
  await api(server, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'bench', password: 'bench-password', rights: 'write', validity: 7200 })
  const pins = (v: number) => Object.fromEntries(Array.from({ length: PINS }, (_, k) => [`P${k + 1}`, { dataPointID: input(v, k) }]))
  const base = `/v2/project/${pid}/virtual_datapoint`
  const todo = Array.from({ length: VDPS }, (_, v) => v)
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let v = todo.shift(); v !== undefined; v = todo.shift()) {
      await api(server, 'POST', `${base}?dataPointID=${encodeURIComponent(output(v))}&type=formula`, { pins: pins(v), parameters: { formula: 'P1+P2+P3+P4+P5;' } })
    }
  }))
  const todoRun = Array.from({ length: VDPS }, (_, v) => v)
  await Promise.all(Array.from({ length: 8 }, async () => {
    for (let v = todoRun.shift(); v !== undefined; v = todoRun.shift()) {
      for (let attempt = 0; ; attempt++) {
        try {
          await api(server, 'POST', `${base}/run?dataPointID=${encodeURIComponent(output(v))}&run=true`)
          break
        } catch (err) { // "Created" until the automatic move to "Ready to start"
          if (attempt > 50) throw err
          await new Promise((r) => setTimeout(r, 20))
        }
      }
    }
  }))
  return { pid, handle }
}

const results: Record<string, { evaluations_per_s: number[]; p50: number[]; p99: number[]; cpu: number[]; compacted: number[] }> = {}
const record = (key: string, eps: number, p50: number, p99: number, cpuUs = NaN) => {
  const r = results[key] ??= { evaluations_per_s: [], p50: [], p99: [], cpu: [], compacted: [] }
  r.evaluations_per_s.push(eps); r.p50.push(p50); r.p99.push(p99); r.cpu.push(cpuUs)
}

for (let run = 1; run <= RUNS; run++) {
  const profile = process.env.BENCH_PROFILE
  if (profile) { // read by startServer; the store's writer and readers are profiled too
    process.env.BENCH_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profile}`
    process.env.LINTEL_WORKER_NODE_ARGS = `--cpu-prof --cpu-prof-dir=${profile}`
  }
  const server = await startServer({ LINTEL_MQTT_TCP_PORT: '0' })
  try {
    progress(`run ${run}/${RUNS}: creating and starting ${VDPS} virtual datapoints`)
    const { pid, handle } = await setup(server)
    const http = httpSender(server, pid)
    const watch = new StoreWatch(server.dataDir, pid)
    let round = 0
    // Warm-up: every pin gets a value (the first round's outputs are not evaluations of all pins).
    for (const s of slicesOf(round, 1)) await http.send(s)
    await waitOutputs(watch, timeMs(round, PINS - 1) * 1000, timeMs(round, PINS - 1) * 1000, VDPS)
    round++
    for (const transport of TRANSPORTS) {
      const sender = transport === 'http' ? http : await mqttSender(server, handle)
      // Phase max.
      progress(`run ${run}: ${transport}, max rate, ${ROUNDS} rounds`)
      let slices = slicesOf(round, ROUNDS)
      const from = timeMs(round, 0) * 1000
      const to = timeMs(round + ROUNDS - 1, PINS - 1) * 1000
      const started = performance.now()
      const cpu0 = { server: processCpuMs(server.child.pid!), bench: process.cpuUsage() }
      const probes = await sendMax(sender, watch, slices)
      const acked = performance.now()
      const n = await waitOutputs(watch, timeMs(round + ROUNDS - 1, PINS - 1) * 1000, to, VDPS)
      const done = performance.now()
      const serverCpuMs = processCpuMs(server.child.pid!) - cpu0.server
      const benchCpu = process.cpuUsage(cpu0.bench)
      const evaluations = await waitOutputs(watch, from, to, ROUNDS * PINS * VDPS, 10_000)
      if (n < VDPS) throw new Error(`only ${n} of ${VDPS} outputs of the last round`)
      const eps = evaluations / ((done - started) / 1000)
      const lat = await latencies(probes)
      // CPU per evaluation: less sensitive than the rate to what else the machine does.
      const serverCpuUs = (serverCpuMs * 1000) / evaluations
      record(`${transport}/max`, eps, lat.p50, lat.p99, serverCpuUs)
      emit({ bench: 'vdp', run, transport, phase: 'max', evaluations, expected: ROUNDS * PINS * VDPS, inputs_acked_s: +((acked - started) / 1000).toFixed(3),
        seconds: +((done - started) / 1000).toFixed(3), evaluations_per_s: Math.round(eps), latency_ms: lat,
        server_cpu_us_per_evaluation: +serverCpuUs.toFixed(2), bench_cpu_us_per_evaluation: +(((benchCpu.user + benchCpu.system)) / evaluations).toFixed(2) })
      round += ROUNDS
      // Phase rate, on a settled store: the max phase leaves up to a tail of rows to compact,
      // whose steps would otherwise delay the rate phase's first appends.
      const settleS = await waitSettled(watch)
      // The max phase's rate again, until its last row was also compacted: what it would be
      // if none of its compaction were left for after the span (an upper bound on the time:
      // the bench's own count of the outputs runs in between).
      const compactedEps = evaluations / ((performance.now() - started) / 1000)
      results[`${transport}/max`].compacted.push(compactedEps)
      emit({ bench: 'vdp', run, transport, phase: 'settle', seconds_to_compacted_tail: settleS, max_phase_evaluations_per_s_compacted: Math.round(compactedEps) })
      const interval = 1000 / (RATE / (SLICE_VDPS * PINS))
      const rounds = Math.max(1, Math.round((RATE * RATE_SECONDS) / (VDPS * PINS)))
      progress(`run ${run}: ${transport}, ${RATE} evaluations/s offered for ${RATE_SECONDS} s`)
      slices = slicesOf(round, rounds)
      const r0 = performance.now()
      const { probes: rp, lagMs } = await sendAtRate(sender, watch, slices, interval)
      const rLat = await latencies(rp)
      const rSeconds = (performance.now() - r0) / 1000
      const rEvals = await waitOutputs(watch, timeMs(round, 0) * 1000, timeMs(round + rounds - 1, PINS - 1) * 1000, rounds * PINS * VDPS, 10_000)
      record(`${transport}/rate`, rEvals / rSeconds, rLat.p50, rLat.p99)
      emit({ bench: 'vdp', run, transport, phase: 'rate', offered_per_s: RATE, evaluations: rEvals, expected: rounds * PINS * VDPS, seconds: +rSeconds.toFixed(3),
        sender_max_lag_ms: +lagMs.toFixed(1), latency_ms: rLat })
      round += rounds
      if (sender !== http) await sender.close()
    }
    await http.close()
    watch.close()
    emit({ bench: 'vdp', run, server_peak_rss_mb: await peakRssMb(server.child.pid!) })
  } finally {
    await server.stop()
  }
}
for (const [key, r] of Object.entries(results)) {
  const [transport, phase] = key.split('/')
  emit({ bench: 'vdp', summary: true, transport, phase, runs: RUNS, vdps: VDPS, inputs: VDPS * PINS, ...(phase === 'rate' ? { offered_per_s: RATE } : {}),
    evaluations_per_s_median: Math.round(median(r.evaluations_per_s)), p50_ms_median: median(r.p50), p99_ms_median: median(r.p99),
    ...(phase === 'max' ? { server_cpu_us_per_evaluation_median: +median(r.cpu).toFixed(2), evaluations_per_s_compacted_median: Math.round(median(r.compacted)) } : {}) })
}
