// Retention in the SQLite store (issue 34 item 2), run by the writer worker between appends:
// one call removes, of the given series, raw rows before a bound and rollup rows of buckets
// that end at or before a bound per level, at most `maxRows` rows in one transaction, then
// returns up to VACUUM_PAGES freed pages to the file system (auto_vacuum = INCREMENTAL,
// sqlite-schema.ts; the checkpointer's next pass truncates the file). Small steps: an append
// waits for one step at most (a step of 20,000 rows: ~10-20 ms on the 2-core machine).
//
// Each series is cut through its primary key: the time of the maxRows-th row before the bound
// bounds a range delete, so no step scans more than it deletes. Rows in the ingest tail are
// in obs first: when the tail holds a row of one of the series before the raw bound (late
// data; live rows are newer than any retention), the writer compacts the whole tail before the
// step (sqlite-writer.ts), so what a step leaves before its bound is nothing.
// Raw rows leave their rollups in place (kept by the rollup levels' own retention); what the
// writer remembers of a trimmed series is forgotten (sqlite-rollups.ts).
import type BetterSqlite3 from 'better-sqlite3'
import type { TrimBounds, TrimResult } from './port.ts'
import type { RollupMaintainer } from './sqlite-rollups.ts'

/** Free pages given back per step (8 MiB at 4 KiB pages). */
const VACUUM_PAGES = 2048

type DB = BetterSqlite3.Database

export interface Trimmer {
  /** Whether the ingest tail holds a row of one of `series` before `raw` (then compact it first). */
  inTail(series: readonly number[], raw: number | undefined): boolean
  step(series: readonly number[], b: TrimBounds, maxRows: number): TrimResult
}

export function trimmer(db: DB, rollups: RollupMaintainer): Trimmer {
  const tailBefore = db.prepare('SELECT 1 FROM tail_series WHERE series IN (SELECT value FROM json_each(?)) AND min_time < ? LIMIT 1').pluck()
  const nthRaw = db.prepare('SELECT time FROM obs WHERE series = ? AND time < ? ORDER BY time LIMIT 1 OFFSET ?').pluck()
  const delRaw = db.prepare('DELETE FROM obs WHERE series = ? AND time < ?')
  const nthRollup = db.prepare('SELECT bucket FROM rollup WHERE series = ? AND level = ? AND bucket < ? ORDER BY bucket LIMIT 1 OFFSET ?').pluck()
  const delRollup = db.prepare('DELETE FROM rollup WHERE series = ? AND level = ? AND bucket < ?')
  const freePages = db.prepare('PRAGMA freelist_count').pluck()
  // An older file without auto_vacuum keeps its free pages for new rows (only VACUUM shrinks it).
  const incremental = db.pragma('auto_vacuum', { simple: true }) === 2
  const free = (): number => incremental ? freePages.get() as number : 0

  /** Deletes at most `budget` rows below `bound` through nth/del; the rows deleted. */
  const cut = (nth: BetterSqlite3.Statement, del: BetterSqlite3.Statement, keys: unknown[], bound: number, budget: number): number => {
    const at = nth.get(...keys, bound, budget - 1) as number | undefined
    return del.run(...keys, at === undefined ? bound : Math.min(bound, at + 1)).changes
  }

  const step = db.transaction((series: readonly number[], b: TrimBounds, maxRows: number): TrimResult => {
    let rows = 0
    for (const s of series) {
      const before = rows
      if (b.raw !== undefined && rows < maxRows) rows += cut(nthRaw, delRaw, [s], b.raw, maxRows - rows)
      for (const r of b.rollups ?? []) {
        // bucket + level <= before  <=>  bucket < before - level + 1 (integers)
        if (rows < maxRows) rows += cut(nthRollup, delRollup, [s, r.level], r.before - r.level + 1, maxRows - rows)
      }
      if (rows > before) rollups.forget(s)
      if (rows >= maxRows) return { rows, more: true }
    }
    return { rows, more: false }
  })

  return {
    inTail: (series, raw) => raw !== undefined && tailBefore.get(JSON.stringify(series), raw) !== undefined,
    step: (series, b, maxRows) => stepAndVacuum(series, b, maxRows),
  }

  function stepAndVacuum(series: readonly number[], b: TrimBounds, maxRows: number): TrimResult {
    const r = step(series, b, Math.max(1, maxRows))
    // Outside the transaction: incremental_vacuum commits on its own (a no-op without auto_vacuum).
    if (free() > 0) db.pragma(`incremental_vacuum(${VACUUM_PAGES})`)
    return { rows: r.rows, more: r.more || free() > 0 }
  }
}
