// Opens the catalog database (SQLite, WAL) and applies pending migrations.
import type BetterSqlite3 from 'better-sqlite3'
import { Database } from './sqlite-driver.ts'
import { mkdirSync } from 'node:fs'
import { join } from 'node:path'
import { migrations } from './migrations.ts'

export type Db = BetterSqlite3.Database

export function openCatalogDb(dataDir: string | ':memory:'): Db {
  let db: Db
  if (dataDir === ':memory:') db = new Database(':memory:')
  else {
    mkdirSync(dataDir, { recursive: true })
    db = new Database(join(dataDir, 'catalog.db'))
  }
  db.pragma('journal_mode = WAL')
  // WAL + NORMAL: a committed transaction survives a process crash; only an OS crash can
  // lose the last commits. The catalog is small, so FULL would also be affordable; NORMAL
  // keeps admin writes from waiting on fsync.
  db.pragma('synchronous = NORMAL')
  db.pragma('foreign_keys = ON')
  db.pragma('busy_timeout = 5000')
  migrate(db)
  return db
}

export function migrate(db: Db): void {
  // BEGIN IMMEDIATE and the version read inside the transaction: processes of the scaled
  // mode that open one data directory at the same time apply each migration exactly once.
  const step = db.transaction((): boolean => {
    const v = db.pragma('user_version', { simple: true }) as number
    if (v >= migrations.length) return false
    db.exec(migrations[v])
    db.pragma(`user_version = ${v + 1}`)
    return true
  })
  while (step.immediate()) { /* next migration */ }
}

/** Prepared statements cached by SQL text: preparing costs more than running a point query. */
export function statements(db: Db): (sql: string) => BetterSqlite3.Statement {
  const cache = new Map<string, BetterSqlite3.Statement>()
  return (sql) => {
    let s = cache.get(sql)
    if (!s) cache.set(sql, s = db.prepare(sql))
    return s
  }
}
