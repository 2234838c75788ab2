// A platform on an in-memory catalog with one seeded company, and small request helpers.
// LINTEL_TEST_CATALOG=postgres runs it on a PostgreSQL catalog of its own instead (a test
// database, test/helpers/postgres.ts): any test built on it then proves the platform there.
import type { FastifyInstance, InjectOptions } from 'fastify'
import type { Test } from 'tap'
import { buildApp } from '../../api/app.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { PostgresCatalog } from '../../catalog/postgres/catalog.ts'
import { createTestDatabase } from './postgres.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { ObservationBus, observedStore } from '../../engine/observation-bus.ts'
import { busFeed } from '../../engine/live/feed.ts'
import { VdpRuntime } from '../../engine/vdp/runtime.ts'
import { ProjectRuntimes } from '../../engine/project-runtimes.ts'
import { Documents } from '../../engine/blobs/documents.ts'
import { openFsBlobStore } from '../../engine/blobs/fs-store.ts'
import type { BlobStore } from '../../engine/blobs/port.ts'
import { MICROS_PER_MS, systemClock } from '../../core/clock/clock.ts'

export interface Login { email: string; password: string }
export interface Platform {
  app: FastifyInstance
  catalog: Catalog
  admin: Login & { id: number; companyId: number }
  vdpRuntime: VdpRuntime
  documents: Documents
  call: (who: Login | string | null, method: InjectOptions['method'], url: string, body?: unknown) => Promise<{ status: number; body: any }>
}

export const basic = (l: Login) => 'Basic ' + Buffer.from(`${l.email}:${l.password}`).toString('base64')

/** @param opts.now the clock of the catalog (MQTT account expiry) and of documents (link expiry), ms */
export async function platform(t: Test, opts: { store?: TimeseriesStore; company?: string; blobs?: BlobStore; now?: () => number } = {}): Promise<Platform> {
  const { catalog, dropCatalog } = await testCatalog(opts.now)
  const company = opts.company ?? 'Acme'
  const admin = { email: `admin@${company.toLowerCase()}.test`, password: 'admin-pass-1' }
  const { user } = await catalog.createCompanyWithAdmin(company, admin)
  const raw = opts.store ?? await openSqliteStore({ dir: t.testdir() })
  const bus = new ObservationBus()
  const store = observedStore(raw, bus)
  const vdpRuntime = new VdpRuntime({ catalog, store: raw, ingest: (_p, batch) => store.append(batch), bus, log: { info: () => {}, error: () => {} } })
  const runtimes = new ProjectRuntimes()
  runtimes.register('virtual datapoints', vdpRuntime)
  const blobs = opts.blobs ?? await openFsBlobStore({ dir: t.testdir() + '/files', host: '127.0.0.1', port: 0 })
  // Tests move the documents' time back and forth (link expiry): only now() follows opts.now.
  const documents = new Documents(catalog.files, blobs, { clock: opts.now ? { ...systemClock, now: () => opts.now!() * MICROS_PER_MS } : undefined })
  const app = await buildApp({ catalog, store, logger: false, vdpRunner: vdpRuntime, documents, onProjectDeleting: (id) => runtimes.stopProject(id), liveFeed: busFeed(bus) })
  t.teardown(async () => { vdpRuntime.stopAll(); await app.close(); await catalog.close(); await dropCatalog(); if (!opts.store) await raw.close(); if (!opts.blobs) await blobs.close() })
  const call: Platform['call'] = async (who, method, url, body) => {
    const headers: Record<string, string> = {}
    if (who !== null) headers.authorization = typeof who === 'string' ? `Bearer ${who}` : basic(who)
    const res = await app.inject({ method, url, headers, ...(body === undefined ? {} : { payload: body as InjectOptions['payload'] }) })
    let parsed: unknown = res.body
    try { parsed = JSON.parse(res.body) } catch { /* not JSON */ }
    return { status: res.statusCode, body: parsed }
  }
  return { app, catalog, vdpRuntime, documents, admin: { ...admin, id: user.id, companyId: user.company_id }, call }
}

/** The catalog of a test platform: SQLite in memory, or (LINTEL_TEST_CATALOG=postgres) a PostgreSQL test database. */
export async function testCatalog(now?: () => number): Promise<{ catalog: Catalog; dropCatalog: () => Promise<void> }> {
  if (process.env.LINTEL_TEST_CATALOG !== 'postgres') return { catalog: Catalog.open(':memory:', adminEndpoints, { now }), dropCatalog: async () => {} }
  const db = await createTestDatabase()
  return { catalog: await PostgresCatalog.open(db.url, adminEndpoints, { now }), dropCatalog: db.drop }
}

/** Creates a user in the admin's company through the API and returns its login. */
export async function addUser(p: Platform, name: string): Promise<Login & { id: number }> {
  const login = { email: `${name}@${p.admin.email.split('@')[1]}`, password: `${name}-password` }
  const res = await p.call(p.admin, 'POST', '/v2/company/user', {
    company_id: p.admin.companyId, firstName: name, lastName: 'Test', ...login,
  })
  if (res.status !== 201) throw new Error(`addUser failed: ${JSON.stringify(res.body)}`)
  return { ...login, id: res.body.resource.id }
}

export async function addProject(p: Platform, who: Login, name: string): Promise<{ id: number; adminRoleId: number }> {
  const res = await p.call(who, 'POST', '/v2/company/project', { name })
  if (res.status !== 201) throw new Error(`addProject failed: ${JSON.stringify(res.body)}`)
  return { id: res.body.resource.project.id, adminRoleId: res.body.resource.role.id }
}
