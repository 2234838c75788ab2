// The scaled time-series store (DESIGN.md "Two ways to run"): QuestDB, written through ILP
// over HTTP with @questdb/nodejs-client, read through SQL on /exec. Implements the port in
// port.ts and passes the same contract suite as the SQLite store
// (test/engine/store-contract.ts, run by test/engine/questdb-store.test.ts).
//
// Design (figures: bench/store-compare.ts, npm run bench:store-compare, on the shared
// 2-core machine with QuestDB 9.3.4 on 1 worker per pool; noisy, other jobs were running):
// - Ingest, 1,000 interleaved series in 10k batches: ~160-240k rows/s (SQLite ~300-420k;
//   QuestDB fed by a bare Sender, no visibility wait, ~115-215k). The bound was the ILP
//   client's encoder (~3-4.5 µs a row, ~80% of the time; flushes and waits the rest): the
//   store now encodes its lines itself (questdb-ilp.ts, the same bytes, ~0.1-0.6 µs a row)
//   and sends them through the Sender's transport (issue 17 item 5; figures in the README).
// - A year of 1-minute data at 15-minute means: ~48-60 ms median (SQLite ~54 ms); the last
//   1,000 raw points ~1.6-1.9 ms (SQLite ~0.4 ms: in-process, no HTTP).
// - deleteSeries of a series spanning 365 day partitions ~10 s; of one spanning 3 days ~0.2 s.
// - Writes are serialized: one Sender, never used concurrently (nodejs-questdb-client#44).
//   Appends that arrive while a flush is in flight are sent together in the next flush
//   (group commit, one HTTP request = one transaction, <= rowsPerFlush rows; a larger
//   append is split over several). The next flush goes out while the previous one waits
//   to become visible. auto_flush is off: the store must know which rows a flush carried
//   (a failed flush loses its rows from the Sender's buffer; the store keeps its own copy
//   of the batch only until the promise settles, the caller retries). The Sender retries
//   network errors and 5xx for retry_timeout (10 s) and then throws: that surfaces as
//   OverloadedError (HTTP 503), a 4xx (bad data) as a plain Error.
// - deleteSeries: QuestDB has no DELETE. `UPDATE t SET series = NULL WHERE series IN (..)`
//   detaches the rows from their series (every read filters on the series id, through
//   its index key, so they vanish from read/count/sample/listSeries); it goes through the
//   write queue (ordered with appends of this process) and waits for visibility like an
//   append. Cost: the rewrite of the series column of every partition the series touches;
//   the rows stay on disk (an operator can compact with ALTER TABLE .. DROP PARTITION or a
//   copy). A series written again after its deletion starts empty.
// - Values: NaN is never stored; QuestDB also reads +-Infinity back as null, so the store
//   drops NaN and +-Infinity (counted in a warning). The SQLite store keeps +-Infinity.
// - Bounded: at most maxPendingRows observations wait (queued or not yet visible); beyond
//   that append() rejects with OverloadedError.
// The connection (questdb-connection.ts), the reads (questdb-reads.ts), the wait for
// visibility (questdb-visibility.ts) and the line encoder (questdb-ilp.ts) are modules of
// their own; this one is the write queue.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Sender } from '@questdb/nodejs-client'
import type { Logger } from 'pino'
import type { Agent } from 'undici'
import { OverloadedError } from '../../core/errors.ts'
import type { MeanPoint, Observation, Point, RangeQuery, SampleQuery, StoreObserver, TimeseriesStore, TrimBounds, TrimResult } from './port.ts'
import { openQuestdbConnection, type IlpTransport, type QuestdbStoreOptions } from './questdb-connection.ts'
import type { QuestdbHttp } from './questdb-http.ts'
import { IlpEncoder, packForQuestdb } from './questdb-ilp.ts'
import { QuestdbReads } from './questdb-reads.ts'
import {
  countBeforeSql, deleteRangeSql, deleteSeriesSql, detachBeforeSql, dropPartitionsBeforeSql, isSeriesId, oldestAttachedSql, type StoredBounds, storedBounds,
} from './questdb-sql.ts'
import { WalVisibility } from './questdb-visibility.ts'

export type { QuestdbStoreOptions } from './questdb-connection.ts'

export async function openQuestdbStore(opts: QuestdbStoreOptions): Promise<TimeseriesStore> {
  const c = await openQuestdbConnection(opts)
  return new QuestdbStore(c.table, c.http, c.sender, c.transport, c.agent, c.log, {
    maxPendingRows: opts.maxPendingRows ?? 4_000_000,
    rowsPerFlush: Math.max(1, opts.rowsPerFlush ?? 250_000),
    visibleTimeoutMs: opts.visibleTimeoutMs ?? 60_000,
  }, opts.observer)
}

interface AppendJob {
  kind: 'append'
  /** [series, time, value] triples. */
  data: Float64Array
  rows: number
  /** Rows handed to flushes so far. */
  sent: number
  failed: boolean
  resolve: () => void
  reject: (err: Error) => void
}
interface DeleteJob { kind: 'delete'; series: number[]; range?: StoredBounds; before?: bigint; resolve: () => void; reject: (err: Error) => void }
type Job = AppendJob | DeleteJob

interface Limits { maxPendingRows: number; rowsPerFlush: number; visibleTimeoutMs: number }

/** Rows encoded between two yields to the event loop (~2 ms of work; event-loop delay p50 ~1.7 ms vs ~6.5 ms at 2048, at the same rate). */
const ENCODE_SLICE = 8192

class QuestdbStore implements TimeseriesStore {
  private readonly queue: Job[] = []
  private pumping = false
  private pendingRows = 0
  private closed = false
  private idle: Array<() => void> = []
  private readonly encoder: IlpEncoder
  private readonly reads: QuestdbReads
  private readonly visibility: WalVisibility

  constructor (
    private readonly table: string,
    private readonly http: QuestdbHttp,
    private readonly sender: Sender,
    private readonly transport: IlpTransport,
    private readonly agent: Agent,
    private readonly log: Logger | undefined,
    private readonly limits: Limits,
    private readonly observer?: StoreObserver,
  ) {
    this.encoder = new IlpEncoder(table)
    this.reads = new QuestdbReads(http, table)
    this.visibility = new WalVisibility(http, table, limits.visibleTimeoutMs, () => this.settleIdle())
  }

  async append(batch: readonly Observation[]): Promise<void> {
    this.check()
    const { data, rows, dropped } = packForQuestdb(batch)
    if (dropped > 0) this.log?.warn({ dropped }, 'observations without a finite value, a storable time or an integer series not stored')
    if (rows === 0) return
    if (this.pendingRows > 0 && this.pendingRows + rows > this.limits.maxPendingRows) {
      throw new OverloadedError(`Time-series store is busy: ${this.pendingRows} observations wait to be written to QuestDB; retry later`)
    }
    this.pendingRows += rows
    try {
      await new Promise<void>((resolve, reject) => {
        this.queue.push({ kind: 'append', data, rows, sent: 0, failed: false, resolve, reject })
        this.pump()
      })
    } finally {
      this.pendingRows -= rows
    }
  }

  async read(series: number, q: RangeQuery): Promise<Point[]> {
    this.check()
    return this.reads.read(series, q)
  }

  async count(series: number, start?: number, end?: number): Promise<number> {
    this.check()
    return this.reads.count(series, start, end)
  }

  async sample(series: number, q: SampleQuery): Promise<MeanPoint[]> {
    this.check()
    return this.reads.sample(series, q)
  }

  async listSeries(): Promise<number[]> {
    this.check()
    return this.reads.listSeries()
  }

  async deleteSeries(series: readonly number[]): Promise<void> {
    this.check()
    const ids = [...new Set(series.filter(isSeriesId))]
    if (ids.length === 0) return
    await new Promise<void>((resolve, reject) => {
      this.queue.push({ kind: 'delete', series: ids, resolve, reject })
      this.pump()
    })
  }

  /** Detaches the range's rows (as deleteSeries does), then appends: both through the write queue, in order. */
  async replaceRange(series: number, start: number, end: number, points: readonly Point[]): Promise<void> {
    this.check()
    const range = storedBounds(start, end)
    if (isSeriesId(series) && !range.empty) {
      await new Promise<void>((resolve, reject) => {
        this.queue.push({ kind: 'delete', series: [series], range, resolve, reject })
        this.pump()
      })
    }
    if (points.length > 0) await this.append(points.map((p) => ({ series, time: p.time, value: p.value })))
  }

  /**
   * Retention (issue 34 item 2): QuestDB has no row delete, so the rows of the series before
   * the raw bound are detached (as deleteSeries does), 500 series per UPDATE through the write
   * queue; then the day partitions wholly before the oldest row still attached to any series
   * are dropped, which gives their disk space back (a partition shared with a project that
   * keeps its data stays). No rollups here: SAMPLE BY reads the raw rows. One call does all of
   * it (an UPDATE rewrites whole column files per partition anyway; `maxRows` is not used).
   */
  async trim(series: readonly number[], bounds: TrimBounds): Promise<TrimResult> {
    this.check()
    const ids = [...new Set(series.filter(isSeriesId))]
    const b = storedBounds(undefined, bounds.raw)
    if (ids.length === 0 || bounds.raw === undefined || b.empty || b.hi === null) return { rows: 0, more: false }
    const hi = b.hi
    let rows = 0
    for (let i = 0; i < ids.length; i += 500) {
      const part = ids.slice(i, i + 500)
      const [row] = await this.http.exec(countBeforeSql(this.table, part, hi))
      const n = Number(row?.[0] ?? 0)
      if (n === 0) continue
      rows += n
      await new Promise<void>((resolve, reject) => {
        this.queue.push({ kind: 'delete', series: part, before: hi, resolve, reject })
        this.pump()
      })
    }
    if (rows > 0) {
      const [oldest] = await this.http.exec(oldestAttachedSql(this.table))
      if (oldest !== undefined && oldest[0] !== null) {
        await this.http.exec(dropPartitionsBeforeSql(this.table, oldest[0] as number))
        await this.visibility.wait()
      }
    }
    return { rows, more: false }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Appends already accepted are written first (like the SQLite store's close).
    if (this.pumping || this.queue.length > 0 || this.visibility.waiting) {
      await new Promise<void>((resolve) => this.idle.push(resolve))
    }
    try {
      await this.sender.close()
    } catch (err) {
      this.log?.warn({ err }, 'closing the ILP sender failed')
    }
    await this.http.close()
    await this.agent.close()
  }

  private check(): void {
    if (this.closed) throw new Error('time-series store is closed')
  }

  private settleIdle(): void {
    if (this.pumping || this.queue.length > 0 || this.visibility.waiting) return
    const idle = this.idle
    this.idle = []
    for (const resolve of idle) resolve()
  }

  /** Runs the write queue, one flush or delete at a time, until it is empty. */
  private pump(): void {
    if (this.pumping) return
    this.pumping = true
    void this.drain().finally(() => {
      this.pumping = false
      if (this.queue.length > 0) this.pump()
      else this.settleIdle()
    })
  }

  private async drain(): Promise<void> {
    while (this.queue.length > 0) {
      const head = this.queue[0]
      if (head.kind === 'delete') {
        this.queue.shift()
        await this.runDelete(head)
        continue
      }
      // Group commit: the appends waiting now, up to rowsPerFlush rows, in one request.
      const parts: Array<{ job: AppendJob; from: number; to: number }> = []
      let rows = 0
      while (this.queue.length > 0 && rows < this.limits.rowsPerFlush) {
        const job = this.queue[0]
        if (job.kind !== 'append') break
        const take = Math.min(job.rows - job.sent, this.limits.rowsPerFlush - rows)
        parts.push({ job, from: job.sent, to: job.sent + take })
        job.sent += take
        rows += take
        if (job.sent < job.rows) break
        this.queue.shift()
      }
      const began = performance.now()
      try {
        await this.fill(parts)
        await this.transport.send(this.encoder.take())
      } catch (err) {
        this.encoder.reset()
        const e = this.writeError(err, rows)
        for (const { job } of parts) this.failJob(job, e)
        continue
      }
      // Durable now; resolve each append whose last rows were in this flush once visible.
      const done = parts.filter(({ job, to }) => to === job.rows && !job.failed).map(({ job }) => job)
      // Commit time: from sending until the rows are visible (what an append waits for).
      if (done.length > 0) {
        this.visibility.wait().then(() => { this.observer?.commit?.((performance.now() - began) / 1000); for (const job of done) job.resolve() }, (err: Error) => { for (const job of done) job.reject(err) })
      }
    }
  }

  /**
   * Encodes the rows of a flush (questdb-ilp.ts, ~0.1-0.3 µs a row), ENCODE_SLICE rows at a
   * time, letting other work run in between (250,000 rows would otherwise hold the event loop).
   */
  private async fill(parts: Array<{ job: AppendJob; from: number; to: number }>): Promise<void> {
    for (const { job, from, to } of parts) {
      for (let i = from; i < to; i += ENCODE_SLICE) {
        this.encoder.encode(job.data, i, Math.min(to, i + ENCODE_SLICE))
        if (i + ENCODE_SLICE < to) await yieldToLoop()
      }
    }
  }

  private failJob(job: AppendJob, err: Error): void {
    if (job.failed) return
    job.failed = true
    // Rows of a split append still queued are not sent.
    const at = this.queue.indexOf(job)
    if (at >= 0) this.queue.splice(at, 1)
    job.reject(err)
  }

  /** A failed flush: 4xx is bad data (a bug upstream), the rest means "not now". */
  private writeError(err: unknown, rows: number): Error {
    const message = err instanceof Error ? err.message : String(err)
    this.log?.error({ err, rows }, 'QuestDB write failed')
    const status = /statusCode=(\d+)/.exec(message)
    if (status && Number(status[1]) >= 400 && Number(status[1]) < 500) {
      return new Error(`QuestDB rejected a write of ${rows} observations: ${message}`, { cause: err })
    }
    return new OverloadedError(`QuestDB at ${this.http.origin} did not take a write of ${rows} observations (${message}); retry later`, { cause: err })
  }

  private async runDelete(job: DeleteJob): Promise<void> {
    try {
      // A few hundred ids per statement keeps the URL short.
      if (job.before !== undefined) await this.http.exec(detachBeforeSql(this.table, job.series, job.before))
      else if (job.range) await this.http.exec(deleteRangeSql(this.table, job.series[0], job.range))
      else {
        for (let i = 0; i < job.series.length; i += 500) {
          await this.http.exec(deleteSeriesSql(this.table, job.series.slice(i, i + 500)))
        }
      }
    } catch (err) {
      job.reject(err as Error)
      return
    }
    this.visibility.wait().then(job.resolve, job.reject)
  }
}
