// Alerts under load (issue 13 "Done when"): 10,000 threshold alerts (one per datapoint) over
// 100,000 observations/s on the embedded default, webhook notifications to a local HTTP
// receiver in the same run. Figure: p99 from the acknowledged observation (the store write
// resolved: the moment MQTT would send its PUBACK) to the webhook call arriving at the
// receiver; target < 100 ms.
//
// The path measured is the production one: IngestQueue (group commit) → SQLite store → bus →
// alert runtime (threshold evaluation, one catalog transaction per turn for events,
// checkpoints and the outbox) → notifier → undici POST, signed → receiver (node:http). Alerts
// are created through the catalog (not 10,000 HTTP calls) and started by resume(), as after a
// restart. Each datapoint gets 10 observations/s; every BENCH_CROSS_EVERY-th observation of a
// datapoint crosses its crit threshold (a raise) and the next one resets it, staggered across
// datapoints, so raises + resets per second = 2 · rate / BENCH_CROSS_EVERY.
// Usage: npm run bench:alerts   (BENCH_RUNS, BENCH_SECONDS, BENCH_ALERTS, BENCH_RATE, BENCH_CROSS_EVERY)
// NDJSON on stdout (one line per run, then the medians), progress on stderr.
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay, performance } from 'node:perf_hooks'
import { adminEndpoints } from '../api/registry.ts'
import { Catalog } from '../catalog/index.ts'
import { WebhookAddressPolicy } from '../engine/notify/address-policy.ts'
import { openAlerts } from '../engine/alerts/index.ts'
import { ObservationBus, observedStore } from '../engine/observation-bus.ts'
import { rfc3339 } from '../engine/notify/payload.ts'
import type { Observation, TimeseriesStore } from '../engine/store/port.ts'
import { openSqliteStore } from '../engine/store/sqlite-store.ts'
import { IngestQueue } from '../engine/observation-path/ingest-queue.ts'
import { emit, median, progress } from './lib.ts'

const runs = Number(process.env.BENCH_RUNS ?? 3)
const seconds = Number(process.env.BENCH_SECONDS ?? 10)
const alertCount = Number(process.env.BENCH_ALERTS ?? 10_000)
const rate = Number(process.env.BENCH_RATE ?? 100_000)
const crossEvery = Number(process.env.BENCH_CROSS_EVERY ?? 1000)
const tickMs = 10
const perTick = Math.round(rate * tickMs / 1000)
const T0 = 1_704_067_200_000_000 // 2024-01-01, µs
const SECRET = 'bench-webhook-secret'
const quiet = { info: () => {}, warn: (o: object, m: string) => progress(`warn: ${m} ${JSON.stringify(o)}`), error: (o: object, m: string) => progress(`error: ${m} ${JSON.stringify(o)}`) }

const quantile = (xs: number[], q: number) => {
  if (xs.length === 0) return NaN
  const s = [...xs].sort((a, b) => a - b)
  return s[Math.min(s.length - 1, Math.floor(q * s.length))]
}

async function run(no: number) {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-bench-alerts-'))
  // The receiver: records when each call arrives, by dataPointID and event time.
  const arrivals: { key: string; at: number }[] = []
  const receiver = createServer((req, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      const at = performance.now()
      const p = JSON.parse(body)
      arrivals.push({ key: `${p.alert.dataPointID} ${p.event.time}`, at })
      res.writeHead(204).end()
    })
  })
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve))
  const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`

  const catalog = Catalog.open(join(dir, 'catalog'), adminEndpoints)
  const sqlite = await openSqliteStore({ dir: join(dir, 'ts') })
  // The acknowledgement: the moment the store write resolved, per batch.
  let ackAt = 0
  const acked: TimeseriesStore = { ...sqlite, append: async (b) => { await sqlite.append(b); ackAt = performance.now() }, close: () => sqlite.close() }
  const bus = new ObservationBus()
  const store = observedStore(acked, bus)
  const queue = new IngestQueue(store)

  progress(`run ${no}: creating ${alertCount} datapoints and threshold alerts`)
  const company = await catalog.companies.create('Bench')
  const { project } = await catalog.projects.create(company.id, { name: 'bench' }, null)
  await catalog.datapoints.setQuota(project.id, alertCount + 10)
  const names = Array.from({ length: alertCount }, (_, i) => `building/sensor ${i}`)
  const ids = await catalog.datapoints.ensure(project.id, names)
  const series = names.map((n) => ids.get(n)!)
  await catalog.transaction(async (tx) => {
    for (const s of series) {
      await tx.alerts.create(project.id, {
        datapoint: s, kind: 'threshold', name: `crit ${s}`, description: '', status_code: 200, attributes: {},
        config: { thresholds: { crit: { upper: 30, upper_reset: 25 } } }, notification: { webhook: { url, secret: SECRET } },
      })
    }
  })
  // Where the main thread spends its time (total and longest single call, ms).
  const spent: Record<string, { total: number; max: number; calls: number }> = {}
  const timed = <T extends object>(obj: T, name: keyof T & string, label: string) => {
    const f = (obj[name] as (...a: unknown[]) => unknown).bind(obj)
    const slot = spent[label] = { total: 0, max: 0, calls: 0 }
    ;(obj as Record<string, unknown>)[name] = (...a: unknown[]) => {
      const t0 = performance.now()
      try { return f(...a) } finally {
        const d = performance.now() - t0
        slot.total += d; slot.calls++
        if (d > slot.max) slot.max = d
      }
    }
  }
  timed(bus, 'publish', 'evaluate (bus publish)')
  timed(catalog.alerts, 'recordTransitions', 'store events + outbox')
  timed(catalog.alerts, 'saveStates', 'checkpoints')
  const alerts = openAlerts({ catalog, store: sqlite, bus, log: quiet, webhookPolicy: new WebhookAddressPolicy(['127.0.0.1']) })
  const startT = performance.now()
  await alerts.resume()
  const startMs = performance.now() - startT

  // Crossing observations: key → the time its batch was acknowledged.
  const ackOf = new Map<string, number>()
  const lag = monitorEventLoopDelay({ resolution: 10 })
  lag.enable()
  progress(`run ${no}: ${rate} observations/s for ${seconds} s (${perTick} per ${tickMs} ms), started ${alertCount} alerts in ${startMs.toFixed(0)} ms`)
  const ticks = Math.round(seconds * 1000 / tickMs)
  let cursor = 0 // observation number: datapoint = cursor % alertCount, its k-th = floor(cursor / alertCount)
  let sent = 0
  const inflight: Promise<void>[] = []
  const began = performance.now()
  for (let tick = 0; tick < ticks; tick++) {
    const due = began + tick * tickMs
    const wait = due - performance.now()
    if (wait > 0) await new Promise((r) => setTimeout(r, wait))
    const batch: Observation[] = new Array(perTick)
    const crossing: string[] = []
    for (let i = 0; i < perTick; i++, cursor++) {
      const d = cursor % alertCount
      const k = Math.floor(cursor / alertCount)
      const phase = (k + d) % crossEvery
      const time = T0 + k * 100_000
      const value = phase === 0 ? 35 : 20
      if (phase === 0 || (phase === 1 && k > 0)) crossing.push(`${names[d]} ${rfc3339(time)}`)
      batch[i] = { series: series[d], time, value }
    }
    sent += perTick
    const p = queue.enqueue(batch).then(() => { for (const c of crossing) ackOf.set(c, ackAt) })
    inflight.push(p)
    if (inflight.length > 200) await inflight.shift()
  }
  await Promise.all(inflight)
  const elapsed = (performance.now() - began) / 1000
  await alerts.settled()
  // Wait (bounded) for the notifications of the last raises to arrive.
  const expected = () => alerts.metrics().raised + alerts.metrics().reset
  const deadline = performance.now() + 30_000
  while (arrivals.length < expected() && performance.now() < deadline) await new Promise((r) => setTimeout(r, 20))
  lag.disable()

  const latencies: number[] = []
  for (const a of arrivals) {
    const ack = ackOf.get(a.key)
    if (ack !== undefined) latencies.push(a.at - ack)
  }
  const m = alerts.metrics()
  const result = {
    bench: 'alerts', run: no, alerts: alertCount, target_rate: rate, achieved_rate: Math.round(sent / elapsed), observations: sent,
    evaluated: m.evaluated, raised: m.raised, reset: m.reset, webhook_calls: arrivals.length, matched: latencies.length,
    p50_ms: +quantile(latencies, 0.5).toFixed(2), p99_ms: +quantile(latencies, 0.99).toFixed(2), max_ms: +Math.max(...latencies).toFixed(2),
    notifications: m.notifications, start_ms: Math.round(startMs), event_loop_p99_ms: +(lag.percentile(99) / 1e6).toFixed(1),
    main_thread_ms: Object.fromEntries(Object.entries(spent).map(([k, v]) => [k, { total: Math.round(v.total), max: +v.max.toFixed(1), calls: v.calls }])),
    ingest: queue.metrics(), rss_mb: Math.round(process.memoryUsage().rss / 2 ** 20),
  }
  emit(result)
  await alerts.close()
  await sqlite.close()
  catalog.close()
  receiver.closeAllConnections()
  receiver.close()
  rmSync(dir, { recursive: true, force: true })
  return result
}

const results = []
for (let i = 1; i <= runs; i++) results.push(await run(i))
emit({
  bench: 'alerts', summary: true, runs, target_p99_ms: 100,
  median_p99_ms: median(results.map((r) => r.p99_ms)), median_p50_ms: median(results.map((r) => r.p50_ms)),
  median_achieved_rate: median(results.map((r) => r.achieved_rate)),
})
process.exit(0)
