// The notifier: delivers stored notifications (the durable outbox in the catalog) through the
// adapters of the port, never blocking the stream (issue 13 item 4).
//
// - Every notification is written to the outbox in the same transaction as its event
//   (catalog/alerts.ts recordTransitions), then handed to `enqueue`, which sends at once; an
//   entry leaves the outbox only when delivered. After a restart `start()` loads what is left.
// - Lanes: one per channel and destination (a webhook URL). A failure puts the lane on hold
//   with exponential back-off (base·2^failures, capped); while on hold only one probe is sent
//   when the back-off ends, and a success resumes full speed. So an endpoint down for an hour
//   is asked about every `maxBackoffMs`, and everything queued for it goes out once it is back.
// - The bounds (habit 6), per company first (issue 29: one company's flood must not drop
//   another company's notifications): at most `maxPerCompany` undelivered notifications of one
//   company, beyond which the OLDEST OF THAT COMPANY are dropped; and at most `maxEntries` in
//   all, beyond which the oldest of the company holding the most are dropped. Every drop is
//   counted in `metrics().dropped` and logged with the company, the number and the ids:
//   nothing is dropped silently.
// - At most `maxInFlight` requests per lane at once; the rest wait in memory in order.
import { afterMs, nowMs, type Clock } from '../../core/clock/clock.ts'
import type { Delivery, NotificationAdapter, NotifyLog, NotifyTarget } from './port.ts'

export interface OutboxStore {
  outboxPending(limit: number, after?: number): Promise<{ id: number; alert_id: number; channel: string; payload: string }[]>
  outboxCount(): Promise<number>
  outboxDelete(ids: readonly number[]): Promise<void>
}

export interface NotifierOptions {
  store: OutboxStore
  adapters: Record<string, NotificationAdapter>
  /** The alert's current notification target; undefined when the alert is gone. */
  targetOf: (alertId: number) => Promise<NotifyTarget | undefined>
  /** The company of an alert (its notifications share that company's bound); default: one for all. */
  companyOf?: (alertId: number) => Promise<number | undefined>
  clock: Clock
  log: NotifyLog
  /** Undelivered notifications in all (default 100,000). */
  maxEntries?: number
  /** Undelivered notifications of one company (LINTEL_ALERT_OUTBOX_PER_COMPANY, default 10,000). */
  maxPerCompany?: number
  maxInFlight?: number
  baseBackoffMs?: number
  maxBackoffMs?: number
}

interface Lane { key: string; queue: Delivery[]; inFlight: number; failures: number; holdUntil: number; timer?: () => void }

export class Notifier {
  private readonly lanes = new Map<string, Lane>()
  private pending = 0
  private readonly delivered: number[] = []
  /** Ids dropped from the outbox at a bound while their attempt was in flight, with that bound. */
  private readonly doomed = new Map<number, number>()
  private flushing = false
  private stopped = false
  /** The attempts in flight (stop() waits for them). */
  private readonly attempts = new Set<Promise<void>>()
  private readonly counters = { delivered: 0, failed_attempts: 0, dropped: 0, undeliverable: 0 }
  private readonly maxEntries: number
  private readonly maxPerCompany: number
  /** Pending ids per company, oldest first (insertion order: ids arrive increasing). */
  private readonly byCompany = new Map<number, Set<number>>()
  private readonly companyOfId = new Map<number, number>()
  /** Company of each alert seen (an alert never moves between companies). */
  private readonly alertCompany = new Map<number, number>()
  private readonly maxInFlight: number
  private readonly base: number
  private readonly cap: number

  constructor (private readonly o: NotifierOptions) {
    this.maxEntries = o.maxEntries ?? 100_000
    this.maxPerCompany = o.maxPerCompany ?? 10_000
    this.maxInFlight = o.maxInFlight ?? 16
    this.base = o.baseBackoffMs ?? 1000
    this.cap = o.maxBackoffMs ?? 30_000
  }

  /** Loads the undelivered notifications of the previous run and sends them. */
  async start(): Promise<void> {
    let after = 0
    for (;;) {
      const page = await this.o.store.outboxPending(1000, after)
      if (page.length === 0) break
      await this.enqueue(page.map((e) => ({ id: e.id, alertId: e.alert_id, channel: e.channel, payload: e.payload })))
      after = page[page.length - 1].id
    }
  }

  /** Notifications already durable in the outbox: send them (without waiting for delivery). */
  async enqueue(list: readonly Delivery[]): Promise<void> {
    const touched = new Set<number>()
    for (const d of list) {
      const target = await this.o.targetOf(d.alertId)
      if (!target) { // the alert was deleted: nothing can deliver it any more
        this.counters.undeliverable++
        this.o.log.warn({ alert_id: d.alertId, delivery: d.id }, 'alert notification not deliverable: the alert was deleted')
        this.done(d.id)
        continue
      }
      const key = d.channel === 'webhook' ? `webhook ${target.webhook?.url}` : d.channel
      let lane = this.lanes.get(key)
      if (!lane) this.lanes.set(key, lane = { key, queue: [], inFlight: 0, failures: 0, holdUntil: 0 })
      const company = await this.company(d.alertId)
      let ids = this.byCompany.get(company)
      if (!ids) this.byCompany.set(company, ids = new Set())
      ids.add(d.id)
      this.companyOfId.set(d.id, company)
      touched.add(company)
      lane.queue.push(d)
      this.pending++
      this.pump(lane)
    }
    for (const c of touched) {
      const over = (this.byCompany.get(c)?.size ?? 0) - this.maxPerCompany
      if (over > 0) await this.dropOldest(c, over, this.maxPerCompany, 'per company')
    }
    // Doomed entries (dropped while in flight) still count in `pending` until their attempt
    // ends; they are no longer the outbox's, so the bound counts without them.
    while (this.pending - this.doomed.size > this.maxEntries) {
      let largest = 0
      let size = 0
      for (const [c, ids] of this.byCompany) if (ids.size > size) { largest = c; size = ids.size }
      if (size === 0 || await this.dropOldest(largest, this.pending - this.doomed.size - this.maxEntries, this.maxEntries, 'in all') === 0) break
    }
  }

  private async company(alertId: number): Promise<number> {
    let c = this.alertCompany.get(alertId)
    if (c === undefined) {
      c = (await this.o.companyOf?.(alertId).catch(() => undefined)) ?? 0
      this.alertCompany.set(alertId, c)
    }
    return c
  }

  /** A delivery left the outbox (delivered, dropped or undeliverable): it no longer counts. */
  private forget(id: number): void {
    const c = this.companyOfId.get(id)
    if (c === undefined) return
    this.companyOfId.delete(id)
    const ids = this.byCompany.get(c)
    ids?.delete(id)
    if (ids?.size === 0) this.byCompany.delete(c)
  }

  metrics() {
    return { ...this.counters, pending: this.pending }
  }

  /**
   * Stops sending; what is undelivered stays in the outbox for the next start. Attempts in
   * flight are waited for (each is bounded by its adapter's time-out): one that delivers leaves
   * the outbox here, not after the store has been closed, and is not sent again by the next run.
   */
  async stop(): Promise<void> {
    this.stopped = true
    for (const lane of this.lanes.values()) lane.timer?.()
    await Promise.all(this.attempts)
    await this.flush()
    for (const a of Object.values(this.o.adapters)) await a.close?.()
  }

  private pump(lane: Lane): void {
    if (this.stopped) return
    const now = nowMs(this.o.clock)
    if (lane.failures > 0) {
      // On hold: one probe at a time once the back-off has passed.
      if (now < lane.holdUntil) {
        if (!lane.timer) lane.timer = afterMs(this.o.clock, () => { lane.timer = undefined; this.pump(lane) }, lane.holdUntil - now)
        return
      }
      if (lane.inFlight > 0) return
      this.send(lane)
      return
    }
    while (lane.inFlight < this.maxInFlight && lane.queue.length > 0) this.send(lane)
  }

  private send(lane: Lane): void {
    const d = lane.queue.shift()
    if (!d) return
    lane.inFlight++
    const attempt = this.attempt(d).then((ok) => {
      lane.inFlight--
      if (ok) {
        this.doomed.delete(d.id)
        this.pending--
        this.counters.delivered++
        lane.failures = 0
        this.forget(d.id)
        this.done(d.id)
      } else if (this.doomed.has(d.id)) { // dropped at the bound while in flight
        const bound = this.doomed.get(d.id)
        this.doomed.delete(d.id)
        this.pending--
        this.counters.failed_attempts++
        this.counters.dropped++
        this.o.log.warn({ dropped: 1, total_dropped: this.counters.dropped, bound, first: d.id, last: d.id }, 'alert outbox full: dropped the oldest undelivered notifications')
      } else {
        this.counters.failed_attempts++
        lane.failures++
        lane.holdUntil = nowMs(this.o.clock) + Math.min(this.cap, this.base * 2 ** Math.min(lane.failures - 1, 20))
        // Back in its place by id: the oldest goes first once the endpoint is back.
        const at = lane.queue.findIndex((q) => q.id > d.id)
        lane.queue.splice(at < 0 ? lane.queue.length : at, 0, d)
      }
      this.pump(lane)
    }).finally(() => this.attempts.delete(attempt))
    this.attempts.add(attempt)
  }

  private async attempt(d: Delivery): Promise<boolean> {
    try {
      const target = await this.o.targetOf(d.alertId)
      const adapter = this.o.adapters[d.channel]
      if (!target || !adapter) throw new Error(!target ? 'the alert was deleted' : `no adapter for channel ${d.channel}`)
      await adapter.deliver(d, target)
      return true
    } catch (err) {
      if (this.counters.failed_attempts % 100 === 0) this.o.log.warn({ err, alert_id: d.alertId, delivery: d.id, channel: d.channel }, 'alert notification failed; retried with back-off')
      return false
    }
  }

  /** Drops the `n` oldest pending notifications of `company`; returns how many were dropped. */
  private async dropOldest(company: number, n: number, bound: number, which: string): Promise<number> {
    const ids = [...(this.byCompany.get(company) ?? [])].slice(0, n)
    if (ids.length === 0) return 0
    const drop = new Set(ids)
    for (const id of ids) this.forget(id)
    await this.o.store.outboxDelete(ids)
    // Those not waiting in a lane are in flight: dropped if that attempt fails, delivered if it
    // succeeds. (Only those: a waiting one marked too would stay in `doomed` for good and
    // lift the bound in all by one.)
    const inFlight = new Set(drop)
    for (const lane of this.lanes.values()) for (const d of lane.queue) inFlight.delete(d.id)
    let removed = 0
    for (const lane of this.lanes.values()) {
      const before = lane.queue.length
      lane.queue = lane.queue.filter((d) => !drop.has(d.id))
      removed += before - lane.queue.length
    }
    for (const id of inFlight) this.doomed.set(id, bound)
    this.pending -= removed
    this.counters.dropped += removed
    this.o.log.warn({ company_id: company, dropped: removed, in_flight: ids.length - removed, total_dropped: this.counters.dropped, bound, which, first: ids[0], last: ids[ids.length - 1] },
      'alert outbox full: dropped the oldest undelivered notifications')
    return ids.length
  }

  /** Delivered ids leave the outbox in batches (one transaction per turn). */
  private done(id: number): void {
    this.delivered.push(id)
    if (!this.flushing) {
      this.flushing = true
      setImmediate(() => { void this.flush() })
    }
  }

  private async flush(): Promise<void> {
    const ids = this.delivered.splice(0)
    this.flushing = false
    if (ids.length > 0) await this.o.store.outboxDelete(ids)
  }
}
