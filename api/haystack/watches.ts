// The watches of Haystack's watchSub / watchPoll / watchUnsub ops (project-haystack.org/doc/
// Ops#watchSub) in one API process: which points each watch holds, the latest value heard per
// point (curVal), which changed since the last poll, and the lease after which an unpolled
// watch closes itself. Fed by the same stream as the live WebSocket (engine/live/feed.ts:
// stored observations only, in order per datapoint); in scaled mode the feed subscribes to a
// project's channel while a watch of it is open (watchProject / unwatchProject).
//   - a watch belongs to the login that opened it: another user's watch id is unknown;
//   - the lease counts from the last watchSub or watchPoll; it is clamped to [MIN, MAX] and the
//     granted lease is what the answer says (the standard lets the server choose);
//   - a late observation (older than the value held) does not replace curVal;
//   - memory is bounded: watches per process and per user, points per watch.
// Timers run on core/clock, so tests drive leases with the virtual clock.
import { randomBytes } from 'node:crypto'
import type { Cancel, Clock } from '../../core/clock/clock.ts'
import { InvalidInputError, TooLargeError } from '../../core/errors.ts'

export interface WatchLimits {
  maxWatches: number
  maxWatchesPerUser: number
  maxPointsPerWatch: number
  /** µs */
  defaultLeaseUs: number
  minLeaseUs: number
  maxLeaseUs: number
}

export const DEFAULT_WATCH_LIMITS: WatchLimits = {
  maxWatches: 10_000, maxWatchesPerUser: 100, maxPointsPerWatch: 10_000,
  defaultLeaseUs: 60_000_000, minLeaseUs: 1_000_000, maxLeaseUs: 3_600_000_000,
}

export interface CurValue { time: number; value: number }

export interface Watch {
  readonly id: string
  readonly dis: string
  readonly owner: string
  readonly projectId: number
  leaseUs: number
  expiresAt: number
  /** series → the point's ref id (the datapoint's hash id) */
  readonly points: Map<number, string>
  /** series → the latest value heard (or read from the store at watchSub) */
  readonly values: Map<number, CurValue>
  /** series changed since the last poll */
  readonly changed: Set<number>
  /** The feed was interrupted since the last poll (values may be missing): the next poll re-reads all. */
  stale: boolean
}

export interface WatchFeed { watch(projectId: number): Promise<void>; unwatch(projectId: number): void }

export class WatchRegistry {
  readonly limits: WatchLimits
  private readonly watches = new Map<string, Watch>()
  private readonly timers = new Map<string, Cancel>()
  /** series → the watches holding it (the observation routing) */
  private readonly bySeries = new Map<number, Set<Watch>>()
  private readonly perProject = new Map<number, number>()

  constructor (private readonly clock: Clock, limits: Partial<WatchLimits> = {}, private readonly feed?: WatchFeed) {
    this.limits = { ...DEFAULT_WATCH_LIMITS, ...limits }
  }

  get size(): number { return this.watches.size }

  /** The lease a request asks for (µs, or undefined for the default), clamped to the limits. */
  lease(askedUs: number | undefined): number {
    if (askedUs === undefined) return this.limits.defaultLeaseUs
    if (!Number.isFinite(askedUs) || askedUs <= 0) throw new InvalidInputError('watchSub: lease must be a positive duration, e.g. 1min')
    return Math.min(this.limits.maxLeaseUs, Math.max(this.limits.minLeaseUs, Math.round(askedUs)))
  }

  async open(owner: string, projectId: number, dis: string, leaseUs: number): Promise<Watch> {
    if (this.watches.size >= this.limits.maxWatches) throw new TooLargeError(`watchSub: this server holds ${this.limits.maxWatches} watches, its limit; close unused watches (watchUnsub with close)`)
    let mine = 0
    for (const w of this.watches.values()) if (w.owner === owner) mine++
    if (mine >= this.limits.maxWatchesPerUser) throw new TooLargeError(`watchSub: you have ${mine} open watches, the limit per user; close unused watches (watchUnsub with close)`)
    const w: Watch = {
      id: `w-${randomBytes(12).toString('base64url')}`, dis, owner, projectId, leaseUs, expiresAt: 0,
      points: new Map(), values: new Map(), changed: new Set(), stale: false,
    }
    this.watches.set(w.id, w)
    const n = this.perProject.get(projectId) ?? 0
    this.perProject.set(projectId, n + 1)
    if (n === 0 && this.feed) await this.feed.watch(projectId)
    this.touch(w)
    return w
  }

  /** The watch, if it is open and the caller's, in the project; undefined otherwise. */
  find(owner: string, projectId: number, id: string): Watch | undefined {
    const w = this.watches.get(id)
    return w && w.owner === owner && w.projectId === projectId ? w : undefined
  }

  /** Renews the lease (every watchSub and watchPoll does), optionally with a new length. */
  touch(w: Watch, leaseUs = w.leaseUs): void {
    w.leaseUs = leaseUs
    w.expiresAt = this.clock.now() + leaseUs
    this.timers.get(w.id)?.()
    this.timers.set(w.id, this.clock.at(() => this.close(w), w.expiresAt))
  }

  /** Adds points with their current values (a point already held keeps its state). */
  add(w: Watch, points: readonly { series: number; ref: string; cur?: CurValue }[]): void {
    const fresh = points.filter((p) => !w.points.has(p.series))
    if (w.points.size + new Set(fresh.map((p) => p.series)).size > this.limits.maxPointsPerWatch) {
      throw new TooLargeError(`watchSub: a watch holds at most ${this.limits.maxPointsPerWatch} points; this one holds ${w.points.size}`)
    }
    for (const p of fresh) {
      w.points.set(p.series, p.ref)
      if (p.cur) this.heard(w, p.series, p.cur, false)
      let set = this.bySeries.get(p.series)
      if (!set) this.bySeries.set(p.series, set = new Set())
      set.add(w)
    }
  }

  /** A value read from the store for a point already added: kept unless a newer one was heard. */
  seed(w: Watch, series: number, cur: CurValue): void {
    if (w.points.has(series)) this.heard(w, series, cur, false)
  }

  remove(w: Watch, series: Iterable<number>): void {
    for (const s of series) {
      if (!w.points.delete(s)) continue
      w.values.delete(s)
      w.changed.delete(s)
      const set = this.bySeries.get(s)
      set?.delete(w)
      if (set?.size === 0) this.bySeries.delete(s)
    }
  }

  close(w: Watch): void {
    if (!this.watches.delete(w.id)) return
    this.timers.get(w.id)?.()
    this.timers.delete(w.id)
    this.remove(w, [...w.points.keys()])
    const n = (this.perProject.get(w.projectId) ?? 1) - 1
    if (n > 0) this.perProject.set(w.projectId, n)
    else {
      this.perProject.delete(w.projectId)
      this.feed?.unwatch(w.projectId)
    }
  }

  /** Stored observations from the live feed: marks the watched points changed. */
  observe(batch: readonly { series: number; time: number; value: number }[]): void {
    if (this.bySeries.size === 0) return
    for (const o of batch) {
      const set = this.bySeries.get(o.series)
      if (set) for (const w of set) this.heard(w, o.series, o, true)
    }
  }

  /** What a poll answers: the points changed since the last poll (all with `refresh`); clears them. */
  poll(w: Watch, refresh: boolean): { series: number; ref: string; cur: CurValue | undefined }[] {
    const which = refresh ? [...w.points.keys()] : [...w.changed]
    w.changed.clear()
    return which.map((series) => ({ series, ref: w.points.get(series)!, cur: w.values.get(series) }))
  }

  /** The feed may have lost observations (scaled: Redis reconnected): every watch re-reads at its next poll. */
  interrupted(): void {
    for (const w of this.watches.values()) w.stale = true
  }

  /** Closes every watch (the process stops). */
  stop(): void {
    for (const w of [...this.watches.values()]) this.close(w)
  }

  private heard(w: Watch, series: number, o: CurValue, change: boolean): void {
    const had = w.values.get(series)
    if (had && had.time > o.time) return
    w.values.set(series, { time: o.time, value: o.value })
    if (change) w.changed.add(series)
  }
}
