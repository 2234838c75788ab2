// A clock the test moves by hand (engine/alerts/clock.ts): timers run when advance() passes them.
import type { Clock } from '../../../engine/alerts/clock.ts'

export class ManualClock implements Clock {
  private timers: { at: number; fn: () => void; id: number }[] = []
  private seq = 0
  constructor (private t = 1_700_000_000_000) {}
  now(): number { return this.t }
  setTimer(fn: () => void, ms: number): () => void {
    const id = ++this.seq
    this.timers.push({ at: this.t + Math.max(0, ms), fn, id })
    return () => { this.timers = this.timers.filter((x) => x.id !== id) }
  }
  /** Moves time forward by ms, running due timers in order (timers they set included). */
  advance(ms: number): void {
    const end = this.t + ms
    for (;;) {
      this.timers.sort((a, b) => a.at - b.at || a.id - b.id)
      const next = this.timers[0]
      if (!next || next.at > end) break
      this.timers.shift()
      this.t = next.at
      next.fn()
    }
    this.t = end
  }
  get pending(): number { return this.timers.length }
}
