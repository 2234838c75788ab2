// Runs alerts (issue 13 item 3), in the shape of engine/vdp/runtime.ts: every enabled alert
// watches its datapoint's observations on the bus, which carries only stored ones (DESIGN.md
// "Data flow": alerts react after the store write), keyed by project for ProjectRuntimes.
//
// Restart without a duplicate raise or a missed reset: each alert's evaluation state (the
// raised level, the runs of its minimum durations, the time of the last observation it
// evaluated) is checkpointed in the catalog, in the same transaction as every event, and
// every `checkpointMs` while observations flow. On start the runtime subscribes the bus
// (buffering), reads back from the store what came after the checkpoint, evaluates it, then
// the buffer, then live data; the evaluator skips what it has seen (event time ≤ last). So a
// raised alert stays raised without a second raise, and a reset stored while the process was
// down (or before its checkpoint) is found and recorded.
//
// Raises and resets are batched per turn: one catalog transaction stores the events, the
// checkpoints and the outbox entries, then the notifier sends them (never awaited here).
// Notifications are rate-bounded per alert (debounce.ts): an event inside an alert's window
// is stored without an outbox entry and covered by the window's coalesced notification.
import { Subscription } from 'rxjs'
import type { AlertEvent, AlertRecord, OutboxEntry, Transition } from '../../catalog/alerts.ts'
import { notifiesWhileAcknowledged } from '../../core/alert-acknowledgement.ts'
import { acknowledgeAlert, clearAlert, type Actor } from './people.ts'
import type { Catalog } from '../../catalog/index.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { ProjectRuntime } from '../project-runtimes.ts'
import type { TimeseriesStore } from '../store/port.ts'
import type { Obs } from '../stream/types.ts'
import { alertPayload } from '../notify/payload.ts'
import { NotificationDebounce, type Coalesced } from './debounce.ts'
import type { Notifier } from '../notify/outbox.ts'
import type { NotifyTarget } from '../notify/port.ts'
import { afterMs, nowMs, systemClock, type Clock } from '../../core/clock/clock.ts'
import { channelsOf, parseNotification, parseThresholds, parseThroughput, type Level, type NotificationConfig } from './config.ts'
import { ALERT_LIFECYCLE } from './lifecycle.ts'
import { initialThresholdState, ThresholdEvaluator, type ThresholdState } from './operators/threshold.ts'
import { ThroughputEvaluator } from './operators/throughput.ts'

export interface AlertRuntimeLog { info(obj: object, msg: string): void; error(obj: object, msg: string): void }

interface Running {
  alert: AlertRecord
  notification: NotificationConfig
  sub: Subscription
  /** The checkpoint text to write now, if it changed since the last write. */
  checkpoint: () => string | undefined
  level: () => Level | null
}

interface ThroughputState { level: Level | null; startedAt: number }

const stateText = (s: ThresholdState) => JSON.stringify({ ...s, last: Number.isFinite(s.last) ? s.last : null })
const parseThresholdState = (text: string | undefined): ThresholdState | undefined => {
  if (text === undefined) return undefined
  const s = JSON.parse(text) as ThresholdState & { last: number | null }
  return { level: s.level ?? null, since: s.since ?? {}, last: s.last ?? -Infinity }
}

export class AlertRuntime implements ProjectRuntime {
  private readonly running = new Map<number, Running>()
  private readonly starting = new Map<number, number>()
  private readonly disabling = new Set<number>()
  private batch: Transition[] = []
  private writing: Promise<void> = Promise.resolve()
  private readonly clock: Clock
  private cancelCheckpoint: (() => void) | undefined
  private readonly counters = { evaluated: 0, raised: 0, reset: 0 }
  /** Alerts whose evaluation moved since their last checkpoint, oldest first. */
  private readonly dirty = new Set<number>()

  constructor (private readonly deps: {
    catalog: Catalog
    /** Reads back what came after a checkpoint. */
    store: Pick<TimeseriesStore, 'read'>
    bus: ObservationBus
    notifier?: Notifier
    log: AlertRuntimeLog
    clock?: Clock
    /** How often evaluation checkpoints are written while data flows; default 1000 ms. */
    checkpointMs?: number
    /** At most this many checkpoints per tick; default 1000. */
    checkpointBatch?: number
    /** Whether this process runs the project's alerts (scaled mode: its worker owns the partition); default all. */
    owns?: (projectId: number) => boolean
    /** At most one notification per alert per this many ms, the rest coalesced (debounce.ts); default 0: every event. */
    notifyIntervalMs?: number
  }) {
    this.clock = deps.clock ?? systemClock
    this.debounce = new NotificationDebounce(deps.notifyIntervalMs ?? 0, this.clock, (c) => this.sendCoalesced(c))
  }

  private readonly debounce: NotificationDebounce
  /** Told of every raise and reset once stored (the live subscriptions, engine/live/). */
  private readonly eventListeners = new Set<(events: readonly AlertEvent[]) => void>()

  /** Every raise and reset once stored, from now on; returns the unsubscribe. */
  subscribeEvents(fn: (events: readonly AlertEvent[]) => void): () => void {
    this.eventListeners.add(fn)
    return () => { this.eventListeners.delete(fn) }
  }

  isRunning(id: number): boolean {
    return this.running.has(id)
  }

  runningIds(): number[] {
    return [...this.running.keys()]
  }

  metrics() {
    // notifications_held: events waiting in a rate window for their coalesced notification (debounce.ts).
    return { ...this.counters, running: this.running.size, notifications: this.deps.notifier?.metrics(), notifications_held: this.debounce.heldCount() }
  }

  /** A person acknowledges the alert's raise (people.ts). */
  acknowledge(alert: AlertRecord, who: Actor): Promise<AlertEvent> {
    return acknowledgeAlert({ catalog: this.deps.catalog, runtime: this, clock: this.clock }, alert, who)
  }

  /** A person clears (resets by hand) the raised alert (people.ts). */
  clear(alert: AlertRecord, who: Actor): Promise<AlertEvent> {
    return clearAlert({ catalog: this.deps.catalog, runtime: this, clock: this.clock }, alert, who)
  }

  /** Hands notifications already stored in the outbox to the notifier (acknowledgements, clears). */
  async deliver(entries: readonly OutboxEntry[]): Promise<void> {
    if (entries.length > 0 && this.deps.notifier) await this.deps.notifier.enqueue(entries.map((o) => ({ id: o.id, alertId: o.alert_id, channel: o.channel, payload: o.payload })))
  }

  /** The notification target of an alert (the notifier asks; undefined once the alert is deleted). */
  async targetOf(alertId: number): Promise<NotifyTarget | undefined> {
    const r = this.running.get(alertId)
    if (r) return r.notification
    const a = await this.deps.catalog.alerts.find(alertId)
    return a && parseNotification(a.notification)
  }

  async start(alert: AlertRecord): Promise<void> {
    if (this.running.has(alert.id) || this.starting.has(alert.id) || !this.owns(alert.project_id)) return
    this.starting.set(alert.id, alert.project_id)
    try {
      const run = alert.kind === 'threshold' ? await this.startThreshold(alert) : await this.startThroughput(alert)
      if (!this.starting.has(alert.id)) { // stopped (its project deleted) while starting
        run.sub.unsubscribe()
        return
      }
      this.running.set(alert.id, run)
      this.armCheckpoints()
    } finally {
      this.starting.delete(alert.id)
    }
  }

  private async startThreshold(alert: AlertRecord): Promise<Running> {
    const { catalog, store, bus } = this.deps
    const stored = parseThresholdState(await catalog.alerts.state(alert.id))
    const evaluator = new ThresholdEvaluator(parseThresholds(alert.config.thresholds), stored ?? initialThresholdState())
    const channels = channelsOf(parseNotification(alert.notification))
    let buffer: Obs[] | undefined = []
    let written = stored ? stateText(stored) : undefined
    const step = (o: Obs) => {
      this.counters.evaluated++
      this.dirty.add(alert.id)
      const t = evaluator.step(o)
      if (t) this.push(alert.id, { kind: t.kind, level: t.level, previous_level: t.previous_level, value: t.value, time: t.time }, stateText(t.state), channels)
    }
    const sub = bus.series(alert.datapoint).subscribe((o) => { if (buffer) buffer.push(o); else step(o) })
    try {
      // Storage-first catch-up: only an alert with a checkpoint has a past to evaluate.
      if (stored && Number.isFinite(stored.last)) for (const o of await store.read(alert.datapoint, { start: stored.last + 1 })) step(o)
    } catch (err) {
      sub.unsubscribe()
      throw err
    }
    const pending = buffer
    buffer = undefined
    for (const o of pending) step(o)
    return {
      alert, sub, notification: parseNotification(alert.notification),
      level: () => evaluator.state.level,
      checkpoint: () => {
        const text = stateText(evaluator.state)
        if (text === written) return undefined
        written = text
        return text
      },
    }
  }

  private async startThroughput(alert: AlertRecord): Promise<Running> {
    const { catalog, store, bus } = this.deps
    const cfg = parseThroughput(alert.config.throughput)
    const text = await catalog.alerts.state(alert.id)
    const stored: ThroughputState = text ? JSON.parse(text) : { level: null, startedAt: nowMs(this.clock) }
    const now = nowMs(this.clock)
    const seed = (await store.read(alert.datapoint, { limit: cfg.min_count, from: 'last' })).map((p) => Math.min(now, Math.floor(p.time / 1000)))
    const channels = channelsOf(parseNotification(alert.notification))
    const state = (level: Level | null) => JSON.stringify({ level, startedAt: stored.startedAt })
    const evaluator = new ThroughputEvaluator(cfg, this.clock, (t) => this.push(alert.id, t, state(t.kind === 'raise' ? t.level : null), channels),
      { startedAt: stored.startedAt, seedTimes: seed, level: stored.level })
    let written = text
    const sub = bus.series(alert.datapoint).subscribe(() => { this.counters.evaluated++; this.dirty.add(alert.id); evaluator.observe() })
    sub.add(() => evaluator.stop())
    this.dirty.add(alert.id) // its start time is checkpointed: the grace period survives a restart
    evaluator.start()
    return {
      alert, sub, notification: parseNotification(alert.notification),
      level: () => evaluator.level,
      checkpoint: () => {
        const t = state(evaluator.level)
        if (t === written) return undefined
        written = t
        return t
      },
    }
  }

  /** Stops an alert; its checkpoint is written first, so a later start continues from it. */
  async stop(id: number): Promise<void> {
    this.starting.delete(id)
    const r = this.running.get(id)
    if (!r) return
    r.sub.unsubscribe()
    this.running.delete(id)
    await this.settled()
    this.debounce.forget(id)
    const text = r.checkpoint()
    if (text !== undefined) await this.deps.catalog.alerts.saveStates([{ alertId: id, state: text }])
  }

  /**
   * Disable: stops the alert and forgets its evaluation; a raised alert is reset (an event
   * without a value, notified like any other), so no raise is left open.
   */
  async disable(alert: AlertRecord): Promise<void> {
    // The route and a reconcile may both disable it (API and worker in one process): one reset.
    if (this.disabling.has(alert.id)) return
    this.disabling.add(alert.id)
    try {
      const level = this.running.get(alert.id)?.level() ?? null
      await this.stop(alert.id)
      if (level !== null) {
        this.push(alert.id, { kind: 'reset', level, previous_level: null, value: null, time: nowMs(this.clock) * 1000 }, 'null',
          channelsOf(parseNotification(alert.notification)))
        await this.settled()
      }
      await this.deps.catalog.alerts.clearState(alert.id)
    } finally {
      this.disabling.delete(alert.id)
    }
  }

  async stopProject(projectId: number): Promise<void> {
    for (const [id, p] of this.starting) if (p === projectId) this.starting.delete(id)
    await Promise.all([...this.running].filter(([, r]) => r.alert.project_id === projectId).map(([id]) => this.stop(id)))
  }

  async stopAll(): Promise<void> {
    this.cancelCheckpoint?.()
    this.cancelCheckpoint = undefined
    this.starting.clear()
    await Promise.all([...this.running.keys()].map((id) => this.stop(id)))
    this.debounce.flushAll() // the resets of disabled alerts still held
    await this.coalescing
  }

  private owns(projectId: number): boolean {
    return this.deps.owns?.(projectId) ?? true
  }

  /** Stops (with their checkpoints) the alerts of projects this process no longer owns. */
  async stopUnowned(): Promise<void> {
    for (const [id, p] of this.starting) if (!this.owns(p)) this.starting.delete(id)
    await Promise.all([...this.running].filter(([, r]) => !this.owns(r.alert.project_id)).map(([id]) => this.stop(id)))
  }

  /**
   * Matches the running alerts to the catalog and to the projects this process owns (scaled
   * mode: enable/disable comes from an API in another process; partitions move).
   */
  async reconcile(): Promise<void> {
    const wanted = new Map((await this.deps.catalog.alerts.listByStatus(ALERT_LIFECYCLE.running))
      .filter((a) => this.owns(a.project_id)).map((a) => [a.id, a]))
    // One disabled through an API in another process is disabled here (its reset raised and
    // notified); one deleted, or of a project no longer owned, just stops.
    await Promise.all([...this.running.keys()].filter((id) => !wanted.has(id)).map(async (id) => {
      const a = await this.deps.catalog.alerts.find(id)
      if (a && !ALERT_LIFECYCLE.running.includes(a.status_code) && this.owns(a.project_id)) await this.disable(a)
      else await this.stop(id)
    }))
    for (const a of wanted.values()) {
      if (this.running.has(a.id)) continue
      try {
        await this.start(a)
      } catch (err) {
        this.deps.log.error({ err, alert_id: a.id }, 'alert could not be started')
      }
    }
  }

  /** Starts every enabled alert (after a process restart), then sends what the outbox holds. */
  async resume(): Promise<void> {
    for (const a of await this.deps.catalog.alerts.listByStatus(ALERT_LIFECYCLE.running)) {
      if (!this.owns(a.project_id)) continue
      try {
        await this.start(a)
      } catch (err) {
        this.deps.log.error({ err, alert_id: a.id }, 'alert could not be resumed')
      }
    }
    await this.deps.notifier?.start()
  }

  /** Resolves when every raise and reset seen so far is stored (and handed to the notifier). */
  async settled(): Promise<void> {
    if (this.batch.length > 0) this.write()
    await this.writing
  }

  /**
   * Writes checkpoints of alerts that saw observations since their last write, at most
   * `limit` per call, the longest waiting first (a Set iterates in insertion order): with
   * 10,000 busy alerts a tick stays a short transaction, and each checkpoint is at most
   * 10,000 / limit ticks old. Correctness does not depend on it (the evaluator skips what a
   * replay gives it twice); it only bounds how much a restart reads back.
   */
  async checkpoint(limit = Infinity): Promise<void> {
    const states: { alertId: number; state: string }[] = []
    for (const id of this.dirty) {
      if (states.length >= limit) break
      this.dirty.delete(id)
      const text = this.running.get(id)?.checkpoint()
      if (text !== undefined) states.push({ alertId: id, state: text })
    }
    if (states.length > 0) await this.deps.catalog.alerts.saveStates(states)
  }

  private armCheckpoints(): void {
    if (this.cancelCheckpoint) return
    const tick = () => {
      this.checkpoint(this.deps.checkpointBatch ?? 1000).catch((err) => this.deps.log.error({ err }, 'alerts: checkpoint failed')).finally(() => {
        if (this.cancelCheckpoint) this.cancelCheckpoint = afterMs(this.clock, tick, this.deps.checkpointMs ?? 1000)
      })
    }
    this.cancelCheckpoint = afterMs(this.clock, tick, this.deps.checkpointMs ?? 1000)
  }

  private coalescing: Promise<void> = Promise.resolve()

  /** The end of an alert's window: one notification of its newest event, with the count it covers. */
  private sendCoalesced(c: Coalesced): void {
    this.coalescing = this.coalescing.then(async () => {
      const alert = await this.deps.catalog.alerts.find(c.alertId)
      if (!alert) return // deleted meanwhile: its events went with it
      if (!notifiesWhileAcknowledged(c.event.kind) && await this.deps.catalog.alerts.ack(c.alertId)) return // acknowledged meanwhile
      const entries = await this.deps.catalog.alerts.outboxAdd(c.channels.map((channel) => ({ alert_id: c.alertId, channel, payload: alertPayload(alert, c.event, c.count) })))
      if (this.deps.notifier) await this.deps.notifier.enqueue(entries.map((o) => ({ id: o.id, alertId: o.alert_id, channel: o.channel, payload: o.payload })))
    }).catch((err) => this.deps.log.error({ err, alert_id: c.alertId, coalesced: c.count }, 'alerts: coalesced notification failed'))
  }

  private push(alertId: number, event: Transition['event'], state: string, channels: string[]): void {
    if (event.kind === 'raise') this.counters.raised++
    else this.counters.reset++
    this.batch.push({ alertId, event, state, channels })
    if (this.batch.length === 1) setImmediate(() => this.write())
  }

  /** Stores the batch in one transaction, in order after the previous one, then notifies. */
  private write(): void {
    const all = this.batch
    if (all.length === 0) return
    this.batch = []
    // Inside its alert's window an event is stored without notification, and held.
    const held = new Map<number, string[]>()
    const batch = all.map((t, i) => {
      if (t.channels.length === 0 || this.debounce.admit(t.alertId)) return t
      held.set(i, t.channels)
      return { ...t, channels: [] }
    })
    this.writing = this.writing.then(async () => {
      const stored = await this.deps.catalog.alerts.recordTransitions(batch, (alert, event) => alertPayload(alert, event))
      if (stored.length > 0) for (const fn of this.eventListeners) try { fn(stored.map((s) => s.event)) } catch { /* the listener's own fault */ }
      if (held.size > 0) {
        // recordTransitions skips deleted alerts: match stored events to transitions by alert and order.
        const byAlert = new Map<number, number[]>()
        batch.forEach((t, i) => { const l = byAlert.get(t.alertId) ?? []; l.push(i); byAlert.set(t.alertId, l) })
        const seen = new Map<number, number>()
        for (const s of stored) {
          const k = seen.get(s.event.alert_id) ?? 0
          seen.set(s.event.alert_id, k + 1)
          const channels = held.get(byAlert.get(s.event.alert_id)![k])
          if (channels) this.debounce.hold(s.event, channels)
        }
      }
      const deliveries = stored.flatMap((s) => s.outbox.map((o) => ({ id: o.id, alertId: o.alert_id, channel: o.channel, payload: o.payload })))
      if (deliveries.length > 0 && this.deps.notifier) void this.deps.notifier.enqueue(deliveries).catch((err) => this.deps.log.error({ err }, 'alerts: notification failed'))
    }).catch((err) => this.deps.log.error({ err, lost: batch.length }, 'alerts: storing raises and resets failed'))
  }
}
