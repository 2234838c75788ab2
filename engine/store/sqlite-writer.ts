// The writer worker of the SQLite store (design in sqlite-store.ts): the only connection that
// writes. Requests arrive in order; all appends waiting when the worker gets to run are
// committed in one transaction (group commit), and each is acknowledged after that commit.
// Runs in a worker thread: nothing here blocks the main event loop.
//
// Appends are committed to the ingest tail (sqlite-schema.ts, sqlite-tail.ts): rows in
// arrival order at the end of one table, so a commit writes few pages however many series it
// touches. The tail is compacted into obs and the rollups, in steps between the appends, when
// it holds `tailRows` rows, its oldest row is `tailMs` old or no request came for IDLE_MS;
// wholly before a delete or a replaced range, and at close. Retention steps (sqlite-trim.ts)
// run between appends like any request.
import { parentPort, workerData } from 'node:worker_threads'
import { concat, seriesRuns, writeOrder } from './sqlite-batch.ts'
import { openWriterDatabase } from './sqlite-schema.ts'
import { packedInsert } from './sqlite-insert.ts'
import { IngestTail } from './sqlite-tail.ts'
import { trimmer } from './sqlite-trim.ts'
import type { TrimBounds, TrimResult } from './port.ts'

export type WriterRequest =
  | { id: number; op: 'append'; data: Float64Array }
  | { id: number; op: 'delete'; series: number[] }
  | { id: number; op: 'replace'; series: number; start: number; end: number; data: Float64Array }
  | { id: number; op: 'trim'; series: number[]; bounds: TrimBounds; maxRows: number }
  | { id: number; op: 'close' }

/**
 * id 0 answers the start (ready or failed to open); id -2 reports the writer's own work since
 * the last report (issue 34 item 4, the operator's metrics): commit and compaction-step
 * durations in ms, and the rows in the ingest tail now.
 */
export type WriterReply = { id: number; ok: true; trimmed?: TrimResult } | { id: number; ok: false; message: string } | WriterStats
export interface WriterStats { id: -2; ok: true; commitMs: number[]; compactMs: number[]; tailRows: number }

export interface WriterData {
  file: string
  /** Compact once the tail holds this many rows (default TAIL_ROWS); 0: no tail. */
  tailRows?: number
  /** Compact once the oldest tail row waited this long, ms (default TAIL_MS). */
  tailMs?: number
}

/**
 * Tail size that triggers compaction. A compaction writes about one page per series and
 * rollup level it touches (~25-40 WAL frames per step of 16 series), so the more rows each
 * series has in it the cheaper a row, in WAL bytes and in checkpoints; a read of a series in
 * the tail scans the tail (the last 1,000 rows of one: 3.7 / 7.4 / 11.1 / 14.5 ms at 131k /
 * 262k / 393k / 524k rows). bench:vdp over HTTP with 600 rounds (6,000 series): 141-155k
 * evaluations/s at 262,144 rows against 125-141k at 131,072 (2026-11-26, 4 KiB pages); then
 * 524,288 rows and 2.5 s with checkpoints every 25 ms (sqlite-checkpointer.ts), 5 pairs: p99
 * at 100,000/s offered 30-43 ms against 72-85, as fast as taken 124-150k against 112-136k.
 */
export const TAIL_ROWS = 524_288
/**
 * Longest wait of a row in the tail: keeps rollups close to the raw rows at low rates. Long
 * enough that 200,000 rows/s fill the tail before it: the same rows compacted in more, smaller
 * rounds write more pages (above).
 */
export const TAIL_MS = 2500
/** No request for this long: the tail is compacted without waiting to be full or old. */
const IDLE_MS = 25

/** Upper bound of one group commit, so one transaction's WAL stays ~10-30 MB. */
const MAX_TX_ROWS = 262_144

function mustBeWorker(): never { throw new Error('sqlite-writer.ts must run in a worker thread') }
const port = parentPort ?? mustBeWorker()

function errorText(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}

/** The times of ascending `a` that ascending `b` does not hold. */
function notIn(a: readonly number[], b: Float64Array): number[] {
  const out: number[] = []
  let j = 0
  for (const t of a) {
    while (j < b.length && b[j] < t) j++
    if (j === b.length || b[j] !== t) out.push(t)
  }
  return out
}

function start({ file, tailRows = TAIL_ROWS, tailMs = TAIL_MS }: WriterData): void {
  const { db, rollups } = openWriterDatabase(file)
  const insertObs = packedInsert(db, 'INSERT OR REPLACE', 'obs')
  const del = db.prepare('DELETE FROM obs WHERE series = ?')
  const delRange = db.prepare('DELETE FROM obs WHERE series = ? AND time >= ? AND time < ?')
  const delOne = db.prepare('DELETE FROM obs WHERE series = ? AND time = ?')
  const timesIn = db.prepare('SELECT time FROM obs WHERE series = ? AND time >= ? AND time < ?').pluck()
  const insertRows = (data: Float64Array): void => {
    // Rollups in the same transaction (storage-first, sqlite-rollups.ts); each series'
    // latest time before the insert tells in-order appends from late data and overwrites.
    const order = writeOrder(data)
    const runs = seriesRuns(data, order)
    const before = runs.map((r) => rollups.latest(r.series))
    insertObs(data, order)
    runs.forEach((r, k) => rollups.apply(r.series, before[k], r.times, r.values))
  }
  // A transaction that rolls back takes back rows the rollups' memory counted: forget it all.
  const forgettingOnError = <A extends unknown[]>(fn: (...a: A) => void) => (...a: A): void => {
    try { fn(...a) } catch (err) { rollups.forgetAll(); throw err }
  }
  const tail = new IngestTail(db, insertRows, () => rollups.forgetAll())
  const trim = trimmer(db, rollups)

  const insertTx = forgettingOnError(db.transaction(insertRows))
  const deleteTx = forgettingOnError(db.transaction((series: number[]) => { for (const s of series) { del.run(s); rollups.deleteSeries(s) } }))
  // One transaction: a reader sees the old range or the new one, never a gap. Rows at times
  // the new points have are overwritten in place (INSERT OR REPLACE), the others deleted one
  // by one (a replay rewrites mostly the same times): measured on a replay's pages of 20,000
  // rows, 2.1 s per 6M rows against 3.45 s for a range delete and inserts. The rollups of the
  // range are recomputed from the new points (sqlite-rollups.ts replaced()).
  const replaceTx = forgettingOnError(db.transaction((r: WriterRequest & { op: 'replace' }) => {
    const gone = timesIn.all(r.series, r.start, r.end) as number[]
    const order = writeOrder(r.data)
    const { times, values } = seriesRuns(r.data, order)[0] ?? { times: new Float64Array(0), values: new Float64Array(0) }
    if (times.length === 0) delRange.run(r.series, r.start, r.end)
    else for (const t of notIn(gone, times)) delOne.run(r.series, t)
    insertObs(r.data, order)
    rollups.replaced(r.series, r.start, r.end, gone, times, values)
  }))

  const reply = (r: WriterReply) => port.postMessage(r)
  const queue: WriterRequest[] = []
  let head = 0
  let scheduled = false

  // tailRows 0: no tail, appends go straight to obs and the rollups (the layout before the
  // tail; tests compare the two).
  const commit = tailRows > 0 ? (data: Float64Array) => tail.append(data) : insertTx
  // Durations since the last report (sent once per pump, when there are any).
  let commitMs: number[] = []
  let compactMs: number[] = []
  const report = (): void => {
    if (commitMs.length === 0 && compactMs.length === 0) return
    port.postMessage({ id: -2, ok: true, commitMs, compactMs, tailRows: tail.rows } satisfies WriterStats)
    commitMs = []
    compactMs = []
  }
  const writeGroup = (group: Array<WriterRequest & { op: 'append' }>): void => {
    try {
      const began = performance.now()
      commit(concat(group.map((r) => r.data)))
      commitMs.push(performance.now() - began)
      for (const r of group) reply({ id: r.id, ok: true })
    } catch (err) {
      if (group.length === 1) { reply({ id: group[0].id, ok: false, message: errorText(err) }); return }
      // One bad batch must not fail its neighbours: retry each on its own.
      for (const r of group) {
        try { commit(r.data); reply({ id: r.id, ok: true }) } catch (e) { reply({ id: r.id, ok: false, message: errorText(e) }) }
      }
    }
  }

  // A compaction step that fails rolls back and leaves the tail as it was: its rows stay
  // readable, and the step is tried again later. The error fails no request.
  let stepFailures = 0
  const compactStep = (): void => {
    const began = performance.now()
    try { tail.step(); stepFailures = 0; compactMs.push(performance.now() - began) } catch (err) {
      stepFailures++
      port.postMessage({ id: -1, ok: false, message: `compacting the ingest tail failed: ${errorText(err)}` } satisfies WriterReply)
    }
  }

  let timer: NodeJS.Timeout | undefined
  let closed = false
  const schedule = (): void => { if (!scheduled && !closed) { scheduled = true; setImmediate(pump) } }

  /**
   * Answers every request waiting, then does one compaction step, so appends never wait for
   * more than one step. A tail past 4x its size means compaction falls behind the appends:
   * then steps run until it is back, which slows the answers (and so the senders) down.
   * Compaction starts when the tail is full, when its oldest row is tailMs old, or when no
   * request came for IDLE_MS: after a burst the store settles at once (reads of settled
   * series need not scan the tail, and readers' caches stay valid).
   */
  let lastRequest = 0
  const pump = (): void => {
    scheduled = false
    if (head < queue.length) lastRequest = Date.now()
    drain()
    if (closed) return
    report()
    const now = Date.now()
    if (!tail.compacting && tailRows > 0 && tail.rows > 0 && (tail.rows >= tailRows || tail.age(now) >= tailMs || now - lastRequest >= IDLE_MS)) tail.freeze()
    if (tail.compacting) {
      compactStep()
      while (tail.compacting && tail.rows > 4 * tailRows && stepFailures === 0) compactStep()
      if (stepFailures === 0) schedule()
      else { clearTimeout(timer); timer = setTimeout(() => { timer = undefined; schedule() }, 1000) }
      return
    }
    if (tail.rows > 0 && !timer) {
      const wait = Math.min(tailMs - tail.age(now), IDLE_MS - (now - lastRequest))
      timer = setTimeout(() => { timer = undefined; schedule() }, Math.max(1, wait))
    }
  }

  const drain = (): void => {
    while (head < queue.length) {
      const req = queue[head]
      if (req.op === 'append') {
        const group: Array<WriterRequest & { op: 'append' }> = []
        let rows = 0
        while (head < queue.length) {
          const next = queue[head]
          if (next.op !== 'append' || (group.length > 0 && rows + next.data.length / 3 > MAX_TX_ROWS)) break
          group.push(next)
          rows += next.data.length / 3
          head++
        }
        writeGroup(group)
      } else if (req.op === 'replace') {
        head++
        try { tail.compactAll(); replaceTx(req); reply({ id: req.id, ok: true }) } catch (err) { reply({ id: req.id, ok: false, message: errorText(err) }) }
      } else if (req.op === 'trim') {
        // Between appends, bounded by maxRows (sqlite-trim.ts); the tail is left as it is.
        head++
        try {
          if (trim.inTail(req.series, req.bounds.raw)) tail.compactAll()
          reply({ id: req.id, ok: true, trimmed: trim.step(req.series, req.bounds, req.maxRows) })
        } catch (err) { rollups.forgetAll(); reply({ id: req.id, ok: false, message: errorText(err) }) }
      } else if (req.op === 'delete') {
        head++
        try { tail.compactAll(); deleteTx(req.series); reply({ id: req.id, ok: true }) } catch (err) { reply({ id: req.id, ok: false, message: errorText(err) }) }
      } else {
        head++
        // Requests after close are answered by the main thread; none reach here.
        closed = true
        clearTimeout(timer)
        try { tail.compactAll(); db.close(); reply({ id: req.id, ok: true }) } catch (err) { reply({ id: req.id, ok: false, message: errorText(err) }) }
        port.close()
        return
      }
    }
    queue.length = 0
    head = 0
  }

  // Messages already queued on the port are delivered before setImmediate fires, so one
  // drain sees every request that arrived while the previous commit was running.
  port.on('message', (req: WriterRequest) => {
    queue.push(req)
    schedule()
  })
  schedule()
  reply({ id: 0, ok: true })
}

try {
  start(workerData as WriterData)
} catch (err) {
  port.postMessage({ id: 0, ok: false, message: errorText(err) } satisfies WriterReply)
  port.close()
}
