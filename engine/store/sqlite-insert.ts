// Inserting packed [series, time, value] rows (sqlite-batch.ts) with a prepared multi-row
// INSERT: fewer calls into SQLite (measured +20% against one row per statement). Used by the
// writer for obs (INSERT OR REPLACE, in write order) and by the ingest tail (arrival order).
import type BetterSqlite3 from 'better-sqlite3'

/** Rows bound by one statement. */
const ROWS_PER_STATEMENT = 64

/** Inserts rows of `data` in the order given (default: as packed) into `table` (series, time, value). */
export type PackedInsert = (data: Float64Array, order?: ArrayLike<number>) => void

export function packedInsert(db: BetterSqlite3.Database, verb: 'INSERT' | 'INSERT OR REPLACE', table: string): PackedInsert {
  const sql = `${verb} INTO ${table} (series, time, value) VALUES `
  const one = db.prepare(sql + '(?, ?, ?)')
  const many = db.prepare(sql + new Array(ROWS_PER_STATEMENT).fill('(?, ?, ?)').join(', '))
  const params: number[] = new Array(ROWS_PER_STATEMENT * 3)
  return (data, order) => {
    const n = data.length / 3
    let k = 0
    for (; k + ROWS_PER_STATEMENT <= n; k += ROWS_PER_STATEMENT) {
      for (let j = 0; j < ROWS_PER_STATEMENT; j++) {
        const i = order ? 3 * order[k + j] : 3 * (k + j)
        params[3 * j] = data[i]
        params[3 * j + 1] = data[i + 1]
        params[3 * j + 2] = data[i + 2]
      }
      // Spread, not the array: better-sqlite3 reads an array parameter element by element
      // through property lookups; arguments are bound directly (~0.15 µs a row less, measured
      // on a 64-row INSERT into an in-memory table: 0.41-0.44 against 0.57-0.60 µs a row).
      many.run(...params)
    }
    for (; k < n; k++) {
      const i = order ? 3 * order[k] : 3 * k
      one.run(data[i], data[i + 1], data[i + 2])
    }
  }
}
