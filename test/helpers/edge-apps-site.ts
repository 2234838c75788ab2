// An edge with controls apps (edge/apps/) against a real broker, for the runner's tests and the
// bench: Mosquitto on :1883 (the test services) reached through a proxy the test can cut (the
// broker "away": connections dropped, new ones refused) and restore; a client playing the
// platform on the controls topic (sends APPDEF, collects APPSTATE/APPLOG/APPSYNC); and the
// edge's app runner in this process on a virtual clock with the simulated driver.
import type { Test } from 'tap'
import mqtt, { type MqttClient } from 'mqtt'
import { createServer, connect, type Server, type Socket } from 'node:net'
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'
import { startEdgeApps, WriteWatch, type EdgeApps } from '../../edge/apps/index.ts'
import { moveClock } from '../../edge/apps/test-clock.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { appDef, type AppDef, type AppLog } from '../../protocol/controls-app-messages.ts'
import { scheduleConfig } from '../../core/schedule/config.ts'
import { waitFor } from './wait.ts'

export const BROKER_PORT = 1883

/** A TCP proxy to the broker: cut() drops every connection and refuses new ones until restore(). */
export async function cuttableProxy(targetPort = BROKER_PORT) {
  const sockets = new Set<Socket>()
  let server: Server | undefined
  let port = 0
  const open = () => new Promise<void>((resolve, reject) => {
    const s = createServer((client) => {
      const upstream = connect(targetPort, '127.0.0.1')
      sockets.add(client); sockets.add(upstream)
      const drop = () => { client.destroy(); upstream.destroy(); sockets.delete(client); sockets.delete(upstream) }
      client.on('error', drop); upstream.on('error', drop); client.on('close', drop); upstream.on('close', drop)
      client.pipe(upstream); upstream.pipe(client)
    })
    s.once('error', reject)
    s.listen(port, '127.0.0.1', () => { port = (s.address() as { port: number }).port; server = s; resolve() })
  })
  await open()
  return {
    get port() { return port },
    cut: async () => {
      const s = server; server = undefined
      for (const so of sockets) so.destroy()
      sockets.clear()
      if (s) await new Promise((r) => s.close(r))
    },
    restore: open,
    close: async () => { const s = server; server = undefined; for (const so of sockets) so.destroy(); if (s) await new Promise((r) => s.close(r)) },
  }
}

export interface Heard { states: Record<string, any>[]; logs: AppLog[]; syncs: Record<string, any>[] }

/** A schedule app definition with defaults for the tests. */
export function scheduleDef(appId: string, revision: number, configuration: object, o: Partial<AppDef> = {}): AppDef {
  return appDef({ app_id: appId, revision, desired: 'run', algorithm: 'schedule', zone: 'Europe/Berlin', pins: { sp: 'hc1.sp' }, configuration: scheduleConfig(configuration as Record<string, unknown>), holidays: [], ...o })
}

export async function edgeAppsSite(t: Test, o: { startIso: string; points?: string[] }) {
  const group = `g${Math.random().toString(36).slice(2, 8)}`
  const handle = 'h1'
  const topic = `CONTROLS/${group}/${handle}`
  const proxy = await cuttableProxy()
  const stateDir = mkdtempSync(join(tmpdir(), 'lintel-edge-apps-'))
  const clock = new VirtualClock(Date.parse(o.startIso) * 1000)
  let driver = new SimulatedBacnetDriver((o.points ?? ['hc1.sp', 'hc2.sp']).map((id) => ({ id, relinquishDefault: 20 })), clock)
  let watch = new WriteWatch(driver)
  const heard: Heard = { states: [], logs: [], syncs: [] }
  const platform: MqttClient = await mqtt.connectAsync(`mqtt://127.0.0.1:${BROKER_PORT}`, { clientId: `platform-${group}`, reconnectPeriod: 0 })
  await platform.subscribeAsync(topic, { qos: 1 })
  platform.on('message', (_topic, payload) => {
    const m = JSON.parse(payload.toString())
    if (m.type === 'APPSTATE') heard.states.push(m)
    else if (m.type === 'APPLOG') heard.logs.push(m)
    else if (m.type === 'APPSYNC') heard.syncs.push(m)
  })
  let apps: EdgeApps | undefined
  const start = (fresh = false) => {
    if (fresh) { // a new process: the points come back with empty priority arrays
      driver = new SimulatedBacnetDriver((o.points ?? ['hc1.sp', 'hc2.sp']).map((id) => ({ id, relinquishDefault: 20 })), clock)
      watch = new WriteWatch(driver)
    }
    apps = startEdgeApps({ url: `mqtt://127.0.0.1:${proxy.port}`, username: 'edge', password: 'x', group, handle, stateDir, driver: watch, clock, reconnectPeriod: 50 })
    return apps
  }
  t.teardown(async () => {
    await apps?.stop()
    await platform.endAsync()
    await proxy.close()
    rmSync(stateDir, { recursive: true, force: true })
  })
  const site = {
    group, handle, topic, proxy, stateDir, clock, heard, platform, start,
    get driver() { return driver },
    get watch() { return watch },
    get apps() { if (!apps) throw new Error('not started'); return apps },
    deploy: (def: AppDef) => platform.publishAsync(topic, JSON.stringify(def), { qos: 1 }),
    /** Moves the clock to an ISO time, every timer's work done on the way. */
    to: (iso: string) => moveClock(clock, Date.parse(iso) * 1000, site.apps.runner),
    /** The priority-13 slot of a point. */
    slot: (point: string, priority = 13) => driver.read(point).priorityArray[priority - 1],
    /** An app's logs as the platform stores them: each seq once (the first copy; resends after a reconnect are dropped), in arrival order. */
    logsOf: (appId: string) => {
      const seen = new Set<number>()
      return heard.logs.filter((l) => l.app_id === appId && !seen.has(l.seq) && (seen.add(l.seq), true))
    },
    waitLogs: async (appId: string, n: number, what: string) => { await waitFor(() => site.logsOf(appId).length >= n, { what: `${what} (${n} logs of ${appId})`, timeoutMs: 15_000 }); return site.logsOf(appId) },
    waitState: (appId: string, state: string, what: string) => waitFor(() => heard.states.some((s) => s.app_id === appId && s.state === state), { what, timeoutMs: 15_000 }),
    waitOnline: (online: boolean) => waitFor(() => site.apps.runner.status().online === online, { what: `the runner to be ${online ? 'online' : 'offline'}`, timeoutMs: 15_000 }),
  }
  return site
}
