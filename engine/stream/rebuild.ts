// Storage-first rebuild of one window (DESIGN.md "Data flow": after a restart the engine
// rebuilds its windows from the store, so a running computation continues where it stopped).
// Reads back what a window of `range` held when the newest stored observation of the series
// before `end` (exclusive; default: the newest of all) arrived: count n → the last n; time d →
// the observations in (newest − d, newest] (one more at newest − d is harmless: the window
// drops it); cron → the open cron window; none → the newest one. Feeding the result to
// rangeWindow(range) recreates the window. The catch-up (catch-up.ts) rebuilds the windows as
// of the last stored output this way, then replays what came after.
import type { Point, RangeQuery } from '../store/port.ts'
import { CronRange } from './cron-range.ts'
import { MAX_WINDOW_SIZE } from './range-window.ts'
import type { WindowRange } from './types.ts'

/** The store read the rebuild needs (TimeseriesStore['read']). */
export type ReadSeries = (series: number, q: RangeQuery) => Promise<Point[]>

/** What a window of `range` over `series` held at its newest point before `end`, ascending; at most MAX_WINDOW_SIZE points (a window never holds more). */
export async function windowHistory(read: ReadSeries, series: number, range: WindowRange, end?: number): Promise<Point[]> {
  if (range.kind === 'count') return read(series, { end, limit: Math.min(range.n, MAX_WINDOW_SIZE), from: 'last' })
  const [newest] = await read(series, { end, limit: 1, from: 'last' })
  if (!newest || range.kind === 'none') return newest ? [newest] : []
  let start: number
  if (range.kind === 'time') {
    start = newest.time - range.us
  } else {
    const w = new CronRange(range.start, range.end).windowOf(newest.time)
    if (!w) return []
    start = w.start
  }
  return read(series, { start, end: newest.time + 1, limit: MAX_WINDOW_SIZE, from: 'last' })
}
