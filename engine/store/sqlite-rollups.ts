// Rollups of the SQLite store (issue 14 item 3): per series and fixed, epoch-aligned bucket
// (15 minutes, 1 hour, 1 day) the count, sum, min, max, first and last value. No 1-minute
// level: for the usual 1-minute data it would be one more row written per observation (ingest
// measured at a quarter of its rate with it), and short intervals read few raw rows anyway.
// Maintained by the writer worker inside the same transaction as the raw rows (storage-first:
// a committed observation is in its rollups too), so readers never see them disagree.
//
// Maintenance recomputes, never increments: INSERT OR REPLACE may overwrite an existing
// (series, time) with another value, and a replaced minimum cannot be taken back out of a
// running min. After a batch, each touched 15-minute bucket is recomputed from its raw rows,
// the hour from the 15-minute rows, the day from the hours. Late data, overwrites and out-of-order batches take the same
// path. Per level and series, consecutive touched buckets are read with one range statement.
//
// The writer is the only one writing the file, so it remembers per series the latest time
// and the rollup rows it wrote last (the tail bucket of each level): an in-order append then
// neither reads the latest time nor the tail rows back (4 of the 8 statements per series of a
// one-value-per-series batch, bench:vdp). Whatever else changes a series (late data,
// replaced ranges, deletes, a failed transaction) forgets what was remembered.
import type BetterSqlite3 from 'better-sqlite3'

const MIN = 60_000_000
/** Rollup levels in µs, ascending; each divides the next. */
export const ROLLUP_LEVELS: readonly number[] = [15 * MIN, 60 * MIN, 1440 * MIN]

export const ROLLUP_SCHEMA = `
CREATE TABLE IF NOT EXISTS rollup (
  series INTEGER NOT NULL,
  level  INTEGER NOT NULL,
  bucket INTEGER NOT NULL,
  count  INTEGER NOT NULL,
  sum    REAL,
  min    REAL NOT NULL,
  max    REAL NOT NULL,
  first  REAL NOT NULL,
  last   REAL NOT NULL,
  PRIMARY KEY (series, level, bucket)
) STRICT, WITHOUT ROWID;
`
// sum is NULL when it is NaN (+Inf plus -Inf): SQLite has no NaN.

type DB = BetterSqlite3.Database

function floorTo(t: number, l: number): number {
  let k = Math.floor(t / l)
  if (k * l > t) k--
  else if ((k + 1) * l <= t) k++
  return k * l
}

interface Acc { n: number; sum: number; min: number; max: number; first: number; last: number }

/** What the writer knows of a series without reading: latest time (undefined: no rows) and tail rows. */
interface Known { latest: number | undefined; tail: Array<{ bucket: number; row: [number, number | null, number, number, number, number] } | undefined> }

/** The aggregate of the rows from `i` on (ascending times) in the bucket of times[i], and where the next bucket starts. */
function foldBucket(times: ArrayLike<number>, values: ArrayLike<number>, i: number, level: number): { b: number; acc: Acc; next: number } {
  const b = floorTo(times[i], level)
  const acc: Acc = { n: 0, sum: 0, min: Infinity, max: -Infinity, first: values[i], last: values[i] }
  for (; i < times.length && times[i] < b + level; i++) {
    const v = values[i]
    acc.n++
    acc.sum += v
    if (v < acc.min) acc.min = v
    if (v > acc.max) acc.max = v
    acc.last = v
  }
  return { b, acc, next: i }
}

/** Raw rows of a stretch as columns, ascending times. */
interface Columns { times: ArrayLike<number>; values: ArrayLike<number> }

/** The first index of ascending `a` whose value is >= x. */
function lowerBound(a: Float64Array, x: number): number {
  let lo = 0
  let hi = a.length
  while (lo < hi) {
    const mid = (lo + hi) >>> 1
    if (a[mid] < x) lo = mid + 1
    else hi = mid
  }
  return lo
}

function joined(parts: ArrayLike<number>[]): Float64Array {
  const out = new Float64Array(parts.reduce((n, p) => n + p.length, 0))
  let at = 0
  for (const p of parts) { out.set(p, at); at += p.length }
  return out
}

/** Series remembered at most (~100 bytes each); past it the memory starts over. */
const MAX_KNOWN = 200_000

export class RollupMaintainer {
  private readonly raw: BetterSqlite3.Statement
  private readonly lower: BetterSqlite3.Statement
  private readonly put: BetterSqlite3.Statement
  private readonly drop: BetterSqlite3.Statement
  private readonly dropRange: BetterSqlite3.Statement
  private readonly one: BetterSqlite3.Statement
  private readonly lastTime: BetterSqlite3.Statement
  private readonly known = new Map<number, Known>()

  constructor (db: DB) {
    db.exec(ROLLUP_SCHEMA)
    this.raw = db.prepare('SELECT time, value FROM obs WHERE series = ? AND time >= ? AND time < ? ORDER BY time').raw()
    this.lower = db.prepare('SELECT bucket, count, sum, min, max, first, last FROM rollup WHERE series = ? AND level = ? AND bucket >= ? AND bucket < ? ORDER BY bucket').raw()
    this.put = db.prepare('INSERT OR REPLACE INTO rollup (series, level, bucket, count, sum, min, max, first, last) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)')
    this.drop = db.prepare('DELETE FROM rollup WHERE series = ?')
    this.dropRange = db.prepare('DELETE FROM rollup WHERE series = ? AND level = ? AND bucket >= ? AND bucket < ?')
    this.one = db.prepare('SELECT count, sum, min, max, first, last FROM rollup WHERE series = ? AND level = ? AND bucket = ?').raw()
    this.lastTime = db.prepare('SELECT time FROM obs WHERE series = ? ORDER BY time DESC LIMIT 1').pluck()
  }

  /** The series' latest stored time; taken before a batch is inserted to choose the path. */
  latest(series: number): number | undefined {
    const k = this.known.get(series)
    if (k) return k.latest
    return this.lastTime.get(series) as number | undefined
  }

  /** Forget what is remembered of a series (its rows change other than by apply()). */
  forget(series: number): void {
    this.known.delete(series)
  }

  /** Forget everything (a transaction rolled back). */
  forgetAll(): void {
    this.known.clear()
  }

  /**
   * After inserting rows of `series` (times ascending and distinct, the values that won:
   * sqlite-batch.ts seriesRuns): when all of them lie after `before` (the latest time stored
   * until then; the usual in-order ingest), each touched rollup row is merged with the new
   * rows' aggregates (no read-back of raw rows); otherwise (late data, overwrites) the
   * touched buckets are recomputed.
   */
  apply(series: number, before: number | undefined, times: Float64Array, values: Float64Array): void {
    if (times.length === 0) return
    if (before !== undefined && times[0] <= before) { this.update(series, times); return }
    let known = this.known.get(series)
    if (!known) {
      if (this.known.size >= MAX_KNOWN) this.known.clear()
      this.known.set(series, known = { latest: before, tail: [] })
    }
    for (let li = 0; li < ROLLUP_LEVELS.length; li++) {
      const level = ROLLUP_LEVELS[li]
      for (let i = 0; i < times.length;) {
        const { b, acc, next } = foldBucket(times, values, i, level)
        i = next
        // A bucket that starts after the latest stored time has no row yet: nothing to read.
        const tail = known.tail[li]
        const old = before !== undefined && b <= before
          ? (tail?.bucket === b ? tail.row : this.one.get(series, level, b) as [number, number | null, number, number, number, number] | undefined)
          : undefined
        if (old) {
          acc.n += old[0]
          acc.sum = (old[1] ?? NaN) + acc.sum
          if (old[2] < acc.min) acc.min = old[2]
          if (old[3] > acc.max) acc.max = old[3]
          acc.first = old[4]
        }
        const sum = Number.isNaN(acc.sum) ? null : acc.sum
        this.put.run(series, level, b, acc.n, sum, acc.min, acc.max, acc.first, acc.last)
        if (tail) { tail.bucket = b; const r = tail.row; r[0] = acc.n; r[1] = sum; r[2] = acc.min; r[3] = acc.max; r[4] = acc.first; r[5] = acc.last } else known.tail[li] = { bucket: b, row: [acc.n, sum, acc.min, acc.max, acc.first, acc.last] }
      }
    }
    known.latest = times[times.length - 1]
  }

  deleteSeries(series: number): void {
    this.known.delete(series)
    this.drop.run(series)
  }

  /** Recomputes every rollup touched by rows of `series` at `times` (any order, duplicates fine). */
  update(series: number, times: ArrayLike<number>): void {
    this.recomputeTouched(series, times, [], (from, to) => this.rawColumns(series, from, to))
  }

  /**
   * After [start, end) of `series` was replaced (sqlite-writer.ts): the rows it holds there
   * are now `times`/`values` (ascending, distinct), `gone` the times it held there before.
   * Recomputes the buckets of both; raw rows inside the range are taken from the arrays, not
   * read back (a replay's page: half of the replacement's time was that read).
   */
  replaced(series: number, start: number, end: number, gone: ArrayLike<number>, times: Float64Array, values: Float64Array): void {
    const none: Columns = { times: [], values: [] }
    this.recomputeTouched(series, gone, times, (from, to) => {
      const lo = lowerBound(times, Math.max(from, start))
      const hi = Math.max(lo, lowerBound(times, Math.min(to, end)))
      const inside = { times: times.subarray(lo, hi), values: values.subarray(lo, hi) }
      const before = from < start ? this.rawColumns(series, from, Math.min(to, start)) : none
      const after = to > end ? this.rawColumns(series, Math.max(from, end), to) : none
      if (before.times.length === 0 && after.times.length === 0) return inside
      return { times: joined([before.times, inside.times, after.times]), values: joined([before.values, inside.values, after.values]) }
    })
  }

  private rawColumns(series: number, from: number, to: number): Columns {
    const rows = this.raw.all(series, from, to) as Array<[number, number]>
    const times = new Array<number>(rows.length)
    const values = new Array<number>(rows.length)
    for (let i = 0; i < rows.length; i++) { times[i] = rows[i][0]; values[i] = rows[i][1] }
    return { times, values }
  }

  private recomputeTouched(series: number, a: ArrayLike<number>, b: ArrayLike<number>, rawRows: (from: number, to: number) => Columns): void {
    this.known.delete(series)
    let touched = new Set<number>()
    for (const times of [a, b]) for (let i = 0; i < times.length; i++) touched.add(floorTo(times[i], ROLLUP_LEVELS[0]))
    for (let li = 0; li < ROLLUP_LEVELS.length; li++) {
      const buckets = [...touched].sort((x, y) => x - y)
      this.recompute(series, li, buckets, rawRows)
      if (li + 1 < ROLLUP_LEVELS.length) {
        const up = ROLLUP_LEVELS[li + 1]
        touched = new Set(buckets.map((x) => floorTo(x, up)))
      }
    }
  }

  /** Recomputes level `li` buckets (sorted) from the level below (raw rows for level 0). */
  private recompute(series: number, li: number, buckets: number[], rawRows: (from: number, to: number) => Columns): void {
    const level = ROLLUP_LEVELS[li]
    let i = 0
    while (i < buckets.length) {
      // A run of consecutive buckets: one range read.
      let j = i + 1
      while (j < buckets.length && buckets[j] === buckets[j - 1] + level) j++
      const from = buckets[i]
      const to = buckets[j - 1] + level
      // A bucket whose rows are all gone (a replaced range, a deleted stretch) has no row to
      // recompute from: it must not keep its old aggregate.
      this.dropRange.run(series, level, from, to)
      if (li === 0) this.foldRaw(series, level, rawRows(from, to))
      else this.foldLower(series, level, this.lower.all(series, ROLLUP_LEVELS[li - 1], from, to) as number[][])
      i = j
    }
  }

  /** Writes the level's buckets of raw rows (ascending times). */
  private foldRaw(series: number, level: number, { times, values }: Columns): void {
    for (let k = 0; k < times.length;) {
      const { b, acc, next } = foldBucket(times, values, k, level)
      k = next
      this.put.run(series, level, b, acc.n, Number.isNaN(acc.sum) ? null : acc.sum, acc.min, acc.max, acc.first, acc.last)
    }
  }

  /** Writes the level's buckets of lower rollup rows [bucket, count, sum, min, max, first, last]. */
  private foldLower(series: number, level: number, rows: number[][]): void {
    let cur = NaN
    let acc: Acc | undefined
    const emit = () => { if (acc) this.put.run(series, level, cur, acc.n, Number.isNaN(acc.sum) ? null : acc.sum, acc.min, acc.max, acc.first, acc.last) }
    for (const r of rows) {
      const b = floorTo(r[0], level)
      if (b !== cur || !acc) {
        emit()
        cur = b
        acc = { n: r[1], sum: r[2] ?? NaN, min: r[3], max: r[4], first: r[5], last: r[6] }
      } else {
        acc.n += r[1]
        acc.sum += r[2] ?? NaN
        if (r[3] < acc.min) acc.min = r[3]
        if (r[4] > acc.max) acc.max = r[4]
        acc.last = r[6]
      }
    }
    emit()
  }

  /** Builds the rollups of data written before they existed (schema upgrade). */
  rebuildAll(db: DB): void {
    const ids = db.prepare('SELECT DISTINCT series FROM obs').pluck().all() as number[]
    const times = db.prepare('SELECT time FROM obs WHERE series = ?').pluck()
    for (const s of ids) this.update(s, times.all(s) as number[])
  }
}
