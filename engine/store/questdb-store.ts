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
// - Table (questdb-sql.ts createTableSql): ts TIMESTAMP (designated), series SYMBOL INDEX,
//   value DOUBLE, PARTITION BY DAY, WAL, DEDUP UPSERT KEYS(ts, series). The series id is a
//   SYMBOL with a bitmap index: a per-series read walks that key's row list in each day
//   partition of the range, never the other series' rows (a LONG column cannot be indexed).
//   DEDUP makes a replayed batch (Kafka redelivery, a retried flush) replace, not double;
//   the last value of a key wins, also within one transaction (tested).
// - Time: stored ts = real time + 400 years (questdb-sql.ts SHIFT). QuestDB refuses
//   designated timestamps before 1970; the platform's times reach back to ~1685. 400 years
//   is the Gregorian cycle, so stored dates read as the real ones with the year + 400.
// - append() resolves when the rows are durable AND visible to reads. A WAL table applies
//   writes asynchronously: the ILP/HTTP request returns once the transaction is committed to
//   the table's WAL and sequencer (durable), and a background job applies it to the table
//   later. So after each flush the store reads wal_tables() for this table: sequencerTxn
//   at that moment is >= the flush's transaction, and the appends of that flush resolve
//   when writerTxn (the last transaction applied and visible) reaches it. One poller serves
//   all waiters (one /exec request per poll, a few ms apart). A suspended table rejects
//   the waiters with QuestDB's error; no progress within visibleTimeoutMs rejects them with
//   OverloadedError (503).
// - Writes are serialized: one Sender, never used concurrently (nodejs-questdb-client#44).
//   Appends that arrive while a flush is in flight are sent together in the next flush
//   (group commit, one HTTP request = one transaction, <= rowsPerFlush rows; a larger
//   append is split over several). The next flush goes out while the previous one waits
//   to become visible. auto_flush is off: the store must know which rows a flush carried
//   (a failed flush loses its rows from the Sender's buffer; the store keeps its own copy
//   of the batch only until the promise settles, the caller retries). The Sender retries
//   network errors and 5xx for retry_timeout (10 s) and then throws: that surfaces as
//   OverloadedError (HTTP 503), a 4xx (bad data) as a plain Error.
// - Reads go straight to /exec (questdb-http.ts), never through the write queue: a
//   range read is one index scan ordered by ts; down-sampling is SAMPLE BY with FROM set to
//   the epoch-aligned bucket of the first row (so buckets are floor(t / iv) * iv, empty
//   ones dropped), or, for intervals no SAMPLE BY unit can express, GROUP BY on bucket
//   arithmetic.
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
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { Sender } from '@questdb/nodejs-client'
import type { Logger } from 'pino'
import { Agent } from 'undici'
import { OverloadedError } from '../../core/errors.ts'
import { Folder, bucketing, usableLevel } from './buckets.ts'
import type { MeanPoint, Observation, Point, RangeQuery, SampleQuery, TimeseriesStore } from './port.ts'
import { QuestdbHttp, type Row } from './questdb-http.ts'
import { IlpEncoder } from './questdb-ilp.ts'
import {
  MIN_REAL_TIME, SHIFT, countSql, createTableSql, deleteRangeSql, deleteSeriesSql, firstTimeSql, floorDivBig, isSeriesId, listSeriesSql,
  rangeSql, sampleBySql, sampleGroupBySql, samplePiecesSql, sampleStride, type StoredBounds, storedBounds, tableColumnsSql, tableInfoSql, tableName, walStatusSql,
} from './questdb-sql.ts'

/** Strides for calendar pieces, ascending; 1 µs always divides. */
const PIECE_STRIDES: Array<[number, string]> = [[1, '1U'], [1_000_000, '1s'], [60_000_000, '1m'], [900_000_000, '15m'], [3_600_000_000, '1h']]

export interface QuestdbStoreOptions {
  /**
   * Where QuestDB's HTTP port is: 'http://127.0.0.1:19000', or an ILP client configuration
   * string such as 'http::addr=127.0.0.1:19000;username=..;password=..' (LINTEL_QUESTDB).
   */
  url: string
  /** Table of the observations (default 'obs'); created if missing. */
  table?: string
  logger?: Logger
  /** Observations accepted but not yet visible before append() rejects (default 4M). */
  maxPendingRows?: number
  /** Rows per ILP request, i.e. per transaction (default 250,000). */
  rowsPerFlush?: number
  /** How long an append may wait for QuestDB to apply its transaction (default 60 s). */
  visibleTimeoutMs?: number
  /** The ILP client's retry_timeout, which also caps one request (default 10 s). */
  retryTimeoutMs?: number
}

interface Target { table: string; http: QuestdbHttp }

/** Splits `url` into the /exec base URL and the ILP sender configuration. */
export function questdbTarget(url: string): { httpUrl: string; senderConfig: Map<string, string>; protocol: string } {
  const m = /^(https?)::(.*)$/.exec(url.trim())
  if (m) {
    const conf = new Map<string, string>()
    for (const part of m[2].split(';')) {
      if (!part) continue
      const eq = part.indexOf('=')
      if (eq <= 0) throw new Error(`QuestDB configuration '${url}': '${part}' is not key=value`)
      conf.set(part.slice(0, eq).trim(), part.slice(eq + 1).trim())
    }
    const addr = conf.get('addr')
    if (!addr) throw new Error(`QuestDB configuration '${url}' has no addr=host:port`)
    return { httpUrl: `${m[1]}://${addr}`, senderConfig: conf, protocol: m[1] }
  }
  let u: URL
  try {
    u = new URL(url)
  } catch {
    throw new Error(`QuestDB URL '${url}' is neither http://host:port nor http::addr=host:port`)
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new Error(`QuestDB URL must be http(s)://host:port, got ${url}`)
  const conf = new Map([['addr', u.host]])
  if (u.username) conf.set('username', decodeURIComponent(u.username))
  if (u.password) conf.set('password', decodeURIComponent(u.password))
  return { httpUrl: `${u.protocol}//${u.host}`, senderConfig: conf, protocol: u.protocol.slice(0, -1) }
}

export async function openQuestdbStore(opts: QuestdbStoreOptions): Promise<TimeseriesStore> {
  const table = tableName(opts.table ?? 'obs')
  const { httpUrl, senderConfig, protocol } = questdbTarget(opts.url)
  const log = opts.logger?.child({ module: 'timeseries-store', store: 'questdb', table })
  const http = new QuestdbHttp({ url: httpUrl, username: senderConfig.get('username'), password: senderConfig.get('password') })
  const agent = new Agent({ keepAliveTimeout: 60_000, connections: 1 })
  try {
    await http.exec(createTableSql(table))
    await checkTable(http, table)
    const conf = new Map(senderConfig)
    conf.set('auto_flush', 'off')
    if (!conf.has('protocol_version')) conf.set('protocol_version', '2')
    if (!conf.has('retry_timeout')) conf.set('retry_timeout', String(opts.retryTimeoutMs ?? 10_000))
    if (!conf.has('init_buf_size')) conf.set('init_buf_size', String(4 << 20))
    if (!conf.has('max_buf_size')) conf.set('max_buf_size', String(256 << 20))
    const senderConfig2 = `${protocol}::${[...conf].map(([k, v]) => `${k}=${v}`).join(';')};`
    const sender = await Sender.fromConfig(senderConfig2, {
      agent,
      log: (level, message) => { log?.[level]({ ilp: true }, typeof message === 'string' ? message : String(message)) },
    })
    return new QuestdbStore({ table, http }, sender, senderTransport(sender), agent, log, {
      maxPendingRows: opts.maxPendingRows ?? 4_000_000,
      rowsPerFlush: Math.max(1, opts.rowsPerFlush ?? 250_000),
      visibleTimeoutMs: opts.visibleTimeoutMs ?? 60_000,
    })
  } catch (err) {
    await http.close()
    await agent.close()
    throw err
  }
}

/** What the store sends its own encoded lines through (see IlpEncoder). */
interface IlpTransport { send(data: Buffer): Promise<unknown> }

/**
 * The Sender's HTTP transport (its retries on network errors and 5xx for retry_timeout,
 * authentication, TLS), which the store feeds with lines it encodes itself
 * (questdb-ilp.ts). Not part of the client's typed API: checked here, at open, so that
 * another client version fails at start with a clear message rather than at the first write.
 */
function senderTransport(sender: Sender): IlpTransport {
  const transport = (sender as unknown as { transport?: IlpTransport }).transport
  if (typeof transport?.send !== 'function') {
    throw new Error('@questdb/nodejs-client has no Sender transport with send(): the QuestDB store needs the version in package.json')
  }
  return { send: (data) => transport.send.call(transport, data) }
}

/** Refuses a pre-existing table of another design (CREATE TABLE IF NOT EXISTS keeps it). */
async function checkTable(http: QuestdbHttp, table: string): Promise<void> {
  const [info] = await http.exec(tableInfoSql(table))
  const cols = await http.exec(tableColumnsSql(table))
  const col = new Map(cols.map((r) => [String(r[0]), { type: r[1], indexed: r[2], upsertKey: r[3] }]))
  const problems: string[] = []
  if (!info) problems.push('not listed by tables()')
  else {
    if (info[0] !== true) problems.push('not a WAL table')
    if (info[1] !== true) problems.push('no DEDUP')
    if (info[2] !== 'ts') problems.push(`designated timestamp is ${info[2]}, not ts`)
  }
  const ts = col.get('ts'); const series = col.get('series'); const value = col.get('value')
  if (ts?.type !== 'TIMESTAMP' || ts.upsertKey !== true) problems.push('ts is not a TIMESTAMP upsert key')
  if (series?.type !== 'SYMBOL' || series.upsertKey !== true) problems.push('series is not a SYMBOL upsert key')
  if (value?.type !== 'DOUBLE') problems.push('value is not a DOUBLE')
  if (problems.length) {
    throw new Error(`QuestDB table '${table}' exists with another design (${problems.join('; ')}); drop it or choose another table`)
  }
  if (series?.indexed !== true) {
    // Still correct, only slower; an index can be added to an existing table.
    await http.exec(`ALTER TABLE ${table} ALTER COLUMN series ADD INDEX`)
  }
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
interface DeleteJob { kind: 'delete'; series: number[]; range?: StoredBounds; resolve: () => void; reject: (err: Error) => void }
type Job = AppendJob | DeleteJob

interface Waiter {
  /** sequencerTxn to reach; undefined until a status read that started after the write. */
  target: number | undefined
  deadline: number
  resolve: () => void
  reject: (err: Error) => void
}

interface Limits { maxPendingRows: number; rowsPerFlush: number; visibleTimeoutMs: number }

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))
/** Rows encoded between two yields to the event loop (~2 ms of work; event-loop delay p50 ~1.7 ms vs ~6.5 ms at 2048, at the same rate). */
const ENCODE_SLICE = 8192

/** Observations QuestDB can store, as [series, time, value] triples; the rest is counted. */
export function packForQuestdb(batch: readonly Observation[]): { data: Float64Array; rows: number; dropped: number } {
  const data = new Float64Array(batch.length * 3)
  let n = 0
  for (let i = 0; i < batch.length; i++) {
    const o = batch[i]
    const v = o.value
    let t = o.time
    // NaN and +-Infinity read back as null in QuestDB; times outside the storable range
    // (before 1570, or beyond safe integers) and non-integer series ids cannot be keys.
    if (!Number.isFinite(v) || !Number.isFinite(t) || !isSeriesId(o.series)) continue
    if (!Number.isInteger(t)) t = Math.floor(t)
    if (t < MIN_REAL_TIME || !Number.isSafeInteger(t)) continue
    data[n++] = o.series
    data[n++] = t
    data[n++] = v
  }
  const rows = n / 3
  return { data: n === data.length ? data : data.slice(0, n), rows, dropped: batch.length - rows }
}

class QuestdbStore implements TimeseriesStore {
  private readonly table: string
  private readonly http: QuestdbHttp
  private readonly queue: Job[] = []
  private pumping = false
  private pendingRows = 0
  private closed = false
  private readonly waiters: Waiter[] = []
  private polling = false
  private idle: Array<() => void> = []

  private readonly encoder: IlpEncoder

  constructor (
    target: Target,
    private readonly sender: Sender,
    private readonly transport: IlpTransport,
    private readonly agent: Agent,
    private readonly log: Logger | undefined,
    private readonly limits: Limits,
  ) {
    this.table = target.table
    this.http = target.http
    this.encoder = new IlpEncoder(this.table)
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
    this.check()
    const b = storedBounds(start, end)
    if (b.empty || !isSeriesId(series)) return 0
    const [row] = await this.http.exec(countSql(this.table, series, b))
    return Number(row?.[0] ?? 0)
  }

  async sample(series: number, q: SampleQuery): Promise<MeanPoint[]> {
    this.check()
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
    this.check()
    const rows = await this.http.exec(listSeriesSql(this.table))
    const ids: number[] = []
    for (const r of rows) if (r[0] !== null) ids.push(Number(r[0]))
    return ids.sort((a, b) => a - b)
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

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Appends already accepted are written first (like the SQLite store's close).
    if (this.pumping || this.queue.length > 0 || this.waiters.length > 0) {
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
    if (this.pumping || this.queue.length > 0 || this.waiters.length > 0) return
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
      if (done.length > 0) {
        this.visible().then(() => { for (const job of done) job.resolve() }, (err: Error) => { for (const job of done) job.reject(err) })
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
      if (job.range) await this.http.exec(deleteRangeSql(this.table, job.series[0], job.range))
      else {
        for (let i = 0; i < job.series.length; i += 500) {
          await this.http.exec(deleteSeriesSql(this.table, job.series.slice(i, i + 500)))
        }
      }
    } catch (err) {
      job.reject(err as Error)
      return
    }
    this.visible().then(job.resolve, job.reject)
  }

  /** Resolves when everything committed to the table's sequencer before now is applied. */
  private visible(): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      this.waiters.push({ target: undefined, deadline: Date.now() + this.limits.visibleTimeoutMs, resolve, reject })
      if (!this.polling) void this.poll()
    })
  }

  private async poll(): Promise<void> {
    this.polling = true
    let pause = 1
    try {
      while (this.waiters.length > 0) {
        // Waiters registered before this request went out get its sequencerTxn as target.
        const untargeted = this.waiters.filter((w) => w.target === undefined)
        let status: Row | undefined
        try {
          [status] = await this.http.exec(walStatusSql(this.table))
        } catch (err) {
          this.rejectWaiters(this.waiters.slice(), err as Error)
          break
        }
        if (!status) {
          this.rejectWaiters(this.waiters.slice(), new Error(`QuestDB table '${this.table}' is not listed by wal_tables() (dropped?)`))
          break
        }
        const [writerTxn, sequencerTxn, suspended, errorMessage] = status as [number, number, boolean, string]
        for (const w of untargeted) w.target = sequencerTxn
        const now = Date.now()
        let progressed = false
        for (let i = 0; i < this.waiters.length; i++) {
          const w = this.waiters[i]
          if (w.target !== undefined && writerTxn >= w.target) {
            this.waiters.splice(i--, 1)
            w.resolve()
            progressed = true
          } else if (suspended) {
            this.waiters.splice(i--, 1)
            w.reject(new Error(`QuestDB table '${this.table}' is suspended (${errorMessage || 'WAL apply failed'}): writes are durable but not applied; see ALTER TABLE ${this.table} RESUME WAL`))
          } else if (now > w.deadline) {
            this.waiters.splice(i--, 1)
            w.reject(new OverloadedError(`QuestDB has not applied the write to '${this.table}' within ${this.limits.visibleTimeoutMs} ms (writerTxn ${writerTxn} < ${w.target}); it is durable and will become visible; retry reads later`))
          }
        }
        if (this.waiters.length === 0) break
        pause = progressed ? 1 : Math.min(pause * 2, 25)
        await sleep(pause)
      }
    } finally {
      this.polling = false
      if (this.waiters.length > 0) void this.poll()
      else this.settleIdle()
    }
  }

  private rejectWaiters(ws: Waiter[], err: Error): void {
    for (const w of ws) {
      const i = this.waiters.indexOf(w)
      if (i >= 0) this.waiters.splice(i, 1)
      w.reject(err)
    }
  }
}
