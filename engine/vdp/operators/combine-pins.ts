// combinePins: the latest value of every pin as one input vector for the calculation (spec
// part 2, "Pin configuration": a pin's trigger "decides when the pin emits into the calculation
// and thus when a new value is written").
//
// Emits when any pin emits, once every required pin has a value; an optional pin without a
// value yet contributes its default (e.g. the pressure of absolute humidity). The vector's
// time is the time of the value that caused it. Completes when every pin has completed.
//
// Coalescing: pins with a time trigger (every_minute, every_hour) all emit at the same
// boundary, one after the other. Computing once per such pin would write several values for
// one timestamp, the first ones from a mix of new and previous-boundary values. Emissions of
// pins marked `coalesce` therefore only schedule one emission (delay 0 on the scheduler), which
// sees every pin that emitted at that instant. Other pins emit synchronously.
import { asyncScheduler, Observable, type SchedulerLike, type Subscription } from 'rxjs'
import type { Combined, Obs } from '../types.ts'

export interface PinSource {
  source: Observable<Obs>
  /** Whether the vector waits for this pin's first value (default true). */
  required?: boolean
  /** The value of an optional pin before its first value (default null). */
  default?: number | null
  /** Emissions of this pin are coalesced with those of the same instant (time triggers). */
  coalesce?: boolean
}

export function combinePins(pins: readonly PinSource[], scheduler: SchedulerLike = asyncScheduler): Observable<Combined> {
  return new Observable<Combined>((subscriber) => {
    const values: (number | null)[] = pins.map((p) => p.default ?? null)
    const has = pins.map(() => false)
    let missing = pins.filter((p) => p.required !== false).length
    let open = pins.length
    let pending: { time: number; action: Subscription } | undefined

    const emit = (time: number) => {
      if (missing === 0) subscriber.next({ time, values: values.slice() })
    }
    /** Emits the pending coalesced vector; `cancel` when its scheduled action has not run. */
    const flush = (cancel: boolean) => {
      if (!pending) return
      const { time, action } = pending
      pending = undefined
      subscriber.remove(action) // one action per boundary: do not keep them all
      if (cancel) action.unsubscribe()
      emit(time)
    }

    pins.forEach((pin, i) => {
      subscriber.add(pin.source.subscribe({
        next: (o) => {
          values[i] = o.value
          if (!has[i]) {
            has[i] = true
            if (pin.required !== false) missing--
          }
          if (!pin.coalesce) {
            emit(o.time)
          } else if (pending) {
            pending.time = Math.max(pending.time, o.time)
          } else {
            pending = { time: o.time, action: scheduler.schedule(() => flush(false), 0) }
            subscriber.add(pending.action)
          }
        },
        error: (err) => subscriber.error(err),
        complete: () => {
          if (--open > 0) return
          flush(true)
          subscriber.complete()
        },
      }))
    })
    if (pins.length === 0) subscriber.complete()
  })
}
