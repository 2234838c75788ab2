// The one clock of the program (DESIGN.md: core/ holds the clock and schedules, used by engine
// and edge alike). Time is integer microseconds since the Unix epoch, as everywhere inside the
// program. Code that reads the time or waits for it takes a Clock instead of calling
// Date.now() or setTimeout, so a test drives it with the VirtualClock (virtual-clock.ts)
// instead of sleeping, and production passes systemClock.
export const MICROS_PER_MS = 1_000
export const SECOND_US = 1_000_000
export const MINUTE_US = 60 * SECOND_US
export const HOUR_US = 60 * MINUTE_US
export const DAY_US = 24 * HOUR_US

/** Cancels a timer; calling it after the timer ran, or twice, does nothing. */
export type Cancel = () => void

export interface Clock {
  /** Integer microseconds since the epoch. */
  now(): number
  /**
   * Runs `fn` once when now() has reached `timeUs` (never before it; a time in the past runs
   * it on the next turn). Timers never keep the process alive: a runtime's stop() cancels them.
   */
  at(fn: () => void, timeUs: number): Cancel
  /** Runs `fn` once `delayUs` after now (negative counts as 0). */
  after(fn: () => void, delayUs: number): Cancel
}

/** Runs `fn` every `periodUs` (first after one period) until cancelled. */
export function every(clock: Clock, fn: () => void, periodUs: number): Cancel {
  if (!(periodUs > 0)) throw new RangeError(`period must be positive, got ${periodUs}`)
  let cancel: Cancel | undefined
  let stopped = false
  let next = clock.now() + periodUs
  const tick = () => {
    if (stopped) return
    // Scheduled from the due instant, not from now: a late tick does not shift later ones.
    next = Math.max(next + periodUs, clock.now())
    cancel = clock.at(tick, next)
    fn()
  }
  cancel = clock.at(tick, next)
  return () => { stopped = true; cancel?.() }
}

/** Node's timers behind the Clock; the time is Date.now() in µs. */
export const systemClock: Clock = {
  now: () => Date.now() * MICROS_PER_MS,
  at(fn, timeUs) {
    let timer: NodeJS.Timeout | undefined
    const arm = () => {
      // Node may fire a timer a millisecond before Date.now() reaches its due time: re-arm
      // then, so a caller never sees now() < timeUs inside fn (setpoint deadlines rely on it).
      const waitMs = Math.ceil((timeUs - systemClock.now()) / MICROS_PER_MS)
      if (waitMs <= 0 && timer !== undefined) { timer = undefined; fn(); return }
      timer = setTimeout(arm, Math.max(0, waitMs))
      timer.unref()
    }
    timer = setTimeout(arm, Math.max(0, Math.ceil((timeUs - systemClock.now()) / MICROS_PER_MS)))
    timer.unref()
    return () => { if (timer !== undefined) clearTimeout(timer); timer = undefined }
  },
  after(fn, delayUs) {
    return systemClock.at(fn, systemClock.now() + Math.max(0, delayUs))
  },
}

/**
 * Milliseconds of the clock, for code whose stored state and settings count in ms (alert
 * grace periods and back-offs, setpoint deadlines, document links): floor(now() / 1000).
 */
export function nowMs(clock: Clock): number {
  return Math.floor(clock.now() / MICROS_PER_MS)
}

/** A timer `ms` milliseconds from now (see nowMs). */
export function afterMs(clock: Clock, fn: () => void, ms: number): Cancel {
  return clock.after(fn, ms * MICROS_PER_MS)
}
