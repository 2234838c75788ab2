// triggerOn: when a stream emits downstream (spec part 2, "Pin configuration", `trigger`:
// every_value, every_minute, every_hour; a virtual datapoint's pin emits into its calculation).
//
// - every_value: every aggregate passes through as it comes.
// - every_minute / every_hour: on each wall-clock boundary of the scheduler (whole UTC minutes
//   or hours since the epoch, from scheduler.now() in ms) the latest aggregate seen so far is
//   emitted, stamped with the boundary time in µs. Nothing is emitted before the first value.
//   An unchanged value is emitted again at every boundary: a minute trigger writes one value
//   per minute, like a sampling meter.
//
// Each boundary is scheduled from scheduler.now() (not a fixed interval) so timer drift does
// not accumulate; if the process was blocked across several boundaries only the latest missed
// boundary is emitted. Completes when the source completes (no further value can change).
import { asyncScheduler, Observable, type OperatorFunction, type SchedulerAction, type SchedulerLike } from 'rxjs'
import type { Obs, Trigger } from './types.ts'

export const TRIGGER_PERIOD_MS: Readonly<Record<Exclude<Trigger, 'every_value'>, number>> = {
  every_minute: 60_000,
  every_hour: 3_600_000,
}

export function triggerOn(trigger: Trigger, scheduler: SchedulerLike = asyncScheduler): OperatorFunction<Obs, Obs> {
  if (trigger === 'every_value') return (source) => source
  const period = TRIGGER_PERIOD_MS[trigger]
  return (source) => new Observable<Obs>((subscriber) => {
    let latest: Obs | undefined
    subscriber.add(source.subscribe({
      next: (o) => { latest = o },
      error: (err) => subscriber.error(err),
      complete: () => subscriber.complete(),
    }))
    if (subscriber.closed) return
    // The boundary a tick is for: the one it was scheduled for, or the latest one passed if
    // the tick came late (a timer never runs early, but take no chances with a drifting clock).
    let boundary = Math.floor(scheduler.now() / period) * period + period
    subscriber.add(scheduler.schedule(function (this: SchedulerAction<undefined>) {
      const now = scheduler.now()
      boundary = Math.max(boundary, Math.floor(now / period) * period)
      if (latest) subscriber.next({ time: boundary * 1000, value: latest.value })
      boundary += period
      this.schedule(undefined, Math.max(0, boundary - now))
    }, boundary - scheduler.now()))
  })
}
