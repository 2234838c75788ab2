// Live subscriptions (issue 33 "Done when"): 1,000 WebSocket subscribers on one node (the
// embedded server in a child process) while 10,000 observations/s arrive over HTTP JSON.
// The publisher sends one request of BENCH_SERIES datapoints × (rate/10/series) observations
// every 100 ms; each subscriber watches one datapoint (subscribers spread evenly over them).
// Figures per run: the live latency from the publisher's acknowledgement (HTTP 200 received)
// to each subscriber's frame (p50, p99; a frame that arrives before the acknowledgement counts
// as 0), the ingest rate achieved and the acknowledgement latency (request sent → 200), and
// the same run without subscribers, side by side (alternating, BENCH_RUNS pairs).
// The subscribers run in a worker thread of their own, so that reading 1,000 sockets does not
// delay the publisher's requests (times are absolute: timeOrigin + now() in both threads).
// Usage: npm run bench:live   (BENCH_RUNS, BENCH_SUBSCRIBERS, BENCH_RATE, BENCH_SECONDS, BENCH_SERIES)
import { Agent } from 'undici'
import { isMainThread, parentPort, Worker, workerData } from 'node:worker_threads'
import WebSocket from 'ws'
import { basicHeader, createProject, emit, median, progress, startServer, type Server } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 2)
const subscribers = Number(process.env.BENCH_SUBSCRIBERS ?? 1000)
const rate = Number(process.env.BENCH_RATE ?? 10_000)
const seconds = Number(process.env.BENCH_SECONDS ?? 20)
const series = Number(process.env.BENCH_SERIES ?? 100)
const perTick = Math.max(1, Math.round(rate / 10 / series)) // observations per datapoint per 100 ms
const T0 = Date.parse('2024-01-01T00:00:00Z')

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s.length ? s[Math.min(s.length - 1, Math.floor(p * s.length))] : NaN }

function body(tick: number): string {
  const parts: string[] = []
  for (let s = 0; s < series; s++) {
    const obs: string[] = []
    for (let i = 0; i < perTick; i++) obs.push(`{"time":"${new Date(T0 + tick * 1000 + i).toISOString()}","value":${s + i / 100}}`)
    parts.push(`"dp ${s}":[${obs.join(',')}]`)
  }
  return `{${parts.join(',')}}`
}

const clock = () => performance.timeOrigin + performance.now()

/** The worker's side: opens the sockets, subscribes, then reports arrival times per tick on request. */
async function subscriberThread(d: { url: string; pid: number; n: number }): Promise<void> {
  const arrivals = new Map<number, number[]>() // tick → arrival times (absolute ms)
  const sockets: WebSocket[] = []
  let closedEarly = 0
  for (let k = 0; k < d.n; k++) {
    const ws = new WebSocket(d.url.replace(/^http/, 'ws') + '/v2/live', { headers: { authorization: basicHeader }, perMessageDeflate: false })
    await new Promise((resolve, reject) => { ws.once('open', resolve); ws.once('error', reject) })
    sockets.push(ws)
    ws.on('message', (data) => {
      const now = clock()
      const text = data.toString()
      if (!text.startsWith('{"type":"observations"')) return
      const at = text.indexOf('"time":"') + 8
      const tick = Math.floor((Date.parse(text.slice(at, text.indexOf('"', at))) - T0) / 1000)
      let list = arrivals.get(tick)
      if (!list) arrivals.set(tick, list = [])
      list.push(now)
    })
    ws.on('close', (code) => { if (code !== 1000 && code !== 1005) closedEarly++ })
    const subscribed = new Promise((resolve) => ws.once('message', resolve))
    ws.send(JSON.stringify({ type: 'subscribe', project_id: d.pid, datapoints: [`dp ${k % series}`] }))
    await subscribed
  }
  parentPort!.postMessage({ ready: true })
  parentPort!.on('message', (m: { expected: number }) => {
    const count = () => [...arrivals.values()].reduce((n, l) => n + l.length, 0)
    const deadline = clock() + 10_000
    const report = () => {
      if (count() < m.expected && clock() < deadline) return setTimeout(report, 50)
      for (const ws of sockets) ws.close()
      parentPort!.postMessage({ arrivals: [...arrivals], closedEarly })
    }
    report()
  })
}

if (!isMainThread) await subscriberThread(workerData)

/** Starts the subscriber thread; resolves once every socket is subscribed. */
async function subscribe(server: Server, pid: number, n: number): Promise<{ collect(expected: number): Promise<{ arrivals: Map<number, number[]>; closedEarly: number }>; worker: Worker }> {
  // The thread loads this file through tsx's loader (Node 20 ignores --import in a worker's execArgv).
  const code = `import { register } from ${JSON.stringify(import.meta.resolve('tsx/esm/api'))}; register(); await import(${JSON.stringify(import.meta.url)})`
  const worker = new Worker(new URL('data:text/javascript,' + encodeURIComponent(code)), { workerData: { url: server.url, pid, n } })
  await new Promise((resolve, reject) => { worker.once('message', resolve); worker.once('error', reject) })
  return {
    worker,
    collect: (expected) => new Promise((resolve) => {
      worker.once('message', (m: { arrivals: [number, number[]][]; closedEarly: number }) => resolve({ arrivals: new Map(m.arrivals), closedEarly: m.closedEarly }))
      worker.postMessage({ expected })
    }),
  }
}

async function run(withSubscribers: boolean) {
  const server = await startServer()
  try {
    const pid = await createProject(server, 'live')
    const dispatcher = new Agent({ connections: 16 })
    const post = (text: string) => fetch(`${server.url}/v2/project/${pid}/timeseries`, { method: 'POST', headers: { authorization: basicHeader, 'content-type': 'application/json' }, body: text, dispatcher } as RequestInit)
    await post(body(-1)) // creates the datapoints
    const subs = withSubscribers ? await subscribe(server, pid, subscribers) : undefined
    progress(`${withSubscribers ? subscribers : 0} subscribers; ${series * perTick * 10} observations/s for ${seconds} s`)
    const bodies = Array.from({ length: seconds * 10 }, (_, i) => body(i))
    const acked = new Map<number, number>()
    const ackLatency: number[] = []
    const started = clock()
    let stored = 0
    const inFlight: Promise<void>[] = []
    for (let tick = 0; tick < bodies.length; tick++) {
      const due = started + tick * 100
      const wait = due - clock()
      if (wait > 0) await new Promise((r) => setTimeout(r, wait))
      const sent = clock()
      inFlight.push(post(bodies[tick]).then(async (res) => {
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`ingest ${res.status}`)
        const now = clock()
        acked.set(tick, now)
        ackLatency.push(now - sent)
        stored += series * perTick
      }))
    }
    await Promise.all(inFlight)
    const elapsed = (clock() - started) / 1000
    const live: number[] = []
    let frames = 0
    if (subs) {
      const expected = bodies.length * subscribers
      const { arrivals, closedEarly } = await subs.collect(expected)
      await subs.worker.terminate()
      for (const [tick, list] of arrivals) {
        const ack = acked.get(tick)
        if (tick < 0 || ack === undefined) continue
        for (const at of list) { live.push(Math.max(0, at - ack)); frames++ }
      }
      if (frames < expected) progress(`only ${frames} of ${expected} frames arrived; ${closedEarly} sockets closed early`)
    }
    await dispatcher.close()
    return { rate: Math.round(stored / elapsed), ackP99: pct(ackLatency, 0.99), liveP50: pct(live, 0.5), liveP99: pct(live, 0.99), frames }
  } finally {
    await server.stop()
  }
}

if (isMainThread) {
const withSubs: Awaited<ReturnType<typeof run>>[] = []
const without: Awaited<ReturnType<typeof run>>[] = []
for (let r = 1; r <= runs; r++) {
  without.push(await run(false))
  progress(`run ${r} without: ${JSON.stringify(without.at(-1))}`)
  withSubs.push(await run(true))
  progress(`run ${r} with: ${JSON.stringify(withSubs.at(-1))}`)
}
const m = (xs: number[]) => Math.round(median(xs) * 10) / 10
emit({
  bench: 'live', subscribers, offered_per_s: series * perTick * 10, seconds, runs,
  live_p50_ms: m(withSubs.map((x) => x.liveP50)), live_p99_ms: m(withSubs.map((x) => x.liveP99)), frames: withSubs.map((x) => x.frames),
  ingest_per_s_with: m(withSubs.map((x) => x.rate)), ingest_per_s_without: m(without.map((x) => x.rate)),
  ack_p99_ms_with: m(withSubs.map((x) => x.ackP99)), ack_p99_ms_without: m(without.map((x) => x.ackP99)),
})
}
