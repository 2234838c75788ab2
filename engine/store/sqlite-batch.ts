// Moving observations to the writer worker and ordering them for insertion. Pure functions,
// no I/O (tested in test/engine/sqlite-store.test.ts).
import type { Observation } from './port.ts'

/** Observations as interleaved [series, time, value] triples, transferable to a worker. */
export interface Packed {
  data: Float64Array
  rows: number
  /** Observations left out: NaN value, or a time or series that is not a finite number. */
  dropped: number
}

/**
 * Packs a batch. Validation is upstream; this only keeps what SQLite cannot store from
 * failing the whole batch: a NaN value would bind as NULL (SQLite has no NaN), so it is
 * dropped and counted; a fractional time is floored to whole microseconds.
 */
export function pack(batch: readonly Observation[]): Packed {
  const data = new Float64Array(batch.length * 3)
  let n = 0
  for (let i = 0; i < batch.length; i++) {
    const o = batch[i]
    const v = o.value
    let t = o.time
    if (Number.isNaN(v) || !Number.isFinite(t) || !Number.isFinite(o.series)) continue
    if (!Number.isInteger(t)) t = Math.floor(t)
    data[n++] = o.series
    data[n++] = t
    data[n++] = v
  }
  const rows = n / 3
  return { data: n === data.length ? data : data.slice(0, n), rows, dropped: batch.length - rows }
}

/** pack() for the points of one series (a replaced range), without an observation object per point. */
export function packPoints(series: number, points: readonly { time: number; value: number }[]): Packed {
  const data = new Float64Array(points.length * 3)
  let n = 0
  for (let i = 0; i < points.length; i++) {
    const v = points[i].value
    let t = points[i].time
    if (Number.isNaN(v) || !Number.isFinite(t) || !Number.isFinite(series)) continue
    if (!Number.isInteger(t)) t = Math.floor(t)
    data[n++] = series
    data[n++] = t
    data[n++] = v
  }
  const rows = n / 3
  return { data: n === data.length ? data : data.slice(0, n), rows, dropped: points.length - rows }
}

/** Joins packed batches in arrival order. */
export function concat(parts: readonly Float64Array[]): Float64Array {
  if (parts.length === 1) return parts[0]
  let len = 0
  for (const p of parts) len += p.length
  const out = new Float64Array(len)
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/**
 * Row order for inserting packed rows: by series, then time. Equal (series, time) keep
 * their arrival order, so with INSERT OR REPLACE the observation sent last wins, also
 * within one batch. Interleaved batches (one value per series per instant) are grouped
 * per series with a stable counting pass, O(n); a series' rows are sorted by time only
 * when they arrived out of order.
 */
export function writeOrder(data: Float64Array): Uint32Array {
  const rows = data.length / 3
  const order = new Uint32Array(rows)
  let sorted = true
  for (let i = 1; i < rows && sorted; i++) {
    const ds = data[3 * i] - data[3 * i - 3]
    sorted = ds > 0 || (ds === 0 && data[3 * i + 1] >= data[3 * i - 2])
  }
  if (sorted) {
    for (let i = 0; i < rows; i++) order[i] = i
    return order
  }
  // Counting pass: slot per distinct series, slots visited in ascending series order.
  const slotOf = new Map<number, number>()
  const counts: number[] = []
  const slotSeries: number[] = []
  const slot = new Uint32Array(rows)
  for (let i = 0; i < rows; i++) {
    const s = data[3 * i]
    let k = slotOf.get(s)
    if (k === undefined) { k = counts.length; slotOf.set(s, k); counts.push(0); slotSeries.push(s) }
    counts[k]++
    slot[i] = k
  }
  const bySeries = slotSeries.map((_, k) => k).sort((a, b) => slotSeries[a] - slotSeries[b])
  const offset = new Uint32Array(counts.length)
  let at = 0
  for (const k of bySeries) { offset[k] = at; at += counts[k] }
  const begin = Uint32Array.from(offset)
  for (let i = 0; i < rows; i++) order[offset[slot[i]]++] = i
  // Within a series: arrival order, which usually is time order already.
  for (const k of bySeries) {
    const from = begin[k]
    const to = from + counts[k]
    let inOrder = true
    for (let j = from + 1; j < to && inOrder; j++) inOrder = data[3 * order[j] + 1] >= data[3 * order[j - 1] + 1]
    if (!inOrder) {
      const part = Array.from(order.subarray(from, to))
      part.sort((a, b) => (data[3 * a + 1] - data[3 * b + 1]) || (a - b))
      order.set(part, from)
    }
  }
  return order
}

/** One series' rows of a packed batch: times ascending and distinct, values beside them. */
export interface SeriesRun { series: number; times: Float64Array; values: Float64Array }

/**
 * The rows of packed `data` per series in write order (`order`: writeOrder(data)), each
 * series' times ascending with the last arrival of equal times winning, as INSERT OR REPLACE
 * stores them. The runs share two arrays: no allocation per row.
 */
export function seriesRuns(data: Float64Array, order: Uint32Array): SeriesRun[] {
  const times = new Float64Array(order.length)
  const values = new Float64Array(order.length)
  const runs: SeriesRun[] = []
  let n = 0
  let from = 0
  for (let k = 0; k < order.length; k++) {
    const i = 3 * order[k]
    if (k > 0 && data[i] !== data[3 * order[k - 1]]) {
      runs.push({ series: data[3 * order[k - 1]], times: times.subarray(from, n), values: values.subarray(from, n) })
      from = n
    } else if (n > from && times[n - 1] === data[i + 1]) n--
    times[n] = data[i + 1]
    values[n++] = data[i + 2]
  }
  if (order.length > 0) runs.push({ series: data[3 * order[order.length - 1]], times: times.subarray(from, n), values: values.subarray(from, n) })
  return runs
}
