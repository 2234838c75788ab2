// The ingest tail of the SQLite store (layout in sqlite-schema.ts), kept by the writer worker.
//
// Appends are committed to obs_tail in arrival order. Compaction moves them into obs and the
// rollups in bulk, in steps, so the appends arriving meanwhile wait for one step at most: the
// rows present when it starts are frozen (rowid <= `frozenTo`), sorted by (series, time),
// and cut at series boundaries into parts of at most STEP_SERIES series or STEP_ROWS rows.
// Each step is one transaction: a part into obs and the rollups, and tail_series moved on for
// its series (to their earliest row appended since the freeze, or removed). The last step
// also deletes the frozen rows. Until then a compacted frozen row is both in obs and in the
// tail with the same value, which readers merging the two cannot tell apart, and appends
// after the freeze have larger rowids, so they still win over frozen rows of the same time.
//
// The tail's rows are also kept here (they are what was committed), so compaction does not
// read them back; after a restart they are loaded from the table once.
import type BetterSqlite3 from 'better-sqlite3'
import { concat, writeOrder } from './sqlite-batch.ts'
import { packedInsert, type PackedInsert } from './sqlite-insert.ts'

/**
 * A compaction step takes at most this many series (~4 pages written each: obs and 3 rollup
 * levels)... Appends wait for the step under way, so a step is kept short: 32 series / 2,048
 * rows gave bench:vdp over MQTT 218k and 234k evaluations/s against 190k and 197k with 128 /
 * 8,192 (alternating pairs, 2026-11-26, 1 KiB pages), HTTP 170k and 186k against 171k and 172k.
 * With 4 KiB pages a step writes 4x the bytes per page, and 16 / 1,024 did better than 32 /
 * 2,048 (HTTP, 600 rounds, 5 rotations): medians 154k against 147k evaluations/s, p99 at
 * 100,000/s afterwards 59 against 67 ms; 8 / 512 gave 152-165k (3 runs).
 */
const STEP_SERIES = 16
/** ...or this many rows, but never splits one series' rows. */
const STEP_ROWS = 1024

/** Per series of packed rows, its earliest time. */
function seriesMins(data: Float64Array): Map<number, number> {
  const into = new Map<number, number>()
  for (let i = 0; i < data.length; i += 3) {
    const m = into.get(data[i])
    if (m === undefined || data[i + 1] < m) into.set(data[i], data[i + 1])
  }
  return into
}

/** The series of a frozen part (packed rows sorted by series), each once. */
function seriesOfPart(part: Float64Array): number[] {
  const out: number[] = []
  for (let i = 0; i < part.length; i += 3) if (out.length === 0 || out[out.length - 1] !== part[i]) out.push(part[i])
  return out
}

interface Frozen {
  /** Rows at rowid <= frozenTo are being compacted. */
  frozenTo: number
  /** Sorted by (series, time, arrival), cut at series boundaries. */
  parts: Float64Array[]
  next: number
  rows: number
}

export class IngestTail {
  private readonly insert: PackedInsert
  private readonly mark: BetterSqlite3.Statement
  private readonly unmark: BetterSqlite3.Statement
  private readonly topRowid: BetterSqlite3.Statement
  private readonly dropFrozen: BetterSqlite3.Statement
  private readonly appendTx: (data: Float64Array, lowered: Array<[number, number]>) => void
  private readonly stepTx: (part: Float64Array, last: boolean) => void
  private readonly allTx: (data: Float64Array) => void

  /** Rows appended since the last freeze, in commit order. */
  private active: Float64Array[] = []
  private activeRows = 0
  /** Per series, its earliest time among the active rows. */
  private activeMin = new Map<number, number>()
  /** What tail_series holds: per series its earliest time not yet compacted. */
  private tailMin = new Map<number, number>()
  private frozen: Frozen | undefined
  /** Date.now() when the oldest active row was committed. */
  private since = 0

  constructor (
    private readonly db: BetterSqlite3.Database,
    /** Inserts packed rows into obs and the rollups (the writer's insert, inside a transaction). */
    private readonly insertRows: (data: Float64Array) => void,
    /** Called when a compaction transaction rolled back (the rollups' memory must be dropped). */
    private readonly rolledBack: () => void,
    private readonly stepSize = { series: STEP_SERIES, rows: STEP_ROWS },
  ) {
    this.insert = packedInsert(db, 'INSERT', 'obs_tail')
    this.mark = db.prepare('INSERT OR REPLACE INTO tail_series (series, min_time) VALUES (?, ?)')
    this.unmark = db.prepare('DELETE FROM tail_series WHERE series = ?')
    this.topRowid = db.prepare('SELECT max(rowid) FROM obs_tail').pluck()
    this.dropFrozen = db.prepare('DELETE FROM obs_tail WHERE rowid <= ?')
    this.appendTx = db.transaction((data: Float64Array, lowered: Array<[number, number]>) => {
      this.insert(data)
      for (const [series, time] of lowered) this.mark.run(series, time)
    })
    this.stepTx = db.transaction((part: Float64Array, last: boolean) => this.writeStep(part, last))
    this.allTx = db.transaction((data: Float64Array) => {
      this.insertRows(data)
      db.exec('DELETE FROM obs_tail; DELETE FROM tail_series')
    })
    this.load()
  }

  /** Rows in the tail (frozen ones not yet compacted included). */
  get rows(): number {
    return this.activeRows + (this.frozen ? this.frozen.rows : 0)
  }

  /** Whether a compaction is under way (steps left). */
  get compacting(): boolean {
    return this.frozen !== undefined
  }

  /** Milliseconds the oldest active row has waited (0: none). */
  age(now = Date.now()): number {
    return this.activeRows > 0 ? now - this.since : 0
  }

  /** Commits rows to the tail in one transaction; what is kept here changes only once it committed. */
  append(data: Float64Array): void {
    const mins = seriesMins(data)
    // tail_series moves only for series whose earliest tail time this append lowers.
    const lowered: Array<[number, number]> = []
    for (const [series, time] of mins) {
      const m = this.tailMin.get(series)
      if (m === undefined || time < m) lowered.push([series, time])
    }
    this.appendTx(data, lowered)
    for (const [series, time] of lowered) this.tailMin.set(series, time)
    for (const [series, time] of mins) {
      const m = this.activeMin.get(series)
      if (m === undefined || time < m) this.activeMin.set(series, time)
    }
    if (this.activeRows === 0) this.since = Date.now()
    this.active.push(data)
    this.activeRows += data.length / 3
  }

  /** Freezes the active rows for compaction in steps (none under way). */
  freeze(): void {
    if (this.frozen || this.activeRows === 0) return
    const data = concat(this.active)
    const order = writeOrder(data)
    const parts: Float64Array[] = []
    let from = 0
    let series = 0
    for (let k = 0; k <= order.length; k++) {
      const startsSeries = k === order.length || k === 0 || data[3 * order[k]] !== data[3 * order[k - 1]]
      if (startsSeries && k > from && (k === order.length || series >= this.stepSize.series || k - from >= this.stepSize.rows)) {
        const part = new Float64Array(3 * (k - from))
        for (let j = from; j < k; j++) {
          const i = 3 * order[j]
          const o = 3 * (j - from)
          part[o] = data[i]
          part[o + 1] = data[i + 1]
          part[o + 2] = data[i + 2]
        }
        parts.push(part)
        from = k
        series = 0
      }
      if (startsSeries) series++
    }
    this.frozen = { frozenTo: this.topRowid.get() as number, parts, next: 0, rows: this.activeRows }
    this.active = []
    this.activeRows = 0
    this.activeMin = new Map()
  }

  /** Compacts the next part of the frozen rows; false when there was nothing to do. */
  step(): boolean {
    const f = this.frozen
    if (!f) return false
    const part = f.parts[f.next]
    const last = f.next === f.parts.length - 1
    try { this.stepTx(part, last) } catch (err) { this.rolledBack(); throw err }
    f.next++
    f.rows -= part.length / 3
    for (const s of seriesOfPart(part)) {
      const m = this.activeMin.get(s)
      if (m === undefined) this.tailMin.delete(s)
      else this.tailMin.set(s, m)
    }
    if (last) this.frozen = undefined
    return true
  }

  /** Compacts the whole tail in one transaction (before a delete, a replaced range, a close). */
  compactAll(): void {
    if (this.rows === 0) return
    const f = this.frozen
    const data = concat([...(f ? f.parts.slice(f.next) : []), ...this.active])
    try { this.allTx(data) } catch (err) { this.rolledBack(); throw err }
    this.frozen = undefined
    this.active = []
    this.activeRows = 0
    this.activeMin = new Map()
    this.tailMin = new Map()
  }

  private writeStep(part: Float64Array, last: boolean): void {
    this.insertRows(part)
    for (const s of seriesOfPart(part)) {
      const m = this.activeMin.get(s)
      if (m === undefined) this.unmark.run(s)
      else this.mark.run(s, m)
    }
    if (last) this.dropFrozen.run(this.frozen!.frozenTo)
  }

  private load(): void {
    this.tailMin = new Map(this.db.prepare('SELECT series, min_time FROM tail_series').raw().all() as Array<[number, number]>)
    const rows = this.db.prepare('SELECT series, time, value FROM obs_tail ORDER BY rowid').raw().all() as number[][]
    if (rows.length === 0) return
    const data = new Float64Array(rows.length * 3)
    for (let i = 0; i < rows.length; i++) { data[3 * i] = rows[i][0]; data[3 * i + 1] = rows[i][1]; data[3 * i + 2] = rows[i][2] }
    this.active = [data]
    this.activeRows = rows.length
    this.activeMin = seriesMins(data)
    this.since = Date.now()
  }
}
