// Reads of the SQLite store on its read-only connection (design in sqlite-store.ts). Every
// statement is one range of the (series, time) primary key; down-sampling is SQL.
//
// A series with rows in the ingest tail (sqlite-schema.ts) is read as before up to the
// earliest tail time, where obs holds everything and the rollups are exact, and from there
// on from obs and the tail merged, the tail winning. Each answer reads in one snapshot.
import type Database from 'better-sqlite3'
import { Folder, ROLLUP_COLUMN, bucketing, floorDiv, usableLevel, type Bucketing } from './buckets.ts'
import { AGGREGATES, type Aggregate, type MeanPoint, type Point, type RangeQuery, type SampleQuery } from './port.ts'
import { ROLLUP_LEVELS } from './sqlite-rollups.ts'
import { TALLY_SIZE } from './sqlite-schema.ts'

export { floorDiv }

/**
 * Means of fixed intervals from rollups only from this level up: below it (1-minute rollups)
 * the rows are about as many as the raw ones, and the SQL plans fold them in C, faster.
 */
const MIN_MEAN_ROLLUP = 15 * 60_000_000

/** Open bounds. Times are integers, so these hold every storable time. */
const MIN_TIME = -(2n ** 63n)
const MAX_TIME = 2n ** 63n - 1n

/** Up to this many buckets the dense plan is cheap whatever the data (~0.6 µs a bucket). */
const SMALL_BUCKET_COUNT = 4096
/** Dense plan from this many raw rows per bucket; below it sorting the rows is cheaper. */
const DENSE_ROWS_PER_BUCKET = 3
/**
 * Density is probed on this many buckets at each end of the range rather than over all of
 * it (counting a year of 1-minute rows alone costs ~3-5 ms). Data denser or sparser in the
 * middle only makes the chosen plan slower, never the result different.
 */
const PROBE_BUCKETS = 1024

/**
 * Dense plan: walk bucket numbers k (tally rowids, ascending, so no sort) and average each
 * bucket's [lo, hi) range with one primary-key seek; an empty bucket gives NULL. Measured
 * on a year of 1-minute data at 15 minutes: ~41 ms, versus ~125 ms for GROUP BY over the
 * bucket expression, which SQLite can only do with a temp B-tree (it cannot know that
 * floor(time / iv) follows the index order). Bounds are clamped per bucket, so the scan
 * checks two conditions per row. @a/@e are the first and last+1 times found in range.
 */
export const DENSE_SAMPLE_SQL = `
SELECT (SELECT avg(value) FROM obs
         WHERE series = @s
           AND time >= max(@b0 + k.i * @iv, @a)
           AND time <  min(@b0 + (k.i + 1) * @iv, @e))
  FROM tally k WHERE k.i < @nb ORDER BY k.i`

/**
 * Sparse plan (few rows per bucket or more buckets than the tally): GROUP BY the floored
 * bucket, which sorts the rows in a temp B-tree; that sort is cheap exactly because the
 * rows are few. time % iv takes the sign of time, so ((time % iv) + iv) % iv is the
 * offset into the bucket also before 1970 (floor, not truncation).
 */
export const SPARSE_SAMPLE_SQL = `
SELECT time - ((time % @iv) + @iv) % @iv AS b, avg(value)
  FROM obs WHERE series = @s AND time >= @a AND time < @e
 GROUP BY b ORDER BY b`

export const RANGE_FIRST_SQL = 'SELECT time, value FROM obs WHERE series = ? AND time >= ? AND time < ? ORDER BY time LIMIT ?'
export const RANGE_LAST_SQL = 'SELECT time, value FROM obs WHERE series = ? AND time >= ? AND time < ? ORDER BY time DESC LIMIT ?'

type Bound = number | bigint

export class SqliteReader {
  private readonly first: Database.Statement
  private readonly last: Database.Statement
  private readonly firstTime: Database.Statement
  private readonly lastTime: Database.Statement
  private readonly countRange: Database.Statement
  private readonly probe: Database.Statement
  private readonly dense: Database.Statement
  private readonly sparse: Database.Statement
  private readonly series: Database.Statement
  private readonly rollup: Record<string, Database.Statement> = {}
  private readonly rollupIndex: Database.Statement
  private readonly rollupValue = {} as Record<Aggregate, Database.Statement>
  private readonly inSnapshot: <T>(read: () => T) => T
  private readonly tailMin: Database.Statement
  private readonly tailFirst: Database.Statement
  private readonly tailLast: Database.Statement
  private readonly tailSeries: Database.Statement
  private readonly rollupFirst: Database.Statement
  private readonly rollupLast: Database.Statement

  constructor (db: Database.Database) {
    this.first = db.prepare(RANGE_FIRST_SQL).raw()
    this.last = db.prepare(RANGE_LAST_SQL).raw()
    this.firstTime = db.prepare('SELECT time FROM obs WHERE series = ? AND time >= ? AND time < ? ORDER BY time LIMIT 1').pluck()
    this.lastTime = db.prepare('SELECT time FROM obs WHERE series = ? AND time >= ? AND time < ? ORDER BY time DESC LIMIT 1').pluck()
    this.rollupFirst = db.prepare('SELECT bucket FROM rollup WHERE series = ? AND level = ? AND bucket >= ? AND bucket < ? ORDER BY bucket LIMIT 1').pluck()
    this.rollupLast = db.prepare('SELECT bucket FROM rollup WHERE series = ? AND level = ? AND bucket >= ? AND bucket < ? ORDER BY bucket DESC LIMIT 1').pluck()
    this.countRange = db.prepare('SELECT count(*) FROM obs WHERE series = ? AND time >= ? AND time < ?').pluck()
    // Counts at most `cap` rows: enough to choose a sampling plan without a full count.
    this.probe = db.prepare('SELECT count(*) FROM (SELECT 1 FROM obs WHERE series = ? AND time >= ? AND time < ? LIMIT ?)').pluck()
    this.dense = db.prepare(DENSE_SAMPLE_SQL).pluck()
    this.sparse = db.prepare(SPARSE_SAMPLE_SQL).raw()
    for (const col of new Set(Object.values(ROLLUP_COLUMN))) {
      this.rollup[col] = db.prepare(`SELECT bucket, count, ${col} FROM rollup WHERE series = ? AND level = ? AND bucket >= ? AND bucket < ? ORDER BY bucket`).raw()
    }
    // One rollup row per bucket (interval = level): single-column reads cost less than one
    // of [bucket, count, x] rows (no array per row; 35,040 rows: ~5.5 ms CPU for one column,
    // ~16 ms for three). The bucket comes back as its index from `lo`, a small integer, and
    // is read only when some bucket is missing.
    const rollupRange = 'FROM rollup WHERE series = @s AND level = @l AND bucket >= @lo AND bucket < @hi ORDER BY bucket'
    this.rollupIndex = db.prepare(`SELECT (bucket - @lo) / @l ${rollupRange}`).pluck()
    for (const agg of AGGREGATES) {
      // sum is NULL when it is NaN (sqlite-rollups.ts): the mean is NULL then, and dropped.
      this.rollupValue[agg] = db.prepare(`SELECT ${agg === 'mean' ? 'sum / count' : ROLLUP_COLUMN[agg]} ${rollupRange}`).pluck()
    }
    // The statements of one answer see one commit (WAL: a read transaction is a snapshot).
    const snapshot = db.transaction((read: () => unknown) => read())
    this.inSnapshot = <T>(read: () => T) => snapshot.deferred(read) as T
    this.tailMin = db.prepare('SELECT min_time FROM tail_series WHERE series = ?').pluck()
    // The tail has no index (that is what makes it cheap to write): a scan of at most the
    // writer's TAIL_ROWS rows (~15 ms for 524,288). Within a time, the latest arrival (largest
    // rowid) comes first: taking the first row of each time takes the one that wins.
    this.tailFirst = db.prepare('SELECT time, value FROM obs_tail WHERE series = ? AND time >= ? AND time < ? ORDER BY time, rowid DESC LIMIT ?').raw()
    this.tailLast = db.prepare('SELECT time, value FROM obs_tail WHERE series = ? AND time >= ? AND time < ? ORDER BY time DESC, rowid DESC LIMIT ?').raw()
    this.tailSeries = db.prepare('SELECT series FROM tail_series').pluck()
    // Skip-scan over the leading key column: one seek per series, not a scan of all rows.
    this.series = db.prepare(`
      WITH RECURSIVE s(id) AS (
        SELECT (SELECT series FROM obs ORDER BY series LIMIT 1)
        UNION ALL
        SELECT (SELECT series FROM obs WHERE series > s.id ORDER BY series LIMIT 1) FROM s WHERE s.id IS NOT NULL)
      SELECT id FROM s WHERE id IS NOT NULL`).pluck()
  }

  /** The series' earliest time in the ingest tail when reads ending at `e` must merge the tail. */
  private tailFrom(series: number, e: Bound): number | undefined {
    const m = this.tailMin.get(series) as number | undefined
    return m !== undefined && e > m ? m : undefined
  }

  /**
   * The first (or, fromLast, the last) `limit` rows of [a, e) from the tail, one per time (the
   * latest arrival), in that direction; limit < 0: all. A LIMIT counts rows, not times, so a
   * limit cut short by repeated times is doubled until it holds `limit` times or every row.
   */
  private tailRows(series: number, a: Bound, e: Bound, limit: number, fromLast: boolean): Array<[number, number]> {
    const stmt = fromLast ? this.tailLast : this.tailFirst
    for (let fetch = limit; ; fetch *= 2) {
      const rows = stmt.all(series, a, e, fetch) as Array<[number, number]>
      const out: Array<[number, number]> = []
      for (const r of rows) if (out.length === 0 || out[out.length - 1][0] !== r[0]) out.push(r)
      if (limit < 0 || rows.length < fetch || out.length >= limit) return limit < 0 ? out : out.slice(0, limit)
    }
  }

  /**
   * The first (or last) `limit` rows of [a, e) from obs and the tail, a tail row replacing
   * obs's at its time; limit < 0: all. Returned in time order.
   */
  private merged(series: number, a: Bound, e: Bound, limit = -1, fromLast = false): Array<[number, number]> {
    const base = (fromLast ? this.last : this.first).all(series, a, e, limit) as Array<[number, number]>
    const tail = this.tailRows(series, a, e, limit, fromLast)
    if (tail.length === 0) return fromLast ? base.reverse() : base
    // Merge in the direction read: times ascend (first) or descend (last).
    const before = fromLast ? (x: number, y: number) => x > y : (x: number, y: number) => x < y
    const out: Array<[number, number]> = []
    let i = 0
    for (const r of tail) {
      while (i < base.length && before(base[i][0], r[0])) out.push(base[i++])
      if (i < base.length && base[i][0] === r[0]) i++
      out.push(r)
    }
    while (i < base.length) out.push(base[i++])
    if (limit >= 0 && out.length > limit) out.length = limit
    return fromLast ? out.reverse() : out
  }

  read(series: number, q: RangeQuery): Point[] {
    return this.inSnapshot(() => this.readNow(series, q))
  }

  private readNow(series: number, q: RangeQuery): Point[] {
    const limit = q.limit !== undefined && q.limit > 0 ? Math.floor(q.limit) : -1
    const a: Bound = q.start ?? MIN_TIME
    const e: Bound = q.end ?? MAX_TIME
    const fromLast = q.from === 'last'
    const tm = this.tailFrom(series, e)
    let rows: Array<[number, number]>
    if (tm === undefined) {
      rows = (fromLast ? this.last : this.first).all(series, a, e, limit) as Array<[number, number]>
      if (fromLast) rows.reverse()
    } else {
      // [a, split) from obs alone (the tail holds nothing before tm), [split, e) merged.
      const split: Bound = a > tm ? a : tm
      if (!fromLast) {
        const older = split > a ? this.first.all(series, a, split, limit) as Array<[number, number]> : []
        const need = limit < 0 ? -1 : limit - older.length
        rows = need === 0 ? older : older.concat(this.merged(series, split, e, need))
      } else {
        const newer = this.merged(series, split, e, limit, true)
        const need = limit < 0 ? -1 : limit - newer.length
        const older = need !== 0 && split > a ? (this.last.all(series, a, split, need) as Array<[number, number]>).reverse() : []
        rows = older.concat(newer)
      }
    }
    const out: Point[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) out[i] = { time: rows[i][0], value: rows[i][1] }
    return out
  }

  count(series: number, start?: number, end?: number): number {
    return this.inSnapshot(() => {
      const a: Bound = start ?? MIN_TIME
      const e: Bound = end ?? MAX_TIME
      const tm = this.tailFrom(series, e)
      if (tm === undefined) return this.countRange.get(series, a, e) as number
      const split: Bound = a > tm ? a : tm
      return (split > a ? this.countRange.get(series, a, split) as number : 0) + this.merged(series, split, e).length
    })
  }

  listSeries(): number[] {
    return this.inSnapshot(() => {
      const ids = new Set(this.series.all() as number[])
      for (const s of this.tailSeries.all() as number[]) ids.add(s)
      return [...ids].sort((x, y) => x - y)
    })
  }

  /** Whether both ends of the range hold >= DENSE_ROWS_PER_BUCKET rows per bucket. */
  private isDense(series: number, k0: number, nb: number, iv: number, a: number, e: number): boolean {
    const need = DENSE_ROWS_PER_BUCKET * PROBE_BUCKETS
    return this.probe.get(series, a, (k0 + PROBE_BUCKETS) * iv, need) as number >= need &&
      this.probe.get(series, (k0 + nb - PROBE_BUCKETS) * iv, e, need) as number >= need
  }

  sample(series: number, q: SampleQuery): MeanPoint[] {
    return this.inSnapshot(() => this.sampleNow(series, q))
  }

  private sampleNow(series: number, q: SampleQuery): MeanPoint[] {
    const iv = q.interval
    if (typeof iv === 'number' && (!Number.isSafeInteger(iv) || iv <= 0)) throw new RangeError(`sample interval must be a positive integer of microseconds, got ${iv}`)
    const b = bucketing(iv)
    const agg = q.aggregate ?? 'mean'
    const a: Bound = q.start ?? MIN_TIME
    const e: Bound = q.end ?? MAX_TIME
    const tm = this.tailFrom(series, e)
    if (tm !== undefined) {
      // Buckets before the one holding the earliest tail time are read as usual (obs and
      // rollups are complete there); the rest is folded from the merged raw rows.
      const from = b.floor(tm)
      const startsLater = q.start !== undefined && q.start >= from
      const older = startsLater ? [] : this.sampleNow(series, { ...q, end: q.end === undefined ? from : Math.min(q.end, from) })
      const recent = new Folder(b, agg)
      recent.addRows(this.merged(series, startsLater ? q.start! : from, e))
      return older.concat(recent.finish())
    }
    let first = this.firstTime.get(series, a, e) as number | undefined
    let last = first === undefined ? undefined : this.lastTime.get(series, a, e) as number
    // After a raw retention step (sqlite-trim.ts) the rollups reach back before the raw rows:
    // their buckets are data too. Elsewhere a rollup bucket starts at most in the first row's.
    for (const level of ROLLUP_LEVELS) {
      const bucket = this.rollupFirst.get(series, level, a, e) as number | undefined
      if (bucket === undefined || (first !== undefined && bucket >= floorDiv(first, level) * level)) continue
      first = bucket
      // Within the query: rows after its end (a tail's newer rows, sampleNow above) are not its to read.
      last ??= Math.min((this.rollupLast.get(series, level, a, e) as number) + level - 1, Number(e) - 1)
    }
    if (first === undefined || last === undefined) return []
    if (typeof iv === 'number' && agg === 'mean') {
      const level = usableLevel(b, ROLLUP_LEVELS, first, last + 1)
      if (level === undefined || level < MIN_MEAN_ROLLUP) return this.sampleMeans(series, iv, first, last)
    }
    return this.fold(series, b, agg, first, last + 1, q.start, q.end)
  }

  /**
   * Any aggregate by folding pieces (buckets.ts): whole rollup buckets of the largest level
   * that fits the bucket boundaries, and raw rows for the partial rollup buckets at the ends
   * of [a, e) (a rollup bucket cut by the range cannot be used).
   *
   * [a, e) is the data (first time, last time + 1) and [start, end) the query: a rollup
   * bucket is used when it lies inside the query range, wherever its data starts. So which
   * buckets come from rollups depends only on the bucket and the query bounds, and a read
   * split at a bucket boundary (sqlite-read-pool.ts) gives each bucket exactly as a whole read.
   */
  private fold(series: number, b: Bucketing, agg: Aggregate, a: number, e: number, start?: number, end?: number): MeanPoint[] {
    const folder = new Folder(b, agg)
    const raw = (from: number, to: number) => { if (from < to) folder.addRows(this.first.all(series, from, to, -1) as Array<[number, number]>) }
    const level = usableLevel(b, ROLLUP_LEVELS, a, e)
    const lo = level === undefined ? e : Math.max(floorDiv(a, level), start === undefined ? -Infinity : -floorDiv(-start, level)) * level
    const hi = level === undefined ? e : Math.min(floorDiv(e - 1, level) + 1, end === undefined ? Infinity : floorDiv(end, level)) * level
    if (level === undefined || lo >= hi) {
      raw(a, e)
      return folder.finish()
    }
    raw(a, lo)
    if (b.fixed !== level) {
      const rows = this.rollup[ROLLUP_COLUMN[agg]].all(series, level, lo, hi) as Array<[number, number, number | null]>
      for (const r of rows) folder.add(r[0], r[1], r[2] ?? NaN)
      raw(hi, e)
      return folder.finish()
    }
    // One rollup row per bucket (interval = level): no folding; the raw edges [a, lo) and
    // [hi, e) are buckets of their own, since lo and hi are bucket boundaries.
    const out = folder.finish()
    const at = { s: series, l: level, lo, hi }
    const values = this.rollupValue[agg].all(at) as Array<number | null>
    // Every bucket of [lo, hi) present (regular data): the i-th row is bucket lo + i * level,
    // and the bucket column need not be read at all.
    const index = values.length === (hi - lo) / level ? undefined : this.rollupIndex.all(at) as number[]
    for (let i = 0; i < values.length; i++) {
      const v = values[i]
      if (v !== null) out.push({ time: lo + (index ? index[i] : i) * level, mean: v })
    }
    const tail = new Folder(b, agg)
    if (hi < e) tail.addRows(this.first.all(series, hi, e, -1) as Array<[number, number]>)
    for (const p of tail.finish()) out.push(p)
    return out
  }

  /** Means of fixed intervals straight from the raw rows in SQL (dense or sparse plan). */
  private sampleMeans(series: number, iv: number, first: number, last: number): MeanPoint[] {
    const k0 = floorDiv(first, iv)
    const nb = floorDiv(last, iv) - k0 + 1
    const b0 = k0 * iv
    const dense = nb <= TALLY_SIZE && (nb <= SMALL_BUCKET_COUNT || this.isDense(series, k0, nb, iv, first, last + 1))
    const out: MeanPoint[] = []
    if (dense) {
      const means = this.dense.all({ s: series, b0: BigInt(b0), iv: BigInt(iv), nb, a: first, e: last + 1 }) as Array<number | null>
      for (let i = 0; i < means.length; i++) {
        const m = means[i]
        // NULL: an empty bucket, or a mean that is not a number (only +Inf with -Inf).
        if (m !== null) out.push({ time: b0 + i * iv, mean: m })
      }
    } else {
      const rows = this.sparse.all({ s: series, iv: BigInt(iv), a: first, e: last + 1 }) as Array<[number, number | null]>
      for (const [time, mean] of rows) if (mean !== null) out.push({ time, mean })
    }
    return out
  }
}
