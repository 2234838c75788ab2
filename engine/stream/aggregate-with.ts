// aggregateWith: an aggregate (spec part 2, aggregation table) over each window from
// rangeWindow. Emits {time: newest time in the window, value: aggregate}; an empty window has
// no aggregate and emits nothing.
import { Observable, type OperatorFunction } from 'rxjs'
import { aggregateWindow } from './aggregates.ts'
import type { Aggregate, Obs } from './types.ts'

export function aggregateWith(kind: Aggregate): OperatorFunction<readonly Obs[], Obs> {
  return (source) => new Observable<Obs>((subscriber) => source.subscribe({
    next: (window) => {
      const value = aggregateWindow(kind, window)
      if (value !== null) subscriber.next({ time: window[window.length - 1].time, value })
    },
    error: (err) => subscriber.error(err),
    complete: () => subscriber.complete(),
  }))
}
