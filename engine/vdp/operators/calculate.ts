// calculate: applies a virtual datapoint's calculator (calculators.ts) to each input vector
// from combinePins and emits {time: the vector's time, value}. A null or non-finite result
// emits nothing (spec part 2, "Formula language" rule 5: `null` emits nothing).
//
// Pass a factory for a calculator with state (the counter's total): it is called once per
// subscription, so two subscribers never share a total.
import { Observable, type OperatorFunction } from 'rxjs'
import type { Calculator } from '../calculators.ts'
import type { Combined, Obs } from '../types.ts'

export function calculate(calculator: Calculator | (() => Calculator)): OperatorFunction<Combined, Obs> {
  return (source) => new Observable<Obs>((subscriber) => {
    const calc = typeof calculator === 'function' ? calculator() : calculator
    return source.subscribe({
      next: (input) => {
        let value: number | null
        try {
          value = calc.calculate(input.values)
        } catch (err) {
          subscriber.error(err) // a bug, not bad data: calculators return null for bad data
          return
        }
        if (value !== null && Number.isFinite(value)) subscriber.next({ time: input.time, value })
      },
      error: (err) => subscriber.error(err),
      complete: () => subscriber.complete(),
    })
  })
}
