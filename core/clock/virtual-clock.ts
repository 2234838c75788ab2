// A clock that moves only when a test moves it (clock.ts). Timers run in the order of their
// due time (equal times in the order they were set), each with now() at its due time, and
// timers set by a running timer run in the same advance when they fall due within it: moving
// a day forward fires a minute timer 1,440 times, deterministically, in no wall time.
// advance() runs the timers synchronously; settle() is the variant for runtimes whose timers
// start promise chains (a store read, a catalog write): between two timers it lets pending
// callbacks run (setImmediate, so promise jobs and I/O already due are done) so each timer
// sees the effects of the previous one, as it would in real time.
import type { Cancel, Clock } from './clock.ts'

interface Timer { at: number; seq: number; fn: () => void }

export class VirtualClock implements Clock {
  private timers: Timer[] = []
  private seq = 0

  /** `startUs`: the time the clock shows until moved (µs; default 2023-11-14T22:13:20Z). */
  constructor (private time = 1_700_000_000_000_000) {
    if (!Number.isSafeInteger(time)) throw new RangeError(`a time in integer µs is expected, got ${time}`)
  }

  now(): number { return this.time }

  at(fn: () => void, timeUs: number): Cancel {
    const timer = { at: Math.max(this.time, Math.ceil(timeUs)), seq: ++this.seq, fn }
    // Sorted insert (due time, then order of setting); tests hold few timers.
    let i = this.timers.length
    while (i > 0 && this.timers[i - 1].at > timer.at) i--
    this.timers.splice(i, 0, timer)
    return () => { const k = this.timers.indexOf(timer); if (k >= 0) this.timers.splice(k, 1) }
  }

  after(fn: () => void, delayUs: number): Cancel {
    return this.at(fn, this.time + Math.max(0, delayUs))
  }

  /** Timers set and not yet run or cancelled. */
  get pending(): number { return this.timers.length }

  /** Due time of the next timer, if any. */
  get nextAt(): number | undefined { return this.timers[0]?.at }

  /** Moves time forward by `us`, running every timer due on the way; returns how many ran. */
  advance(us: number): number {
    return this.advanceTo(this.time + us)
  }

  /** Moves time to `timeUs` (never backwards), running every timer due on the way. */
  advanceTo(timeUs: number): number {
    if (timeUs < this.time) throw new RangeError(`the clock does not go back (${timeUs} < ${this.time})`)
    let ran = 0
    for (let next = this.timers[0]; next !== undefined && next.at <= timeUs; next = this.timers[0]) {
      this.timers.shift()
      this.time = next.at
      ran++
      next.fn()
    }
    this.time = timeUs
    return ran
  }

  /** As advance(), letting pending callbacks run after each timer and at the end. */
  async settle(us: number): Promise<number> {
    const end = this.time + us
    let ran = 0
    await turn()
    for (let next = this.timers[0]; next !== undefined && next.at <= end; next = this.timers[0]) {
      this.timers.shift()
      this.time = next.at
      ran++
      next.fn()
      await turn()
    }
    this.time = end
    await turn()
    return ran
  }
}

const turn = () => new Promise<void>((resolve) => setImmediate(resolve))
