// The clock of the alert timers (STYLE.md habit 3: inject clocks, never read Date.now() deep
// inside logic). The runtime uses the real one; tests drive a manual one (test/engine/alerts).
export interface Clock {
  /** Milliseconds since the epoch. */
  now(): number
  /** Calls fn once after `ms`; the returned function cancels it. */
  setTimer(fn: () => void, ms: number): () => void
}

export const realClock: Clock = {
  now: () => Date.now(),
  setTimer: (fn, ms) => {
    const t = setTimeout(fn, Math.max(0, ms))
    t.unref()
    return () => clearTimeout(t)
  },
}
