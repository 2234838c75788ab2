// The rxjs scheduler of a core/clock Clock, so the operators that take a SchedulerLike (time
// triggers, coalescing) run on the one clock: on the virtual clock in tests. The system clock
// maps to rxjs's own asyncScheduler (the same real time, and no extra closure per coalesced
// emission on the hot path that bench:vdp measures).
import { asyncScheduler, Subscription, type SchedulerAction, type SchedulerLike } from 'rxjs'
import { MICROS_PER_MS, systemClock, type Cancel, type Clock } from '../../core/clock/clock.ts'

export function schedulerOf(clock: Clock): SchedulerLike {
  return clock === systemClock ? asyncScheduler : new ClockScheduler(clock)
}

class ClockScheduler implements SchedulerLike {
  constructor (private readonly clock: Clock) {}

  /** rxjs counts in milliseconds. */
  now(): number {
    return this.clock.now() / MICROS_PER_MS
  }

  schedule<T>(work: (this: SchedulerAction<T>, state: T) => void, delay = 0, state?: T): Subscription {
    const action = new Subscription() as SchedulerAction<T>
    let cancel: Cancel | undefined
    // An action reschedules itself (trigger.ts: the next boundary); one timer at a time.
    action.schedule = (next?: T, nextDelay = 0) => {
      cancel?.()
      cancel = this.clock.after(() => { cancel = undefined; if (!action.closed) work.call(action, next as T) }, nextDelay * MICROS_PER_MS)
      return action
    }
    action.add(() => cancel?.())
    action.schedule(state, delay)
    return action
  }
}
