// Table rebuilds for the SQLite catalog's migrations (catalog/sqlite/migrations.ts): SQLite
// cannot alter a column's definition, so a migration that must do so copies the table.
import type Database from 'better-sqlite3'

export type Migration = string | ((db: Database.Database) => void)

/**
 * Rebuilds `table` with `id INTEGER PRIMARY KEY AUTOINCREMENT`, keeping every row, column
 * (also columns other migrations added), index and trigger. Only under foreign keys OFF:
 * children keep their rows and their REFERENCES by name reach the new table.
 */
export function addAutoincrement(db: Database.Database, table: string): void {
  const sql = db.prepare("SELECT sql FROM sqlite_master WHERE type = 'table' AND name = ?").pluck().get(table) as string | undefined
  if (sql === undefined || /\bAUTOINCREMENT\b/i.test(sql)) return
  const tmp = `${table}__rebuild`
  const create = sql
    .replace(/^CREATE TABLE\s+("?)[A-Za-z_]+\1/i, `CREATE TABLE "${tmp}"`)
    .replace(/\bid\s+INTEGER\s+PRIMARY\s+KEY\b/i, 'id INTEGER PRIMARY KEY AUTOINCREMENT')
  if (!create.includes('AUTOINCREMENT') || !create.includes(tmp)) throw new Error(`cannot rebuild table ${table}: unexpected definition ${sql}`)
  const extras = db.prepare("SELECT sql FROM sqlite_master WHERE tbl_name = ? AND type IN ('index', 'trigger') AND sql IS NOT NULL").pluck().all(table) as string[]
  db.exec(create)
  db.exec(`INSERT INTO "${tmp}" SELECT * FROM "${table}"`)
  db.exec(`DROP TABLE "${table}"`)
  db.exec(`ALTER TABLE "${tmp}" RENAME TO "${table}"`)
  for (const x of extras) db.exec(x)
}
