// The configured edge agent (issue 32): the drivers of the configuration file behind one
// driver port, every observation through the durable buffer (edge/buffer/), the forwarder
// sending it to the broker, the points' tags published through META when they changed (meta.ts),
// and the health datapoints and status file every health.interval_s.
// It starts without waiting for the broker: while the broker is unreachable the drivers keep
// polling into the buffer. Controls apps run through the same drivers (apps.ts); they and the
// NEWSPT handler write through one WriteWatch, which sees their conflicts.
import { join } from 'node:path'
import { nowMs, systemClock, type Clock } from '../../core/clock/clock.ts'
import { encodeLine } from '../../protocol/line-encoder.ts'
import { startEdgeAgent, type EdgeAgent } from '../agent.ts'
import { WriteWatch, type EdgeApps } from '../apps/index.ts'
import { DiskBuffer } from '../buffer/disk-buffer.ts'
import { Forwarder } from '../buffer/forwarder.ts'
import type { DriverConfig, EdgeConfig } from '../config/schema.ts'
import { BacnetDriver } from '../drivers/bacnet/driver.ts'
import { ModbusDriver } from '../drivers/modbus/driver.ts'
import type { PlantDriver } from '../drivers/plant-driver.ts'
import { PriorityStore } from '../drivers/priority-store.ts'
import { startPlantApps } from './apps.ts'
import { CompositeDriver } from './composite-driver.ts'
import { healthValues, snapshot, writeStatus } from './health.ts'
import { MetaPublisher } from './meta.ts'

export interface Plant {
  agent: EdgeAgent
  buffer: DiskBuffer
  forwarder: Forwarder
  drivers: PlantDriver[]
  /** The controls apps (issue 31) running through the drivers. */
  apps: EdgeApps
  /** Settles when every driver's start (first subscriptions and reads) is over. */
  started: Promise<unknown>
  /** Publishes the health datapoints and writes the status file now. */
  health(): void
  stop(): Promise<void>
}

export type DriverFactory = (cfg: DriverConfig, stateDir: string, clock: Clock, log: (m: string) => void) => PlantDriver

export const buildDriver: DriverFactory = (cfg, stateDir, clock, log) => {
  if (cfg.type === 'modbus') return new ModbusDriver(cfg, new PriorityStore(join(stateDir, 'priority', `${cfg.name}.json`)), clock, log)
  return new BacnetDriver(cfg, clock, log)
}

export async function startPlant(config: EdgeConfig, o: { password: string; ca?: Buffer; clock?: Clock; log?: (m: string) => void; factory?: DriverFactory }): Promise<Plant> {
  const clock = o.clock ?? systemClock
  const log = o.log ?? (() => {})
  const { group, handle } = config.broker.project
  const buffer = new DiskBuffer({ dir: join(config.state_dir, 'buffer'), maxBytes: config.buffer.max_bytes, log })
  if (buffer.counters.recovered > 0) log(`edge: ${buffer.counters.recovered} observation(s) recovered from the buffer, to be sent`)
  const drivers = config.drivers.map((d) => (o.factory ?? buildDriver)(d, config.state_dir, clock, log))
  const composite = new WriteWatch(new CompositeDriver(drivers))
  // Apps start from disk before the broker is reached: they run without it.
  const apps = startPlantApps(config, { driver: composite, password: o.password, ca: o.ca, clock, log })
  const agent = await startEdgeAgent({
    url: config.broker.url, ca: o.ca, username: config.broker.account, password: o.password, clientId: config.broker.client_id,
    group, handle, driver: composite, offline: true, sink: (line) => buffer.take(line), log,
  })
  const forwarder = new Forwarder({ buffer, client: agent.client, topic: `${group}/${handle}`, linesPerMessage: config.buffer.lines_per_message, inFlight: config.buffer.in_flight, log })
  // The points' tags through META, at a connection only for points changed since the broker's last PUBACK (meta.ts).
  const meta = new MetaPublisher({
    client: agent.client, topic: `META/${group}/${handle}`, file: join(config.state_dir, 'meta.json'), log,
    points: () => drivers.flatMap((d) => d.points().map((point) => ({ driver: d.name, point }))),
  })
  agent.client.on('connect', () => log(`edge: connected to ${config.broker.url}; ${buffer.depth()} buffered observation(s) to send`))
  agent.client.on('error', (err) => log(`edge: broker ${config.broker.url}: ${err.message}`))
  agent.client.on('offline', () => log(`edge: broker ${config.broker.url} unreachable; buffering (${buffer.depth()} observation(s))`))

  const health = () => {
    const now = nowMs(clock)
    const s = snapshot(drivers, buffer, { url: config.broker.url, connected: agent.client.connected }, now)
    for (const [id, v] of healthValues(s, config.health.prefix)) buffer.take(encodeLine(id, v, Math.round(now) * 1000))
    writeStatus(config.state_dir, s)
  }
  const timer = setInterval(health, config.health.interval_s * 1000)
  // The drivers start in the background: a BACnet driver's first subscriptions and reads take
  // a request each (seconds for a slow or silent device), and the agent must stop at any time.
  let stopping = false
  const started = Promise.all(drivers.map((d) => d.start().catch((err) => log(`edge: driver ${d.name} did not start: ${(err as Error).message}`))))
  void started.then(() => { if (!stopping) health() })
  return {
    agent, buffer, forwarder, drivers, apps, health, started,
    stop: async () => {
      stopping = true
      clearInterval(timer)
      await apps.stop() // its last writes done before the drivers close
      forwarder.stop()
      meta.stop()
      // Closed at once: unacknowledged messages are still in the buffer and sent by the next start.
      await within(STOP_STEP_MS, agent.client.endAsync(true), 'the broker connection to close', log)
      // Polling stops; a request still waiting for a device is not waited for beyond the step.
      await within(STOP_STEP_MS, agent.stop(), 'the drivers to close', log)
      buffer.close()
      writeStatus(config.state_dir, snapshot(drivers, buffer, { url: config.broker.url, connected: false }, nowMs(clock)))
    },
  }
}

/** A step of stop() waits at most this long (a silent device, a broker that does not answer). */
export const STOP_STEP_MS = 2000

async function within(ms: number, p: Promise<unknown>, what: string, log: (m: string) => void): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  const late = new Promise<void>((resolve) => { timer = setTimeout(() => { log(`edge: stopping without waiting longer for ${what} (${ms} ms)`); resolve() }, ms) })
  await Promise.race([p.catch((err) => log(`edge: stopping: ${what}: ${(err as Error).message}`)), late])
  clearTimeout(timer)
}
