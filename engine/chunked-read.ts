// A raw range read in bounded chunks (issue 9, item 8: no request blocks the event loop for
// more than ~50 ms). The store port reads one statement at a time; a read of a million
// observations in one statement holds the event loop for seconds (the SQLite adapter reads on
// the main thread) and its result in memory at once. Here the same RangeQuery is split into
// key-set pages of at most `chunk` points, one store read each, in ascending time order;
// the caller yields to the event loop between them (and streams each out).
//
// Times are integer microseconds and (series, time) is unique, so "after the last time read"
// is `start = last.time + 1`. A query for the LAST `limit` points before `end` (from 'last')
// is first walked backwards in chunks to find the time of its first point, then read forwards
// like any range: twice the reads, but never more than `chunk` points at once.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Point, RangeQuery, TimeseriesStore } from './store/port.ts'

export const READ_CHUNK = 2_000

export async function* readInChunks(store: TimeseriesStore, series: number, q: RangeQuery, chunk = READ_CHUNK): AsyncGenerator<Point[]> {
  const limit = q.limit !== undefined && q.limit > 0 ? Math.floor(q.limit) : Infinity
  let start = q.start
  if (q.from === 'last' && limit !== Infinity) {
    if (limit <= chunk) {
      yield await store.read(series, q)
      return
    }
    // Walk back to the first of the last `limit` points.
    let end = q.end
    let left = limit
    let first: number | undefined
    for (;;) {
      const want = Math.min(chunk, left)
      const back = await store.read(series, { start: q.start, end, limit: want, from: 'last' })
      if (back.length === 0) break
      first = back[0].time
      left -= back.length
      if (left === 0 || back.length < want) break
      end = first
      await yieldToLoop()
    }
    if (first === undefined) { yield []; return }
    start = first
  }
  let left = limit
  for (;;) {
    const want = Math.min(chunk, left)
    const points = await store.read(series, { start, end: q.end, limit: want, from: 'first' })
    left -= points.length
    const more = points.length === want && left > 0
    yield points
    if (!more) return
    start = points[points.length - 1].time + 1
    await yieldToLoop()
  }
}
