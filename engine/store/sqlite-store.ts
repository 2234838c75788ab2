// The embedded time-series store (DESIGN.md "Two ways to run"): SQLite via better-sqlite3,
// one file set under `dir` (timeseries.db, -wal, -shm).
//
// Design (figures measured on the 2-core machine; bench/store-read.ts, npm run bench:store-read):
// - Table obs(series, time, value), PRIMARY KEY (series, time), WITHOUT ROWID, STRICT: each
//   series is one contiguous, time-ordered range of one B-tree. Every read is a single
//   primary-key range (EXPLAIN: SEARCH obs USING PRIMARY KEY (series=? AND time>? AND
//   time<?)), so it never scans other series. Same (series, time) = same key: INSERT OR
//   REPLACE makes ingest idempotent, the value sent last winning, also within one batch.
// - Writes go to a worker thread with its own connection (sqlite-writer.ts), so no
//   transaction blocks the main event loop (a 50k-row one holds its thread 60-120 ms).
//   append() packs the batch into a Float64Array that is transferred, not copied. The
//   worker commits every append waiting at that moment in one transaction (group commit,
//   <= 262,144 rows), ordered by (series, time) with arrival order kept for equal keys,
//   through a prepared 64-row INSERT. An interleaved commit rewrites one tail page per
//   series, so rows per commit decide the rate, and group commit grows transactions with
//   the load: 1,000 interleaved series in 10k-row batches ~300k rows/s with one append in
//   flight, ~450-490k with 4, ~950k with 16.
// - Ingest tail (sqlite-schema.ts, sqlite-tail.ts): appends are committed to obs_tail, in
//   arrival order at the end of one table, and moved into obs and the rollups in steps of
//   16 series between appends (when the tail holds 524,288 rows, its oldest row is 2.5 s old,
//   or no request came for 25 ms). A commit touching 6,000 series then writes a few dozen
//   pages instead of a page per series and rollup level: bench:vdp 81,557-101,453
//   evaluations/s over HTTP against 33,309 before (single runs, 2026-11-25). Readers merge a
//   series' tail rows from its earliest tail time (tail_series) on.
// - WAL checkpoints: a checkpointer worker (sqlite-checkpointer.ts) copies frames every 25 ms,
//   so the writer's own checkpoint (every 32 MiB) finds little to do and appends do not wait
//   behind a long one.
// - append() resolves after the worker's COMMIT. Journal WAL + synchronous=NORMAL: committed
//   frames are in the OS page cache, so they survive kill -9 of the process (tested by
//   test/engine/store-durability.test.ts); see sqlite-schema.ts for the power-loss caveat.
// - Reads run in a pool of worker threads (sqlite-read-pool.ts, `readers`, default 2), each
//   with its own read-only connection (WAL: readers see the last commit and never wait for
//   the writer), so no read holds the main event loop (issue 14 item 5). Down-sampling is one SQL statement
//   (sqlite-reader.ts): bucket numbers from a tally table, one seek and avg() per bucket,
//   no temp B-tree: a year of 1-minute data at 15 minutes ~45 ms (SQL ~41 ms), versus ~125
//   ms for GROUP BY with its temp B-tree. Raw last 1,000 points ~0.4 ms. Sampled reads
//   whose interval fits a rollup level read the rollups (sqlite-rollups.ts) instead (a
//   year at 15 minutes: ~9 ms CPU). readAnswer/sampleAnswer also encode the JSON answer in
//   the worker (engine/answer-json.ts, ~10 ms CPU for those 35,040 entries) and transfer
//   its bytes (npm run bench:read-stages).
// - Bounded: at most `maxPendingRows` observations wait for the writer; beyond that
//   append() rejects with OverloadedError (HTTP 503) instead of growing memory.
// - Values: NaN cannot be stored (SQLite turns it into NULL); pack() drops NaN values and
//   counts them in a warning, so NaN never reaches the table (the table is STRICT and NOT
//   NULL in any case). ±Infinity is stored as given.
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Worker } from 'node:worker_threads'
import type { Logger } from 'pino'
import { OverloadedError } from '../../core/errors.ts'
import type { AnswerFrame, MeanPoint, Observation, Point, RangeQuery, SampleQuery, TimeseriesStore } from './port.ts'
import { pack, packPoints } from './sqlite-batch.ts'
import { ReadPool } from './sqlite-read-pool.ts'
import { DB_FILE } from './sqlite-schema.ts'
import { spawnModuleWorker } from './worker-boot.ts'
import type { WriterData, WriterReply, WriterRequest } from './sqlite-writer.ts'
import type { StoreObserver } from './port.ts'
import type { CheckpointerReply, CheckpointerRequest } from './sqlite-checkpointer.ts'
import type { TrimBounds, TrimResult } from './port.ts'

export interface SqliteStoreOptions {
  dir: string
  logger?: Logger
  /** Observations accepted but not yet committed before append() rejects (default 4M, ~100 MB). */
  maxPendingRows?: number
  /** Reader worker threads (default 2). */
  readers?: number
  /** Ingest tail compacted at this many rows / after this many ms (sqlite-writer.ts TAIL_ROWS, TAIL_MS). */
  tailRows?: number
  tailMs?: number
  /** Told of the writer's commits, compaction steps and tail size (the operator's metrics). */
  observer?: StoreObserver
}

type Pending = { resolve: (m: WriterReply) => void; reject: (err: Error) => void; rows: number }
type RequestBody =
  | { op: 'append'; data: Float64Array }
  | { op: 'delete'; series: number[] }
  | { op: 'replace'; series: number; start: number; end: number; data: Float64Array }
  | { op: 'trim'; series: number[]; bounds: TrimBounds; maxRows: number }
  | { op: 'close' }

const WRITER_URL = new URL('./sqlite-writer.ts', import.meta.url).href
const CHECKPOINTER_URL = new URL('./sqlite-checkpointer.ts', import.meta.url).href

export async function openSqliteStore(opts: SqliteStoreOptions): Promise<TimeseriesStore> {
  mkdirSync(opts.dir, { recursive: true })
  const file = join(opts.dir, DB_FILE)
  const worker = spawnModuleWorker(WRITER_URL, { file, tailRows: opts.tailRows, tailMs: opts.tailMs } satisfies WriterData)
  await new Promise<void>((resolve, reject) => {
    const onMessage = (m: WriterReply) => {
      if (m.id !== 0) return
      cleanup()
      if (m.ok) resolve()
      else reject(new Error(`cannot open time-series store ${file}: ${m.message}`))
    }
    const onError = (err: Error) => { cleanup(); reject(err) }
    const onExit = (code: number) => { cleanup(); reject(new Error(`time-series writer exited (${code}) while opening ${file}`)) }
    const cleanup = () => { worker.off('message', onMessage); worker.off('error', onError); worker.off('exit', onExit) }
    worker.on('message', onMessage).on('error', onError).on('exit', onExit)
  }).catch(async (err) => { await worker.terminate(); throw err })
  let reader
  try {
    reader = await ReadPool.open(file, opts.readers ?? 2)
  } catch (err) {
    await worker.terminate()
    throw err
  }
  const log = opts.logger?.child({ module: 'timeseries-store' })
  return new SqliteStore(worker, reader, await startCheckpointer(file, log), log, opts.maxPendingRows ?? 4_000_000, opts.observer)
}

/** The checkpointer (sqlite-checkpointer.ts); without it the store still works, its writer checkpointing alone. */
async function startCheckpointer(file: string, log: Logger | undefined): Promise<Worker | undefined> {
  const worker = spawnModuleWorker(CHECKPOINTER_URL, { file })
  const started = await new Promise<string | undefined>((resolve) => {
    worker.once('message', (m: CheckpointerReply) => resolve(m.ok ? undefined : m.message))
    worker.once('error', (err) => resolve(err.message))
    worker.once('exit', (code) => resolve(`exited (${code})`))
  })
  if (started !== undefined) {
    log?.warn({ file }, `time-series checkpointer did not start (${started}); the writer checkpoints alone`)
    await worker.terminate()
    return undefined
  }
  worker.on('message', (m: CheckpointerReply) => { if (!m.ok) log?.warn({ file }, m.message) })
  worker.on('error', (err) => log?.warn({ err, file }, 'time-series checkpointer stopped'))
  worker.unref()
  return worker
}

class SqliteStore implements TimeseriesStore {
  private readonly pending = new Map<number, Pending>()
  private pendingRows = 0
  private nextId = 1
  private closed = false
  private failure: Error | undefined

  constructor (
    private readonly worker: Worker,
    private readonly reads: ReadPool,
    private checkpointer: Worker | undefined,
    private readonly log: Logger | undefined,
    private readonly maxPendingRows: number,
    private readonly observer?: StoreObserver,
  ) {
    // One that stopped (an error) is not waited for at close.
    checkpointer?.once('exit', () => { this.checkpointer = undefined })
    worker.on('message', (m: WriterReply) => this.settle(m))
    worker.on('error', (err) => this.fail(err))
    worker.on('exit', (code) => this.fail(new Error(`time-series writer exited (${code})`)))
    // Only outstanding requests keep the process alive (see request()).
    worker.unref()
  }

  async append(batch: readonly Observation[]): Promise<void> {
    const { data, rows, dropped } = pack(batch)
    if (dropped > 0) this.log?.warn({ dropped }, 'observations without a number value or time not stored')
    if (rows === 0) return this.check()
    if (this.pendingRows > 0 && this.pendingRows + rows > this.maxPendingRows) {
      throw new OverloadedError(`Time-series store is busy: ${this.pendingRows} observations wait to be written; retry later`)
    }
    await this.request({ op: 'append', data }, rows)
  }

  async read(series: number, q: RangeQuery): Promise<Point[]> {
    this.check()
    return this.reads.read(series, q)
  }

  async sample(series: number, q: SampleQuery): Promise<MeanPoint[]> {
    this.check()
    return this.reads.sample(series, q)
  }

  async readAnswer(series: number, q: RangeQuery, frame: AnswerFrame): Promise<Uint8Array> {
    this.check()
    return this.reads.readAnswer(series, q, frame)
  }

  async sampleAnswer(series: number, q: SampleQuery, frame: AnswerFrame): Promise<Uint8Array> {
    this.check()
    return this.reads.sampleAnswer(series, q, frame)
  }

  async count(series: number, start?: number, end?: number): Promise<number> {
    this.check()
    return this.reads.count(series, start, end)
  }

  async listSeries(): Promise<number[]> {
    this.check()
    return this.reads.listSeries()
  }

  async deleteSeries(series: readonly number[]): Promise<void> {
    if (series.length === 0) return this.check()
    await this.request({ op: 'delete', series: [...series] }, 0)
  }

  async replaceRange(series: number, start: number, end: number, points: readonly Point[]): Promise<void> {
    const { data, rows, dropped } = packPoints(series, points)
    if (dropped > 0) this.log?.warn({ dropped }, 'observations without a number value or time not stored')
    await this.request({ op: 'replace', series, start, end, data }, rows)
  }

  /** Retention (port.ts trim): one bounded step on the writer thread, between appends. */
  async trim(series: readonly number[], bounds: TrimBounds, maxRows: number): Promise<TrimResult> {
    if (series.length === 0) { this.check(); return { rows: 0, more: false } }
    const m = await this.request({ op: 'trim', series: [...series], bounds, maxRows }, 0)
    return ('trimmed' in m && m.trimmed) || { rows: 0, more: false }
  }

  async close(): Promise<void> {
    if (this.closed) return
    this.closed = true
    // Held until it has exited (settle() no longer unrefs it once closed): an unref'd worker
    // lets the process end while close() still waits for it.
    this.worker.ref()
    // Pending appends are ahead of 'close' in the worker's queue and are committed first.
    const exited = new Promise<void>((resolve) => this.worker.once('exit', () => resolve()))
    try {
      if (!this.failure) await this.send({ op: 'close' }, 0)
    } catch (err) {
      this.log?.error({ err }, 'closing the time-series writer failed')
    } finally {
      await this.reads.close()
      if (!this.failure) await exited
      else await this.worker.terminate()
      await this.closeCheckpointer()
    }
  }

  /** Last: the last connection to close checkpoints the whole WAL and removes it. */
  private async closeCheckpointer(): Promise<void> {
    const c = this.checkpointer
    if (!c) return
    c.ref()
    const exited = new Promise<void>((resolve) => c.once('exit', () => resolve()))
    c.postMessage({ op: 'close' } satisfies CheckpointerRequest)
    const t = setTimeout(() => { void c.terminate() }, 10_000)
    await exited
    clearTimeout(t)
  }

  private check(): void {
    if (this.closed) throw new Error('time-series store is closed')
    if (this.failure) throw this.failure
  }

  private request(body: RequestBody, rows: number): Promise<WriterReply> {
    this.check()
    return this.send(body, rows)
  }

  private send(body: RequestBody, rows: number): Promise<WriterReply> {
    const id = this.nextId++
    const done = new Promise<WriterReply>((resolve, reject) => this.pending.set(id, { resolve, reject, rows }))
    if (this.pending.size === 1) this.worker.ref()
    this.pendingRows += rows
    const msg = { id, ...body } as WriterRequest
    this.worker.postMessage(msg, msg.op === 'append' || msg.op === 'replace' ? [msg.data.buffer as ArrayBuffer] : [])
    return done
  }

  private settle(m: WriterReply): void {
    // id -1: the writer's own work failed (compacting the tail); nothing waits for it.
    if (m.id === -1 && !m.ok) { this.log?.error(m.message); return }
    if (m.id === -2 && m.ok && 'commitMs' in m) {
      for (const ms of m.commitMs) this.observer?.commit?.(ms / 1000)
      for (const ms of m.compactMs) this.observer?.compaction?.(ms / 1000)
      this.observer?.tailRows?.(m.tailRows)
      return
    }
    const p = this.pending.get(m.id)
    if (!p) return
    this.pending.delete(m.id)
    this.pendingRows -= p.rows
    if (this.pending.size === 0 && !this.closed) this.worker.unref()
    if (m.ok) p.resolve(m)
    else p.reject(new Error(`time-series write failed: ${m.message}`))
  }

  private fail(err: Error): void {
    if (!this.failure && !this.closed) this.log?.error({ err }, 'time-series writer stopped')
    this.failure ??= err
    for (const p of this.pending.values()) p.reject(err)
    this.pending.clear()
    this.pendingRows = 0
  }
}
