// Controls apps on one edge agent (issue 31 "Done when"): 1,000 running schedule apps switching
// at the same minute. Per app, the latency from the switching time to its write being done on
// the (simulated) driver AND its APPLOG having crossed the broker to the platform's side (a
// subscriber on the controls topic): p50/p99/max (target p99 < 2 s); the agent's CPU time
// during the switch and its memory with 1,000 apps.
// The agent side runs in this process (edge/apps: runner, outbox, its MQTT link) against
// Mosquitto :1883 (the test services), with the simulated driver of 1,000 points; the
// platform is played by an MQTT client in this process too, so the CPU figure includes that
// client's receiving (an upper bound for the agent). The agent's clock is the system clock
// displaced so that the switching minute comes ~LEAD seconds after the apps are deployed:
// real time, real timers, no waiting for a wall-clock minute.
// Not measured here: deployments from the platform's API (the platform's side is lane
// 31-api's; see the report).
// Usage: npm run bench:controls-apps   (BENCH_RUNS=3, BENCH_APPS=1000, BENCH_LEAD_S=120: the deployment of 1,000 apps must fit in it)
import mqtt from 'mqtt'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { systemClock, type Clock } from '../core/clock/clock.ts'
import { scheduleConfig } from '../core/schedule/config.ts'
import { startEdgeApps, WriteWatch } from '../edge/apps/index.ts'
import { SimulatedBacnetDriver } from '../edge/simulated-driver.ts'
import { appDef } from '../protocol/controls-app-messages.ts'
import { emit, median, progress } from './lib.ts'

const RUNS = Number(process.env.BENCH_RUNS ?? 3)
const APPS = Number(process.env.BENCH_APPS ?? 1000)
const LEAD_S = Number(process.env.BENCH_LEAD_S ?? 120)
const BROKER = process.env.BENCH_BROKER ?? 'mqtt://127.0.0.1:1883'
// 06:00 Europe/Berlin (CEST) on a Monday: the minute every app switches.
const SWITCH_US = Date.parse('2026-06-01T04:00:00Z') * 1000

const pct = (xs: number[], p: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(p * s.length))] }
const round = (x: number) => Math.round(x * 10) / 10

/** The system clock shifted by `offsetUs`: its timers are Node's, its time reads offset. */
/** Polls `cond` (every `everyMs`); fails after 120 s naming what it waited for. */
async function until(cond: () => boolean, what: () => string, everyMs = 20): Promise<void> {
  const deadline = Date.now() + 120_000
  while (!cond()) {
    if (Date.now() > deadline) throw new Error(`timed out: ${what()}`)
    await new Promise((r) => setTimeout(r, everyMs))
  }
}

function displaced(offsetUs: number): Clock {
  return {
    now: () => systemClock.now() + offsetUs,
    at: (fn, t) => systemClock.at(fn, t - offsetUs),
    after: (fn, d) => systemClock.after(fn, d),
  }
}

async function run(n: number) {
  const stateDir = mkdtempSync(join(tmpdir(), 'lintel-bench-apps-'))
  const group = `bench${n}${Math.random().toString(36).slice(2, 6)}`
  const topic = `CONTROLS/${group}/edge`
  const offset = SWITCH_US - LEAD_S * 1_000_000 - systemClock.now()
  const clock = displaced(offset)
  const driver = new WriteWatch(SimulatedBacnetDriver.numbered('sim-', APPS, 20, clock))
  const received = new Map<string, number>() // app -> wall µs the switching's APPLOG arrived
  const running = new Set<string>()
  const platform = await mqtt.connectAsync(BROKER, { clientId: `platform-${group}`, reconnectPeriod: 0 })
  // QoS 0 to this listener: Mosquitto queues at most 1,000 QoS 1 messages per slow subscriber.
  await platform.subscribeAsync(topic, { qos: 0 })
  platform.on('message', (_t, payload) => {
    const m = JSON.parse(payload.toString())
    if (m.type === 'APPSTATE' && m.state === 'Running') running.add(m.app_id)
    if (m.type === 'APPLOG' && m.kind === 'write' && m.message.includes('switching time') && !received.has(m.app_id)) received.set(m.app_id, systemClock.now())
  })
  const apps = startEdgeApps({ url: BROKER, username: 'edge', password: 'x', group, handle: 'edge', stateDir, driver, clock })
  // The edge subscribes first (a platform would answer its APPSYNC with what it missed).
  await until(() => apps.runner.status().online, () => 'the edge to connect')
  const t0 = Date.now()
  const configuration = scheduleConfig({ week: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '06:00', values: { sp: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'], time: '22:00', values: { sp: 16 } },
  ] })
  for (let i = 1; i <= APPS; i++) {
    await platform.publishAsync(topic, JSON.stringify(appDef({ app_id: `app-${i}`, revision: 1, desired: 'run', algorithm: 'schedule', zone: 'Europe/Berlin', pins: { sp: `sim-${i}` }, configuration, holidays: [] })), { qos: 1 })
  }
  await until(() => apps.runner.status().apps.filter((a) => a.state === 'Running').length >= APPS, () => `${apps.runner.status().apps.length} apps on the edge, ${running.size} Running heard`)
  await apps.runner.idle()
  while (apps.outbox.size > 0) await new Promise((r) => setTimeout(r, 20))
  const deployMs = Date.now() - t0
  const leftMs = (SWITCH_US - clock.now()) / 1000
  if (leftMs < 1000) throw new Error(`deploying ${APPS} apps took ${deployMs} ms: less than 1 s was left before the switching minute (raise BENCH_LEAD_S)`)
  progress(`run ${n}: ${APPS} apps running after ${deployMs} ms; switching in ${Math.round(leftMs)} ms`)
  await new Promise((r) => setTimeout(r, leftMs - 500))
  const cpu0 = process.cpuUsage()
  const switchWall = SWITCH_US - offset
  await until(() => received.size >= APPS, () => `${received.size} of ${APPS} switching logs`, 5)
  const cpu = process.cpuUsage(cpu0)
  const lat = [...received.values()].map((w) => (w - switchWall) / 1000)
  const mem = process.memoryUsage()
  const sim = driver.inner as SimulatedBacnetDriver
  let wrong = 0
  for (let i = 1; i <= APPS; i++) if (sim.read(`sim-${i}`).presentValue !== 21) wrong++
  await apps.stop()
  await platform.endAsync()
  rmSync(stateDir, { recursive: true, force: true })
  const r = {
    run: n, apps: APPS, deploy_ms: deployMs, p50_ms: round(pct(lat, 0.5)), p99_ms: round(pct(lat, 0.99)), max_ms: round(Math.max(...lat)),
    cpu_ms: round((cpu.user + cpu.system) / 1000), rss_mb: round(mem.rss / 1048576), heap_mb: round(mem.heapUsed / 1048576), not_written: wrong,
  }
  emit(r)
  return r
}

const results = []
for (let n = 1; n <= RUNS; n++) results.push(await run(n))
emit({
  benchmark: 'controls-apps', apps: APPS, runs: RUNS,
  switch_p50_ms: median(results.map((r) => r.p50_ms)), switch_p99_ms: median(results.map((r) => r.p99_ms)), switch_max_ms: median(results.map((r) => r.max_ms)),
  cpu_ms: median(results.map((r) => r.cpu_ms)), rss_mb: median(results.map((r) => r.rss_mb)), heap_mb: median(results.map((r) => r.heap_mb)),
  deploy_1000_ms: median(results.map((r) => r.deploy_ms)), target_p99_ms: 2000, load: (await import('node:os')).loadavg()[0],
})
process.exit(0)
