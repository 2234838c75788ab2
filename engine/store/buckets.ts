// Sample buckets and folding (issue 14 items 3-4), shared by both store adapters: pure, no I/O.
//
// A bucketing maps a time to the start of its bucket and steps between bucket starts. Fixed
// intervals are aligned to the epoch (DESIGN.md); calendar buckets start at local midnight of
// an IANA zone (luxon: a day is 23, 24 or 25 hours around DST switches; weeks start on Monday,
// ISO; months by the calendar).
//
// A piece is a pre-aggregate of a span that lies inside one bucket: one raw observation
// (count 1) or one rollup row. Folding pieces in time order gives the same answer as folding
// the raw observations, because every aggregate here is decomposable (count, sum, min, max,
// first, last; mean = sum / count).
import { DateTime, IANAZone } from 'luxon'
import type { Aggregate, Interval, MeanPoint } from './port.ts'

export interface Bucketing {
  /** Start of the bucket holding t. */
  floor(t: number): number
  /** Start of the bucket n buckets after (n < 0: before) the bucket starting at b. */
  add(b: number, n: number): number
  /** Fixed length in µs, or undefined for calendar buckets. */
  fixed?: number
}

/** floor(t / iv) exactly for |t| < 2^53 (the double quotient can round up to an integer). */
export function floorDiv(t: number, iv: number): number {
  let k = Math.floor(t / iv)
  if (k * iv > t) k--
  else if ((k + 1) * iv <= t) k++
  return k
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

const UNIT = { day: 'days', week: 'weeks', month: 'months' } as const

export function bucketing(iv: Interval): Bucketing {
  if (typeof iv === 'number') {
    return { fixed: iv, floor: (t) => floorDiv(t, iv) * iv, add: (b, n) => b + n * iv }
  }
  const { unit, zone } = iv
  if (!isValidZone(zone)) throw new RangeError(`unknown time zone '${zone}'`)
  // Bucket starts are whole milliseconds (midnights), so µs → ms flooring loses nothing.
  const local = (t: number) => DateTime.fromMillis(Math.floor(t / 1000), { zone })
  return {
    floor: (t) => local(t).startOf(unit).toMillis() * 1000,
    add: (b, n) => local(b).plus({ [UNIT[unit]]: n }).startOf(unit).toMillis() * 1000,
  }
}

/** One aggregate's running state: pieces are [time, count, x], x the column for the aggregate. */
type Combine = (acc: number, x: number) => number
const COMBINE: Record<Aggregate, Combine> = {
  mean: (a, x) => a + x, // x is a sum; divided by the count at the end
  sum: (a, x) => a + x,
  count: (a, x) => a + x, // x is a count
  min: (a, x) => (x < a ? x : a),
  max: (a, x) => (x > a ? x : a),
  first: (a) => a,
  last: (_a, x) => x,
}

/** Which column of a rollup row feeds each aggregate. */
export const ROLLUP_COLUMN: Record<Aggregate, 'sum' | 'count' | 'min' | 'max' | 'first' | 'last'> = {
  mean: 'sum', sum: 'sum', count: 'count', min: 'min', max: 'max', first: 'first', last: 'last',
}

/**
 * Folds pieces (flat [time, count, x] triples, ascending time, each inside one bucket) into
 * buckets. A bucket whose result is not a number (NaN: +Inf with -Inf) is dropped, as the
 * raw SQL path drops a NULL mean.
 */
export class Folder {
  readonly out: MeanPoint[] = []
  private cur = NaN
  private next = NaN
  private n = 0
  private acc = 0
  private readonly combine: Combine

  constructor (private readonly b: Bucketing, private readonly agg: Aggregate) {
    this.combine = COMBINE[agg]
  }

  add(time: number, count: number, x: number): void {
    if (count === 0) return
    if (!(time < this.next && time >= this.cur)) {
      this.flush()
      this.cur = this.b.floor(time)
      this.next = this.b.add(this.cur, 1)
      this.n = count
      this.acc = this.agg === 'count' ? count : x
      return
    }
    this.n += count
    this.acc = this.combine(this.acc, this.agg === 'count' ? count : x)
  }

  /** Raw rows as [time, value] pairs. */
  addRows(rows: ReadonlyArray<readonly [number, number]>): void {
    for (const r of rows) this.add(r[0], 1, r[1])
  }

  finish(): MeanPoint[] {
    this.flush()
    return this.out
  }

  private flush(): void {
    if (this.n === 0) return
    const v = this.agg === 'mean' ? this.acc / this.n : this.acc
    // null stands for NaN in SQLite (a sum of +Inf and -Inf).
    if (v !== null && !Number.isNaN(v)) this.out.push({ time: this.cur, mean: v })
    this.n = 0
  }
}

/**
 * The largest of `levels` (µs, ascending) dividing every bucket boundary strictly inside
 * (a, e); undefined if none. Such a level's rollup rows each lie inside one bucket.
 */
export function usableLevel(b: Bucketing, levels: readonly number[], a: number, e: number): number | undefined {
  if (b.fixed !== undefined) {
    for (let i = levels.length - 1; i >= 0; i--) if (b.fixed % levels[i] === 0) return levels[i]
    return undefined
  }
  let ok = levels.slice()
  for (let t = b.add(b.floor(a), 1); t < e && ok.length > 0; t = b.add(t, 1)) ok = ok.filter((l) => t % l === 0)
  return ok.length > 0 ? ok[ok.length - 1] : undefined
}
