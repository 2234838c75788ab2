// A PostgreSQL database of the test's own: `lintel_test_<random>` created on the server of
// LINTEL_TEST_POSTGRES_URL, else the machine's 127.0.0.1:5432 (user postgres, trust auth),
// else the cluster scripts/services/postgres.sh starts where none runs there (:15432) and dropped in teardown. Unreachable: fails in CI, skips elsewhere.
import { randomBytes } from 'node:crypto'
import pg from 'pg'
import type { Test } from 'tap'
import { reachable, requireService } from './services.ts'

const candidates = process.env.LINTEL_TEST_POSTGRES_URL
  ? [process.env.LINTEL_TEST_POSTGRES_URL]
  : [5432, Number(process.env.LINTEL_TEST_POSTGRES_PORT ?? 15432)].map((port) => `postgres://postgres@127.0.0.1:${port}/postgres`)
let chosen: string | undefined

/** The server's URL: LINTEL_TEST_POSTGRES_URL, else the first of :5432 (the machine's) and :15432 (ours) that answers. */
async function serverUrl(): Promise<string> {
  if (chosen) return chosen
  for (const c of candidates) {
    const u = new URL(c)
    if (await reachable(u.hostname, Number(u.port || 5432), 300)) return (chosen = c)
  }
  return candidates[0]
}

/** The URL of a fresh, empty database dropped when `t` ends; undefined when skipped. */
export async function testDatabase(t: Test): Promise<string | undefined> {
  const server = new URL(await serverUrl())
  if (!(await requireService(t, 'PostgreSQL', server.hostname, Number(server.port || 5432), 'scripts/services/postgres.sh start'))) return undefined
  const db = await createTestDatabase()
  t.teardown(db.drop)
  return db.url
}

/** A fresh database and its drop, for callers that must close their connections first. */
export async function createTestDatabase(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `lintel_test_${randomBytes(6).toString('hex')}`
  await admin((c) => c.query(`CREATE DATABASE ${name}`))
  const url = new URL(await serverUrl())
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => admin((c) => c.query(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`)) }
}

async function admin(fn: (c: pg.Client) => Promise<unknown>): Promise<void> {
  const c = new pg.Client({ connectionString: await serverUrl() })
  await c.connect()
  try { await fn(c) } finally { await c.end() }
}
