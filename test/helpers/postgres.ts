// A PostgreSQL database of the test's own: `lintel_test_<random>` created on the server of
// LINTEL_TEST_POSTGRES_URL (default: the machine's 127.0.0.1:5432, user postgres, trust
// auth; scripts/services/postgres.sh starts one of the project's own where none runs and
// prints this variable) and dropped in teardown. Unreachable: fails in CI, skips elsewhere.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Test } from 'tap'
import { requireService } from './services.ts'

export const POSTGRES_SERVER_URL = process.env.LINTEL_TEST_POSTGRES_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'

/** The URL of a fresh, empty database dropped when `t` ends; undefined when skipped. */
export async function testDatabase(t: Test): Promise<string | undefined> {
  const server = new URL(POSTGRES_SERVER_URL)
  if (!(await requireService(t, 'PostgreSQL', server.hostname, Number(server.port || 5432), 'scripts/services/postgres.sh start'))) return undefined
  const db = await createTestDatabase()
  t.teardown(db.drop)
  return db.url
}

/** A fresh database and its drop, for callers that must close their connections first. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `lintel_test_${randomBytes(6).toString('hex')}`
  await admin((c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(POSTGRES_SERVER_URL)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

async function admin(fn: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: POSTGRES_SERVER_URL })
  await c.connect()
  try { await fn(c) } finally { await c.end() }
}
