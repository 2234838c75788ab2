// SQL text of the QuestDB store (design in questdb-store.ts). Pure functions, no I/O.
//
// QuestDB's /exec endpoint takes no bind parameters, so every literal is built here from
// values checked to be what they claim: series ids are safe integers (written as '123',
// a SYMBOL literal), times are safe integers turned into exact BigInt decimals, table
// names match a strict identifier pattern. Nothing else ever reaches the SQL text.
import type { Aggregate, RangeQuery } from './port.ts'

/**
 * Stored time = real time + SHIFT. QuestDB refuses designated timestamps before 1970
 * ("designated timestamp before 1970-01-01 is not allowed"), while the platform's times
 * reach back to ~1685 (|µs| <= 2^53). 400 Gregorian years (146,097 days) is the one shift
 * under which the calendar repeats exactly: a stored row reads as the real date and time
 * plus 400 years (same month, day, weekday, leap days), day partitions stay aligned to
 * real UTC midnights, and `dateadd('y', -400, ts)` gives the real time back. Real times
 * from 1570-01-01 (stored 0) onwards can be stored.
 */
export const SHIFT = 146_097n * 86_400_000_000n
/** Smallest real time the table can hold (stored 0). */
export const MIN_REAL_TIME = -Number(SHIFT)
/** Bounds at or beyond this (~year 38,500) exclude nothing storable; keeps literals in range. */
const MAX_BOUND = 2 ** 60

const TABLE_NAME = /^[a-z_][a-z0-9_]{0,126}$/

/** Checks a table name (lower case letters, digits, underscore); QuestDB names are case-insensitive. */
export function tableName(name: string): string {
  const t = name.toLowerCase()
  if (!TABLE_NAME.test(t)) throw new Error(`invalid QuestDB table name '${name}': use letters, digits and _, starting with a letter or _`)
  return t
}

/** Whether `series` can be a series id (a safe integer). */
export const isSeriesId = (series: number): boolean => Number.isSafeInteger(series)

/** The SYMBOL literal of a series id. Throws for anything but a safe integer. */
export function symbolLiteral(series: number): string {
  if (!isSeriesId(series)) throw new RangeError(`series id must be a safe integer, got ${series}`)
  return `'${series}'`
}

/**
 * The CREATE TABLE statement. One row per observation; `series` is the catalog's integer id
 * as a SYMBOL (an int key into a per-table dictionary) with a bitmap INDEX, so a series'
 * rows in a time range are found through the index of each day partition instead of by
 * scanning the rows of all series (a LONG column has no index: every read would filter all
 * series' rows of the range). PARTITION BY DAY: time ranges prune whole partitions. WAL:
 * concurrent writers, out-of-order merges, and DEDUP UPSERT KEYS(ts, series), which makes a
 * replayed or repeated batch replace rather than double (the last value of a key wins,
 * also within one transaction). CAPACITY is only the initial size of the symbol
 * dictionary; it grows beyond it. CACHE keeps the dictionary on heap for fast ILP writes.
 */
export function createTableSql(table: string): string {
  return `CREATE TABLE IF NOT EXISTS ${table} (ts TIMESTAMP, series SYMBOL CAPACITY 65536 CACHE INDEX, value DOUBLE)` +
    ' TIMESTAMP(ts) PARTITION BY DAY WAL DEDUP UPSERT KEYS(ts, series)'
}

/** A stored-time bound, or null when the bound excludes nothing / everything (see bounds()). */
type Bound = bigint | null

export interface StoredBounds {
  /** Inclusive lower bound on stored ts, or null for none. */
  lo: Bound
  /** Exclusive upper bound on stored ts, or null for none. */
  hi: Bound
  /** True when no time can satisfy the bounds. */
  empty: boolean
}

/**
 * Half-open real bounds [start, end) as bounds on the stored ts. Times are integers, so a
 * fractional bound is rounded up on both sides (t >= 10.5 <=> t >= 11; t < 30.5 <=> t < 31),
 * like the SQLite adapter's comparisons of integers with a real. NaN matches nothing.
 */
export function storedBounds(start?: number, end?: number): StoredBounds {
  if (Number.isNaN(start) || Number.isNaN(end)) return { lo: null, hi: null, empty: true }
  let lo: Bound = null
  let hi: Bound = null
  if (start !== undefined && start !== -Infinity) {
    if (start === Infinity) return { lo: null, hi: null, empty: true }
    const s = Math.ceil(start)
    if (s >= MAX_BOUND) return { lo: null, hi: null, empty: true }
    if (s > MIN_REAL_TIME) lo = BigInt(s) + SHIFT
  }
  if (end !== undefined && end !== Infinity) {
    if (end === -Infinity) return { lo: null, hi: null, empty: true }
    const e = Math.ceil(end)
    if (e <= MIN_REAL_TIME) return { lo: null, hi: null, empty: true }
    if (e < MAX_BOUND) hi = BigInt(e) + SHIFT
  }
  return { lo, hi, empty: lo !== null && hi !== null && lo >= hi }
}

/** The WHERE clause of one series and a stored range. */
export function whereSeries(series: number, b: StoredBounds): string {
  let w = `WHERE series = ${symbolLiteral(series)}`
  if (b.lo !== null) w += ` AND ts >= ${b.lo}`
  if (b.hi !== null) w += ` AND ts < ${b.hi}`
  return w
}

/** Raw points, real time and value; 'last' reads backwards (the caller reverses). */
export function rangeSql(table: string, series: number, b: StoredBounds, q: RangeQuery): string {
  const limit = q.limit !== undefined && q.limit > 0 ? Math.floor(q.limit) : 0
  const desc = q.from === 'last'
  return `SELECT ts::long - ${SHIFT} t, value FROM ${table} ${whereSeries(series, b)}` +
    ` ORDER BY ts${desc ? ' DESC' : ''}${limit > 0 ? ` LIMIT ${limit}` : ''}`
}

export function countSql(table: string, series: number, b: StoredBounds): string {
  return `SELECT count() FROM ${table} ${whereSeries(series, b)}`
}

/** Real time of the first row of a series in a stored range (one index seek). */
export function firstTimeSql(table: string, series: number, b: StoredBounds): string {
  return `SELECT ts::long - ${SHIFT} t FROM ${table} ${whereSeries(series, b)} LIMIT 1`
}

/** floor(a / b) for BigInt (BigInt division truncates toward zero). */
export function floorDivBig(a: bigint, b: bigint): bigint {
  const q = a / b
  return (a % b !== 0n && (a < 0n) !== (b < 0n)) ? q - 1n : q
}

/**
 * Epoch-aligned means by SAMPLE BY. `origin` is a real time aligned to the interval
 * (floor(t / iv) * iv) at or before the first row; SAMPLE BY .. FROM starts its buckets
 * there, so each bucket is [origin + k*iv, origin + (k+1)*iv): the epoch-aligned buckets.
 * Without FILL only buckets holding rows come out, in time order; the rows are read through
 * the series' index in time order, so no hash table and no sort are needed.
 */
export function sampleBySql(table: string, series: number, b: StoredBounds, stride: string, origin: bigint, agg: Aggregate = 'mean'): string {
  return `SELECT ts::long - ${SHIFT} t, m FROM (SELECT ts, ${AGG_SQL[agg]} m FROM ${table} ${whereSeries(series, b)}` +
    ` SAMPLE BY ${stride} FROM ${origin + SHIFT}::timestamp)`
}

/** QuestDB's aggregate function for each aggregate (first/last follow the designated timestamp). */
export const AGG_SQL: Record<Aggregate, string> = {
  mean: 'avg(value)', min: 'min(value)', max: 'max(value)', sum: 'sum(value)', first: 'first(value)', last: 'last(value)', count: 'count()',
}

/**
 * Pieces for folding calendar buckets in JS (buckets.ts): per epoch-aligned `stride` bucket
 * the row count and the column the aggregate needs (the sum for a mean).
 */
export function samplePiecesSql(table: string, series: number, b: StoredBounds, stride: string, origin: bigint, agg: Aggregate): string {
  const x = agg === 'mean' ? 'sum(value)' : AGG_SQL[agg]
  return `SELECT ts::long - ${SHIFT} t, n, x FROM (SELECT ts, count() n, ${x} x FROM ${table} ${whereSeries(series, b)}` +
    ` SAMPLE BY ${stride} FROM ${origin + SHIFT}::timestamp)`
}

const UNITS: Array<[number, string]> = [[86_400_000_000, 'd'], [3_600_000_000, 'h'], [60_000_000, 'm'], [1_000_000, 's'], [1_000, 'T'], [1, 'U']]

/**
 * SAMPLE BY's stride for an interval of `iv` µs: the count must fit a 32-bit int ("invalid
 * sample value [value=86400000000U]"), so the largest unit dividing iv is used (1 day is
 * '1d', not 86400000000U). Fixed units only (no weeks, months, years); with FROM and no
 * time zone a day is exactly 86,400 s. Undefined when no unit gives a small enough count;
 * the caller then groups by bucket arithmetic.
 */
export function sampleStride(iv: number): string | undefined {
  for (const [us, unit] of UNITS) {
    if (iv % us === 0 && iv / us <= 2_147_483_647) return `${iv / us}${unit}`
  }
  return undefined
}

/**
 * The same means by bucket arithmetic and GROUP BY (any QuestDB version): u % iv takes the
 * sign of u, so ((u % iv) + iv) % iv is the offset into the bucket also before 1970.
 * Kept as the reference the tests compare SAMPLE BY against.
 */
export function sampleGroupBySql(table: string, series: number, b: StoredBounds, iv: number, agg: Aggregate = 'mean'): string {
  const u = `(ts::long - ${SHIFT})`
  return `SELECT b, ${AGG_SQL[agg]} m FROM (SELECT ${u} - ((${u} % ${iv}) + ${iv}) % ${iv} b, value FROM ${table} ${whereSeries(series, b)})` +
    ' GROUP BY b ORDER BY b'
}

/** One row per series id that holds rows: the latest row of each symbol, found by the index. */
export function listSeriesSql(table: string): string {
  return `SELECT series FROM ${table} LATEST ON ts PARTITION BY series`
}

/**
 * Deletion: QuestDB has no DELETE. The rows of deleted series get series = NULL, which takes
 * them out of every per-series read (they no longer match any id, nor the index key of one)
 * and out of listSeries. The rows stay on disk until a partition is dropped or rewritten.
 */
export function deleteSeriesSql(table: string, series: readonly number[]): string {
  return `UPDATE ${table} SET series = NULL WHERE series IN (${series.map(symbolLiteral).join(', ')})`
}

/** Detaches the rows of one series in a stored range (replaceRange; see deleteSeriesSql). */
export function deleteRangeSql(table: string, series: number, b: StoredBounds): string {
  return `UPDATE ${table} SET series = NULL ${whereSeries(series, b)}`
}

export function walStatusSql(table: string): string {
  return `SELECT writerTxn, sequencerTxn, suspended, errorMessage FROM wal_tables() WHERE name = '${table}'`
}

export function tableInfoSql(table: string): string {
  return `SELECT walEnabled, dedup, designatedTimestamp, partitionBy FROM tables() WHERE table_name = '${table}'`
}

export function tableColumnsSql(table: string): string {
  return `SELECT "column", type, indexed, upsertKey FROM table_columns('${table}')`
}

/** Rows of several series before a stored bound (retention: what a trim detaches). */
export function countBeforeSql(table: string, series: readonly number[], hi: bigint): string {
  return `SELECT count() FROM ${table} WHERE series IN (${series.map(symbolLiteral).join(', ')}) AND ts < ${hi}`
}

/** Retention: detaches the rows of several series before a stored bound (see deleteSeriesSql). */
export function detachBeforeSql(table: string, series: readonly number[], hi: bigint): string {
  return `UPDATE ${table} SET series = NULL WHERE series IN (${series.map(symbolLiteral).join(', ')}) AND ts < ${hi}`
}

/** The real time of the oldest row still attached to a series: partitions wholly before its day hold detached rows only. */
export function oldestAttachedSql(table: string): string {
  return `SELECT ts::long - ${SHIFT} t FROM ${table} WHERE series IS NOT NULL LIMIT 1`
}

/** Drops the day partitions wholly before the day of a real time (their rows all detached: disk space returned). */
export function dropPartitionsBeforeSql(table: string, realTime: number): string {
  if (!Number.isSafeInteger(realTime)) throw new RangeError(`time must be a safe integer, got ${realTime}`)
  const day = 86_400_000_000n
  // SHIFT is whole days, so stored day boundaries are real ones.
  return `ALTER TABLE ${table} DROP PARTITION WHERE ts < ${floorDivBig(BigInt(realTime), day) * day + SHIFT}`
}
