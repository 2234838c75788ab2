// The live channel of the scaled mode (issue 33; docs/scaled-mode.md "Live subscriptions"): API
// processes run no observation bus, the workers do. Each worker relays what its bus carries,
// after the store write (storeThenBus), on one Redis pub/sub channel per project,
// `lintel:live:<project>`; an API process subscribes to the channels of the projects its
// sockets watch, and to nothing else. Storage-first holds (a worker publishes only stored
// batches), a project's batches keep their order (one worker owns a project's partition, and
// one connection publishes them in order), and an API node reads only what it needs.
// Pub/sub keeps nothing: when a subscriber's connection drops, what was published meanwhile
// is gone, so the feed tells its hub (interrupted), which closes the sockets with 4409 and the
// clients resume from the store with `since`. Around a worker takeover a batch can come twice
// (at-least-once, as in the store, where it replaces the same (series, time)).
import { createRequire } from 'node:module'
import type { AlertEvent } from '../../catalog/alerts.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { Observation } from '../store/port.ts'
import type { AlertEventSource, AlertEventsListener, LiveFeed, ObservationsListener } from './feed.ts'

const require = createRequire(import.meta.url)

export const liveChannel = (projectId: number): string => `lintel:live:${projectId}`
const PREFIX = 'lintel:live:'

interface RedisClient {
  publish(channel: string, message: string): Promise<number>
  subscribe(channel: string): Promise<unknown>
  unsubscribe(channel: string): Promise<unknown>
  on(event: string, fn: (...args: any[]) => void): unknown
  quit(): Promise<unknown>
  disconnect(): void
}

function connect(url: string): RedisClient {
  const u = new URL(url)
  if (u.protocol !== 'redis:') throw new Error(`LINTEL_REDIS_URL must be a redis:// URL, got '${url}'`)
  const Redis = require('ioredis') as new (o: object) => RedisClient
  return new Redis({
    host: u.hostname, port: Number(u.port || 6379), ...(u.password ? { password: decodeURIComponent(u.password) } : {}),
    ...(u.pathname.length > 1 ? { db: Number(u.pathname.slice(1)) } : {}), maxRetriesPerRequest: null,
  })
}

/** One message of a project's channel: observations as flat [series, time, value, ...], or alert events. */
type Wire = { o: number[] } | { a: AlertEvent[] }

export function encodeObservations(batch: readonly Observation[]): string {
  const flat = new Array<number>(batch.length * 3)
  let i = 0
  for (const o of batch) { flat[i++] = o.series; flat[i++] = o.time; flat[i++] = o.value }
  return JSON.stringify({ o: flat })
}

export function decodeMessage(text: string): { observations?: Observation[]; alerts?: AlertEvent[] } {
  const w = JSON.parse(text) as Wire
  if ('a' in w) return { alerts: w.a }
  const out: Observation[] = []
  for (let i = 0; i + 2 < w.o.length; i += 3) out.push({ series: w.o[i], time: w.o[i + 1], value: w.o[i + 2] })
  return { observations: out }
}

export interface LiveRelayOptions {
  redisUrl: string
  bus: ObservationBus
  alerts?: AlertEventSource
  /** The project of an alert (its events carry only the alert's id). */
  projectOfAlert: (alertId: number) => Promise<number | undefined>
  onError: (err: unknown) => void
}

/** The worker's side: every stored batch of its bus (and every stored alert event) on its project's channel. */
export function startLiveRelay(o: LiveRelayOptions): { close(): Promise<void> } {
  const redis = connect(o.redisUrl)
  redis.on('error', o.onError)
  const stopObs = o.bus.batches((batch, project) => {
    if (project === undefined || batch.length === 0) return
    redis.publish(liveChannel(project), encodeObservations(batch)).catch(o.onError)
  })
  let chain = Promise.resolve()
  const stopAlerts = o.alerts?.subscribeEvents((events) => {
    chain = chain.then(async () => {
      const byProject = new Map<number, AlertEvent[]>()
      for (const e of events) {
        const p = await o.projectOfAlert(e.alert_id)
        if (p !== undefined) byProject.set(p, [...(byProject.get(p) ?? []), e])
      }
      for (const [p, list] of byProject) await redis.publish(liveChannel(p), JSON.stringify({ a: list }))
    }).catch(o.onError)
  })
  return {
    close: async () => {
      stopObs()
      stopAlerts?.()
      await chain
      await redis.quit().catch(() => redis.disconnect())
    },
  }
}

/** The API's side: the channels of the watched projects only. */
export function redisFeed(redisUrl: string, onError: (err: unknown) => void): LiveFeed {
  const redis = connect(redisUrl)
  const obs = new Set<ObservationsListener>()
  const alerts = new Set<AlertEventsListener>()
  const interrupted = new Set<() => void>()
  const watched = new Set<number>()
  let ready = false
  redis.on('error', onError)
  redis.on('ready', () => { ready = true })
  // A dropped connection loses what was published meanwhile: every watcher must resume.
  redis.on('close', () => {
    if (!ready) return
    ready = false
    for (const fn of interrupted) fn()
  })
  redis.on('message', (channel: string, text: string) => {
    const project = Number(channel.slice(PREFIX.length))
    let m: ReturnType<typeof decodeMessage>
    try { m = decodeMessage(text) } catch (err) { onError(err); return }
    if (m.observations) for (const fn of obs) fn(m.observations, project)
    if (m.alerts) for (const fn of alerts) fn(m.alerts)
  })
  const add = <T>(set: Set<T>, fn: T) => { set.add(fn); return () => { set.delete(fn) } }
  return {
    observations: (fn) => add(obs, fn),
    alerts: (fn) => add(alerts, fn),
    interrupted: (fn) => add(interrupted, fn),
    watch: async (projectId) => {
      if (watched.has(projectId)) return
      watched.add(projectId)
      await redis.subscribe(liveChannel(projectId)) // resolves once Redis confirmed: from now on nothing is missed
    },
    unwatch: (projectId) => {
      if (!watched.delete(projectId)) return
      redis.unsubscribe(liveChannel(projectId)).catch(onError)
    },
    close: async () => { await redis.quit().catch(() => redis.disconnect()) },
  }
}
