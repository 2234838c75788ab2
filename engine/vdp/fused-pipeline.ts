// The pipeline of a virtual datapoint whose pins all trigger on every value (the only ones a
// replay accepts, range-replay.ts), as plain function calls (issue 14 item 1). It computes
// exactly what the operator chain does (pipeline.ts, timed pins):
//
//   input → rangeWindow → aggregateWith → combinePins → (alreadyStored) → calculate
//
// but per input observation it makes no copy of the window, no aggregate object, no input
// vector and no RxJS hop between the stages: the profile of bench/vdp-engine.ts put the chain
// at ~4 µs per evaluation, most of it Subscriber hops, window copies and garbage collection.
// Live (runtime.ts) and replay (range-replay.ts) both run it through buildPipeline: one code
// path. Pins with a time trigger need the scheduler and coalescing; they keep the operators.
import { Observable } from 'rxjs'
import { isListenable } from '../stream/channel.ts'
import { aggregateWindow } from '../stream/aggregates.ts'
import { windowKeeper } from '../stream/range-window.ts'
import { type Calculator, gradient } from './calculators.ts'
import type { Aggregate, DataRange, Obs } from './types.ts'

/** One slot of the input vector: a configured pin (window + aggregate), or an absent one. */
export interface FusedPin {
  /** Undefined: the pin is not configured (absolute humidity without pressure): no values, completed. */
  input?: Observable<Obs>
  range: DataRange
  aggregate: Aggregate
  /** Whether the vector waits for this pin's first value. */
  required: boolean
}

/** Emits an output, or nothing for a time already stored (restart, replay) or a null result. */
type Step = (pin: number, o: Obs) => void

/**
 * The outputs of `calculator` over the latest aggregate of every pin (combinePins semantics:
 * a vector once every required pin has a value, stamped with the time of the value that
 * caused it; an absent pin is null).
 */
export function fusedCombine(pins: readonly FusedPin[], calculator: Calculator | (() => Calculator), stored?: (time: number) => boolean): Observable<Obs> {
  return fused(pins.map((p) => p.input), (emit) => {
    const calc = typeof calculator === 'function' ? calculator() : calculator // per subscription (a counter's total)
    const keepers = pins.map((p) => windowKeeper(p.range))
    const kinds = pins.map((p) => p.aggregate)
    const values: (number | null)[] = pins.map(() => null)
    const has = pins.map(() => false)
    let missing = pins.filter((p) => p.required && p.input).length
    return (i, o) => {
      const win = keepers[i](o)
      if (!win) return
      const value = aggregateWindow(kinds[i], win)
      if (value === null) return
      values[i] = value
      if (!has[i]) {
        has[i] = true
        if (pins[i].required) missing--
      }
      if (missing > 0) return
      const time = win[win.length - 1].time
      if (stored?.(time)) return
      const result = calc.calculate(values)
      if (result !== null && Number.isFinite(result)) emit(time, result)
    }
  })
}

/** The gradient of the last two raw observations of its one pin, stamped with the newer one's time. */
export function fusedGradient(input: Observable<Obs>, factorization: number, stored?: (time: number) => boolean): Observable<Obs> {
  return fused([input], (emit) => {
    const keep = windowKeeper({ kind: 'count', n: 2 })
    return (_i, o) => {
      const win = keep(o)
      if (!win) return
      const value = gradient(win, factorization)
      if (value === null) return
      const time = win[win.length - 1].time
      if (!stored?.(time)) emit(time, value)
    }
  })
}

/**
 * Subscribes the inputs and hands each observation to the step made for this subscription.
 * A listenable input (the live ones, stream/channel.ts) is listened to: its values reach the
 * step without a Subscriber between, and it never completes. Completes when every other
 * input has completed and none is listenable (absent ones count as completed); a step that
 * throws (a bug: calculators return null for bad data) fails the stream.
 */
function fused(inputs: readonly (Observable<Obs> | undefined)[], make: (emit: (time: number, value: number) => void) => Step): Observable<Obs> {
  return new Observable<Obs>((subscriber) => {
    const step = make((time, value) => subscriber.next({ time, value }))
    const fail = (err: unknown) => subscriber.error(err)
    // Counted before subscribing: a cold input may complete within its own subscribe().
    let open = inputs.filter((x) => x !== undefined && !isListenable(x)).length
    const hot = inputs.some((x) => x !== undefined && isListenable(x))
    inputs.forEach((input, i) => {
      if (!input) return
      const next = (o: Obs) => {
        try {
          step(i, o)
        } catch (err) {
          fail(err)
        }
      }
      if (isListenable(input)) {
        subscriber.add(input.listen(next, fail))
        return
      }
      subscriber.add(input.subscribe({
        next,
        error: fail,
        complete: () => { if (--open === 0 && !hot) subscriber.complete() },
      }))
    })
    if (open === 0 && !hot) subscriber.complete()
  })
}
