// The QuestDB store's reads (questdb-store.ts).
// - Reads go straight to /exec (questdb-http.ts), never through the write queue: a
//   range read is one index scan ordered by ts; down-sampling is SAMPLE BY with FROM set to
//   the epoch-aligned bucket of the first row (so buckets are floor(t / iv) * iv, empty
//   ones dropped), or, for intervals no SAMPLE BY unit can express, GROUP BY on bucket
//   arithmetic.
import { Folder, bucketing, usableLevel } from './buckets.ts'
import type { MeanPoint, Point, RangeQuery, SampleQuery } from './port.ts'
import type { QuestdbHttp, Row } from './questdb-http.ts'
import {
  SHIFT, countSql, firstTimeSql, floorDivBig, isSeriesId, listSeriesSql, rangeSql, sampleBySql, sampleGroupBySql, samplePiecesSql, sampleStride, storedBounds,
} from './questdb-sql.ts'

/** Strides for calendar pieces, ascending; 1 µs always divides. */
const PIECE_STRIDES: Array<[number, string]> = [[1, '1U'], [1_000_000, '1s'], [60_000_000, '1m'], [900_000_000, '15m'], [3_600_000_000, '1h']]

export class QuestdbReads {
  constructor (private readonly http: QuestdbHttp, private readonly table: string) {}

  async read(series: number, q: RangeQuery): Promise<Point[]> {
    const b = storedBounds(q.start, q.end)
    if (b.empty || !isSeriesId(series)) return []
    const rows = await this.http.exec(rangeSql(this.table, series, b, q))
    const n = rows.length
    const out: Point[] = new Array(n)
    const desc = q.from === 'last'
    for (let i = 0; i < n; i++) {
      const r = rows[desc ? n - 1 - i : i]
      out[i] = { time: r[0] as number, value: r[1] as number }
    }
    return out
  }

  async count(series: number, start?: number, end?: number): Promise<number> {
    const b = storedBounds(start, end)
    if (b.empty || !isSeriesId(series)) return 0
    const [row] = await this.http.exec(countSql(this.table, series, b))
    return Number(row?.[0] ?? 0)
  }

  async sample(series: number, q: SampleQuery): Promise<MeanPoint[]> {
    const iv = q.interval
    const agg = q.aggregate ?? 'mean'
    if (typeof iv === 'number' && (!Number.isSafeInteger(iv) || iv <= 0)) throw new RangeError(`sample interval must be a positive integer of microseconds, got ${iv}`)
    const bk = bucketing(iv)
    const b = storedBounds(q.start, q.end)
    if (b.empty || !isSeriesId(series)) return []
    const [first] = await this.http.exec(firstTimeSql(this.table, series, b))
    if (!first) return []
    if (typeof iv !== 'number') return this.calendar(series, b, bk, agg, first[0] as number)
    const ivb = BigInt(iv)
    const origin = floorDivBig(BigInt(first[0] as number), ivb) * ivb
    const stride = sampleStride(iv)
    let rows: Row[]
    // first/last under SAMPLE BY .. FROM came out one bucket off for multi-day strides in
    // QuestDB 9.3.4 (property test); GROUP BY on bucket arithmetic scans in time order.
    if (stride !== undefined && origin + SHIFT >= 0n && agg !== 'first' && agg !== 'last') rows = await this.http.exec(sampleBySql(this.table, series, b, stride, origin, agg))
    else rows = await this.http.exec(sampleGroupBySql(this.table, series, b, iv, agg))
    const out: MeanPoint[] = []
    for (const r of rows) {
      // null: a mean that is not a number (cannot happen: only finite values are stored).
      if (r[1] !== null) out.push({ time: r[0] as number, mean: Number(r[1]) })
    }
    return out
  }

  /**
   * Calendar buckets: SAMPLE BY the largest fixed stride that divides every local midnight
   * in the range (1 h for whole-hour zones), then folded into calendar buckets in JS.
   */
  private async calendar(series: number, b: ReturnType<typeof storedBounds>, bk: ReturnType<typeof bucketing>, agg: NonNullable<SampleQuery['aggregate']>, first: number): Promise<MeanPoint[]> {
    const [last] = await this.http.exec(rangeSql(this.table, series, b, { from: 'last', limit: 1 }))
    const us = usableLevel(bk, PIECE_STRIDES.map(([l]) => l), first, (last[0] as number) + 1) ?? 1
    const origin = floorDivBig(BigInt(first), BigInt(us)) * BigInt(us)
    const stride = PIECE_STRIDES.find(([l]) => l === us)![1]
    const rows = await this.http.exec(samplePiecesSql(this.table, series, b, stride, origin, agg))
    const folder = new Folder(bk, agg)
    for (const r of rows) folder.add(r[0] as number, Number(r[1]), r[2] === null ? NaN : Number(r[2]))
    return folder.finish()
  }

  async listSeries(): Promise<number[]> {
    const rows = await this.http.exec(listSeriesSql(this.table))
    const ids: number[] = []
    for (const r of rows) if (r[0] !== null) ids.push(Number(r[0]))
    return ids.sort((a, b) => a - b)
  }
}
