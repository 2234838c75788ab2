// The ingest tail of the SQLite store (layout in sqlite-schema.ts), kept by the writer worker.
//
// Appends are committed to obs_tail in arrival order. Compaction moves them into obs and the
// rollups in bulk, in steps, so the appends arriving meanwhile wait for one step at most: the
// rows present when it starts are frozen (rowid <= `frozenTo`), grouped by series in
// ascending order, and cut at series boundaries into parts of at most STEP_SERIES series or
// STEP_ROWS rows.
// Each step is one transaction: a part into obs and the rollups, and tail_series moved on for
// its series (to their earliest row appended since the freeze, or removed). Once every part
// is in, further steps delete the frozen rows, DELETE_ROWS rowids at a time. Until then a
// compacted frozen row is both in obs and in the tail with the same value, which readers
// merging the two cannot tell apart, and appends after the freeze have larger rowids, so they
// still win over frozen rows of the same time. The next freeze waits for the deletion.
//
// The tail's rows are also kept here (they are what was committed), so compaction does not
// read them back; after a restart they are loaded from the table once. They are linked per
// series as they are appended, so a freeze only orders the series and each step gathers its
// part. Sorting all rows at the freeze, and deleting the frozen rows in one statement, each
// held the appends behind them for 15-55 ms (262,144 rows of 6,000 series, slow boot), where
// a step of a part takes ~0.6 ms.
import type BetterSqlite3 from 'better-sqlite3'
import { concat } from './sqlite-batch.ts'
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
/**
 * Frozen rows deleted per step once all parts are in. All 262,144 in one statement took
 * ~45 ms; 16,384 take ~3 ms.
 */
const DELETE_ROWS = 16_384

export interface StepSize { series: number; rows: number; deleteRows?: number }

/**
 * Rows appended since the last freeze, as committed, linked per series as they come: a
 * freeze then only orders the series, and each step gathers the rows of its series.
 * slotsOf() numbers a batch's series (one Map lookup per row); add() copies the batch in once
 * it committed (a batch that failed leaves at most unused slots behind).
 */
class ActiveRows {
  rows = 0
  /** The rows, packed (series, time, value) in commit order. */
  private data = new Float64Array(3 * 4096)
  /** Per row, the next row of its series (-1: none). */
  private rowNext = new Int32Array(4096)
  /** Per slot: series, rows, earliest time, first and last row. */
  readonly series: number[] = []
  readonly counts: number[] = []
  private readonly mins: number[] = []
  private readonly first: number[] = []
  private readonly last: number[] = []
  /** Per slot, the earliest time of the batch in slotsOf() (Infinity outside it). */
  private readonly batchMins: number[] = []
  private readonly slotOf = new Map<number, number>()
  /** Slots of the batch being appended, from slotsOf() to add(). */
  private slot = new Uint32Array(1024)

  /**
   * Numbers the series of `data`'s rows for add(), and returns the series whose earliest time
   * here the batch lowers, with the batch's earliest time of each.
   */
  slotsOf(data: Float64Array): Array<[number, number]> {
    const n = data.length / 3
    if (n > this.slot.length) this.slot = new Uint32Array(Math.max(n, 2 * this.slot.length))
    const lowering: number[] = []
    for (let j = 0; j < n; j++) {
      const s = data[3 * j]
      let k = this.slotOf.get(s)
      if (k === undefined) {
        k = this.series.length
        this.slotOf.set(s, k)
        this.series.push(s)
        this.counts.push(0)
        this.mins.push(Infinity)
        this.first.push(-1)
        this.last.push(-1)
        this.batchMins.push(Infinity)
      }
      this.slot[j] = k
      const t = data[3 * j + 1]
      if (t < this.batchMins[k] && t < this.mins[k]) {
        if (this.batchMins[k] === Infinity) lowering.push(k)
        this.batchMins[k] = t
      }
    }
    return lowering.map((k) => {
      const time = this.batchMins[k]
      this.batchMins[k] = Infinity
      return [this.series[k], time]
    })
  }

  /** Keeps `data`, numbered by slotsOf() just before. */
  add(data: Float64Array): void {
    const n = data.length / 3
    if (this.rows + n > this.rowNext.length) this.grow(Math.max(2 * this.rowNext.length, this.rows + n))
    this.data.set(data, 3 * this.rows)
    for (let j = 0; j < n; j++) {
      const k = this.slot[j]
      const row = this.rows + j
      this.rowNext[row] = -1
      if (this.counts[k] === 0) this.first[k] = row
      else this.rowNext[this.last[k]] = row
      this.last[k] = row
      this.counts[k]++
      if (data[3 * j + 1] < this.mins[k]) this.mins[k] = data[3 * j + 1]
    }
    this.rows += n
  }

  /** All rows, packed in commit order (a view: valid until the next add()). */
  all(): Float64Array {
    return this.data.subarray(0, 3 * this.rows)
  }

  /** The series' earliest time among these rows (undefined: none). */
  min(series: number): number | undefined {
    const k = this.slotOf.get(series)
    return k === undefined || this.counts[k] === 0 ? undefined : this.mins[k]
  }

  /** The slots that have rows, by ascending series. */
  slotsBySeries(): number[] {
    return this.series.map((_, k) => k).filter((k) => this.counts[k] > 0).sort((a, b) => this.series[a] - this.series[b])
  }

  /**
   * The rows of `slots` packed in that order, each series' rows in arrival order: the insert
   * orders them by time (writeOrder, sqlite-batch.ts; a pass that finds them in order already
   * when they arrived so).
   */
  packed(slots: readonly number[]): Float64Array {
    let n = 0
    for (const k of slots) n += this.counts[k]
    const out = new Float64Array(3 * n)
    const d = this.data
    let o = 0
    for (const k of slots) {
      for (let r = this.first[k]; r !== -1; r = this.rowNext[r]) {
        const i = 3 * r
        out[o] = d[i]
        out[o + 1] = d[i + 1]
        out[o + 2] = d[i + 2]
        o += 3
      }
    }
    return out
  }

  private grow(size: number): void {
    const data = new Float64Array(3 * size)
    const next = new Int32Array(size)
    data.set(this.all())
    next.set(this.rowNext.subarray(0, this.rows))
    this.data = data
    this.rowNext = next
  }
}

interface Frozen {
  /** Rows at rowid <= frozenTo are being compacted. */
  frozenTo: number
  /** The frozen rows. */
  rows: ActiveRows
  /** Their slots by ascending series, cut into the parts compacted a step each. */
  parts: number[][]
  next: number
  /** Rows not compacted yet. */
  left: number
  /** Once every part is in: frozen rows at rowid <= deletedTo are gone. */
  deletedTo: number
}

export class IngestTail {
  private readonly insert: PackedInsert
  private readonly mark: BetterSqlite3.Statement
  private readonly unmark: BetterSqlite3.Statement
  private readonly topRowid: BetterSqlite3.Statement
  private readonly minRowid: BetterSqlite3.Statement
  private readonly dropFrozen: BetterSqlite3.Statement
  private readonly appendTx: (data: Float64Array, lowered: Array<[number, number]>) => void
  private readonly stepTx: (part: Float64Array, series: readonly number[]) => void
  private readonly allTx: (data: Float64Array) => void

  /** Rows appended since the last freeze. */
  private active = new ActiveRows()
  /** What tail_series holds: per series its earliest time not yet compacted. */
  private tailMin = new Map<number, number>()
  private frozen: Frozen | undefined
  /** Date.now() when the oldest active row was committed. */
  private since = 0

  constructor (
    private readonly db: BetterSqlite3.Database,
    /** Inserts packed rows, in any order (equal keys: the later wins), into obs and the rollups (the writer's insert, inside a transaction). */
    private readonly insertRows: (data: Float64Array) => void,
    /** Called when a compaction transaction rolled back (the rollups' memory must be dropped). */
    private readonly rolledBack: () => void,
    private readonly stepSize: StepSize = { series: STEP_SERIES, rows: STEP_ROWS },
  ) {
    this.insert = packedInsert(db, 'INSERT', 'obs_tail')
    this.mark = db.prepare('INSERT OR REPLACE INTO tail_series (series, min_time) VALUES (?, ?)')
    this.unmark = db.prepare('DELETE FROM tail_series WHERE series = ?')
    this.topRowid = db.prepare('SELECT max(rowid) FROM obs_tail').pluck()
    this.minRowid = db.prepare('SELECT min(rowid) FROM obs_tail').pluck()
    this.dropFrozen = db.prepare('DELETE FROM obs_tail WHERE rowid <= ?')
    this.appendTx = db.transaction((data: Float64Array, lowered: Array<[number, number]>) => {
      this.insert(data)
      for (const [series, time] of lowered) this.mark.run(series, time)
    })
    this.stepTx = db.transaction((part: Float64Array, series: readonly number[]) => this.writeStep(part, series))
    this.allTx = db.transaction((data: Float64Array) => {
      if (data.length > 0) this.insertRows(data)
      db.exec('DELETE FROM obs_tail; DELETE FROM tail_series')
    })
    this.load()
  }

  /** Rows in the tail (frozen ones not yet compacted included). */
  get rows(): number {
    return this.active.rows + (this.frozen ? this.frozen.left : 0)
  }

  /** Whether a compaction is under way (steps left). */
  get compacting(): boolean {
    return this.frozen !== undefined
  }

  /** Milliseconds the oldest active row has waited (0: none). */
  age(now = Date.now()): number {
    return this.active.rows > 0 ? now - this.since : 0
  }

  /** Commits rows to the tail in one transaction; what is kept here changes only once it committed. */
  append(data: Float64Array): void {
    // tail_series moves only for series whose earliest tail time this append lowers. That
    // can only be a series whose earliest active time it lowers (or that has no active rows):
    // the tail's earliest time is never later than the active rows' earliest.
    const lowered = this.active.slotsOf(data).filter(([series, time]) => {
      const m = this.tailMin.get(series)
      return m === undefined || time < m
    })
    this.appendTx(data, lowered)
    for (const [series, time] of lowered) this.tailMin.set(series, time)
    if (this.active.rows === 0) this.since = Date.now()
    this.active.add(data)
  }

  /** Freezes the active rows for compaction in steps (none under way). */
  freeze(): void {
    const rows = this.active
    if (this.frozen || rows.rows === 0) return
    const parts: number[][] = []
    let part: number[] = []
    let partRows = 0
    for (const k of rows.slotsBySeries()) {
      if (part.length > 0 && (part.length >= this.stepSize.series || partRows >= this.stepSize.rows)) {
        parts.push(part)
        part = []
        partRows = 0
      }
      part.push(k)
      partRows += rows.counts[k]
    }
    parts.push(part)
    const deletedTo = (this.minRowid.get() as number) - 1
    this.frozen = { frozenTo: this.topRowid.get() as number, rows, parts, next: 0, left: rows.rows, deletedTo }
    this.active = new ActiveRows()
  }

  /** Compacts the next part of the frozen rows, or deletes the next frozen rows once all are in; false when there was nothing to do. */
  step(): boolean {
    const f = this.frozen
    if (!f) return false
    if (f.next === f.parts.length) {
      // A single statement is its own transaction.
      f.deletedTo = Math.min(f.deletedTo + (this.stepSize.deleteRows ?? DELETE_ROWS), f.frozenTo)
      this.dropFrozen.run(f.deletedTo)
      if (f.deletedTo === f.frozenTo) this.frozen = undefined
      return true
    }
    const slots = f.parts[f.next]
    const series = slots.map((k) => f.rows.series[k])
    const part = f.rows.packed(slots)
    try { this.stepTx(part, series) } catch (err) { this.rolledBack(); throw err }
    f.next++
    f.left -= part.length / 3
    for (const s of series) {
      const m = this.active.min(s)
      if (m === undefined) this.tailMin.delete(s)
      else this.tailMin.set(s, m)
    }
    return true
  }

  /** Compacts the whole tail in one transaction (before a delete, a replaced range, a close). */
  compactAll(): void {
    // Frozen rows waiting for deletion count no rows but must go too: a replaced range would
    // otherwise leave old values behind in the tail.
    if (this.rows === 0 && !this.frozen) return
    const f = this.frozen
    const data = concat([...(f ? [f.rows.packed(f.parts.slice(f.next).flat())] : []), this.active.all()])
    try { this.allTx(data) } catch (err) { this.rolledBack(); throw err }
    this.frozen = undefined
    this.active = new ActiveRows()
    this.tailMin = new Map()
  }

  private writeStep(part: Float64Array, series: readonly number[]): void {
    this.insertRows(part)
    for (const s of series) {
      const m = this.active.min(s)
      if (m === undefined) this.unmark.run(s)
      else this.mark.run(s, m)
    }
  }

  private load(): void {
    this.tailMin = new Map(this.db.prepare('SELECT series, min_time FROM tail_series').raw().all() as Array<[number, number]>)
    const rows = this.db.prepare('SELECT series, time, value FROM obs_tail ORDER BY rowid').raw().all() as number[][]
    if (rows.length === 0) return
    const data = new Float64Array(rows.length * 3)
    for (let i = 0; i < rows.length; i++) { data[3 * i] = rows[i][0]; data[3 * i + 1] = rows[i][1]; data[3 * i + 2] = rows[i][2] }
    this.active.slotsOf(data)
    this.active.add(data)
    this.since = Date.now()
  }
}
