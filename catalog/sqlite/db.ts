// Opens the catalog database (SQLite, WAL) and applies pending migrations.
import type BetterSqlite3 from 'better-sqlite3'
import { Database } from '../../core/sqlite-driver.ts'
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
  // A migration given as a function rebuilds tables: it runs with foreign keys OFF (SQLite's
  // "generalized ALTER TABLE" procedure; the pragma is a no-op inside a transaction, so it is
  // switched here, around it), because with them ON a DROP TABLE of a parent deletes its rows
  // first and that DELETE cascades into every child table, those of other migrations too.
  // Before its COMMIT, PRAGMA foreign_key_check must find nothing, or it rolls back.
  const step = db.transaction((fkOff: boolean): boolean => {
    const v = db.pragma('user_version', { simple: true }) as number
    if (v >= migrations.length) return false
    const m = migrations[v]
    // Another process got here first with a migration of the other kind: read again.
    if ((typeof m !== 'string') !== fkOff) return true
    if (typeof m === 'string') db.exec(m)
    else {
      m(db)
      const broken = db.pragma('foreign_key_check') as { table: string; parent: string }[]
      if (broken.length > 0) throw new Error(`catalog migration ${v + 1} broke ${broken.length} foreign key(s), e.g. ${broken[0].table} -> ${broken[0].parent}`)
    }
    db.pragma(`user_version = ${v + 1}`)
    return true
  })
  for (;;) {
    const v = db.pragma('user_version', { simple: true }) as number
    const off = v < migrations.length && typeof migrations[v] !== 'string'
    if (off) db.pragma('foreign_keys = OFF')
    try {
      if (!step.immediate(off)) break
    } finally {
      if (off) db.pragma('foreign_keys = ON')
    }
  }
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
