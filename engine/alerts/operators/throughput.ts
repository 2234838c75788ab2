// Throughput alerts (issue 13 item 2): raised by a timer when fewer than `min_count`
// observations of the datapoint arrived within the last `window_seconds` (e.g. "no data for
// 15 minutes"), reset as soon as data flows again (the count in the window reaches min_count).
//
// Arrival time on the injected clock counts, not event time: a device that sends old data
// late still shows it is alive. Only the arrival times of the newest min_count observations
// are kept: the count in the window reaches min_count exactly when the oldest of them lies in
// the window. One timer per alert, never moved on each observation (that would cost a timer
// operation per observation at 100,000/s): when it fires it either raises or sleeps again
// until the new deadline. A new alert, or one restarted, has a grace period of one window
// from `startedAt` before it can raise for lack of data.
import { afterMs, nowMs, type Clock } from '../../../core/clock/clock.ts'
import type { Level, ThroughputConfig } from '../config.ts'

export interface ThroughputTransition { kind: 'raise' | 'reset'; level: Level; previous_level: null; value: number; time: number }

export class ThroughputEvaluator {
  private readonly times: number[]
  private cancel: (() => void) | undefined
  private stopped = false
  level: Level | null

  constructor (
    private readonly cfg: ThroughputConfig,
    private readonly clock: Clock,
    private readonly emit: (t: ThroughputTransition) => void,
    opts: { startedAt: number; seedTimes?: number[]; level?: Level | null },
  ) {
    this.startedAt = opts.startedAt
    this.times = (opts.seedTimes ?? []).slice(-cfg.min_count)
    this.level = opts.level ?? null
  }

  private readonly startedAt: number
  private get windowMs() { return this.cfg.window_seconds * 1000 }

  /** Observations within the window ending now (up to min_count: enough to decide). */
  count(now = nowMs(this.clock)): number {
    return this.times.filter((t) => t > now - this.windowMs).length
  }

  /** Checks the state once (a restart: raise or reset at once if due) and arms the timer. */
  start(): void {
    const now = nowMs(this.clock)
    if (this.level !== null && this.count(now) >= this.cfg.min_count) this.transition('reset', now)
    else this.check()
  }

  observe(): void {
    const now = nowMs(this.clock)
    this.times.push(now)
    if (this.times.length > this.cfg.min_count) this.times.shift()
    if (this.level !== null && this.count(now) >= this.cfg.min_count) this.transition('reset', now)
    if (!this.cancel) this.arm()
  }

  stop(): void {
    this.stopped = true
    this.cancel?.()
    this.cancel = undefined
  }

  /** When the count can next fall below min_count (or the grace period ends). */
  private deadline(): number {
    const grace = this.startedAt + this.windowMs
    if (this.times.length < this.cfg.min_count) return grace
    return Math.max(grace, this.times[0] + this.windowMs)
  }

  private check(): void {
    this.cancel = undefined
    if (this.stopped) return
    const now = nowMs(this.clock)
    if (this.level === null && now >= this.deadline()) this.transition('raise', now)
    if (this.level === null) this.arm()
  }

  private arm(): void {
    if (this.stopped || this.level !== null) return
    this.cancel = afterMs(this.clock, () => this.check(), this.deadline() - nowMs(this.clock))
  }

  private transition(kind: 'raise' | 'reset', now: number): void {
    const level = kind === 'raise' ? this.cfg.level : this.level!
    this.level = kind === 'raise' ? this.cfg.level : null
    this.emit({ kind, level, previous_level: null, value: this.count(now), time: now * 1000 })
    if (kind === 'reset') this.arm()
  }
}
