// The one place where analysis functions read the time-series store (engine/store/port.ts).
// Functions ask for bucket aggregates, never for raw rows: the store down-samples in SQL
// (DESIGN.md data flow, issue 12 item 3).
//
// Today the port offers interval means aligned to the epoch (`sample`) and raw range reads.
// `first` is therefore served by one indexed range read with limit 1 per requested time
// (a handful per day: counter readings at local midnights), not by a scan; `last` (the
// state in force at the start of a range) by one such read from the end. When the store
// gains min/max/sum/first/last/count aggregates and calendar buckets (branch `rollups`),
// only this file changes.
import type { TimeseriesStore } from '../store/port.ts'

export interface Point { time: number; value: number }

export type ReadQuery =
  /** Means over epoch-aligned buckets of `interval` µs within [start, end). */
  | { agg: 'mean'; start: number; end: number; interval: number }
  /** For each time t: the value of the first observation in [t, t + within), or undefined. */
  | { agg: 'first'; at: readonly number[]; within: number }
  /** The value of the last observation before `before`, or undefined (a state written on change). */
  | { agg: 'last'; before: number }

export async function readSeries(store: TimeseriesStore, series: number, q: { agg: 'mean'; start: number; end: number; interval: number }): Promise<Point[]>
export async function readSeries(store: TimeseriesStore, series: number, q: { agg: 'first'; at: readonly number[]; within: number }): Promise<Array<number | undefined>>
export async function readSeries(store: TimeseriesStore, series: number, q: { agg: 'last'; before: number }): Promise<number | undefined>
export async function readSeries(store: TimeseriesStore, series: number, q: ReadQuery): Promise<Point[] | Array<number | undefined> | number | undefined> {
  if (q.agg === 'mean') {
    const means = await store.sample(series, { start: q.start, end: q.end, interval: q.interval })
    return means.map((m) => ({ time: m.time, value: m.mean }))
  }
  if (q.agg === 'last') return (await store.read(series, { end: q.before, limit: 1, from: 'last' }))[0]?.value
  const out: Array<number | undefined> = []
  for (const t of q.at) {
    const [p] = await store.read(series, { start: t, end: t + q.within, limit: 1 })
    out.push(p?.value)
  }
  return out
}
