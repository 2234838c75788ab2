// Issue 17, items 1 and 4, end to end: two API nodes (two apps, each with its own PostgreSQL
// catalog connection, as two processes would have) on one PostgreSQL database. A project
// created and written on one node is read back on the other; a password changed, a token
// revoked or a user deleted on one node stops working on the other within 1 s, cached
// Basic login included (the credentials change of catalog/port.ts).
import t, { type Test } from 'tap'
import type { FastifyInstance } from 'fastify'
import { buildApp } from '../../api/app.ts'
import { Authenticator } from '../../api/authenticate.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { PostgresCatalog } from '../../catalog/postgres/catalog.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import type { TimeseriesStore } from '../../engine/store/port.ts'
import { basic, type Login } from '../helpers/platform.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { waitFor } from '../helpers/wait.ts'

/** An API node: its own catalog connection; the store is shared, as QuestDB is in the scaled mode. */
async function node(t: Test, url: string, store: TimeseriesStore) {
  const catalog = await PostgresCatalog.open(url, adminEndpoints)
  const app: FastifyInstance = await buildApp({ catalog, store, logger: false })
  t.teardown(async () => { await app.close(); await catalog.close() })
  return async (who: Login | string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', path: string, body?: unknown) => {
    const res = await app.inject({ method, url: path, headers: { authorization: typeof who === 'string' ? `Bearer ${who}` : basic(who) }, ...(body === undefined ? {} : { payload: body as object }) })
    return { status: res.statusCode, body: res.json() }
  }
}

t.test('two API nodes on one PostgreSQL catalog', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const setup = await PostgresCatalog.open(url, adminEndpoints)
  const admin = { email: 'admin@acme.test', password: 'admin-pass-1' }
  const { user } = await setup.createCompanyWithAdmin('Acme', admin)
  await setup.close()
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const a = await node(t, url, store)
  const b = await node(t, url, store)

  // One full path across nodes: a project made on A, written on A, read back on B.
  const made = await a(admin, 'POST', '/v2/company/project', { name: 'Plant' })
  t.equal(made.status, 201)
  const projectId = made.body.resource.project.id
  const written = await a(admin, 'POST', `/v2/project/${projectId}/timeseries`, { temp: [{ time: '2024-01-01T00:00:00Z', value: 21.5 }, { time: '2024-01-01T00:01:00Z', value: 22 }] })
  t.same(written, { status: 200, body: { success: true, operation: '', resource: {} } })
  const read = await b(admin, 'GET', `/v2/datapoint/timeseries?project_id=${projectId}&dataPointID=temp`)
  t.equal(read.status, 200)
  t.same(read.body.data, [{ time: '2024-01-01T00:00:00Z', value: 21.5 }, { time: '2024-01-01T00:01:00Z', value: 22 }], 'read back on the other node')

  // A user logged in (cached) on B changes the password on A: B refuses the old one within 1 s.
  const u = { email: 'u@acme.test', password: 'user-pass-1' }
  t.equal((await a(admin, 'POST', '/v2/company/user', { company_id: user.company_id, firstName: 'U', lastName: 'V', ...u })).status, 201)
  t.equal((await b(u, 'GET', '/v2/user')).status, 200, 'B has verified and cached the login')
  const token = (await b(u, 'POST', '/v2/auth/token')).body.resource.access_token as string
  t.equal((await a(token, 'GET', '/v2/user')).status, 200, 'the token works on both nodes')
  t.equal((await a(u, 'PUT', '/v2/user', { password: 'user-pass-2', current_password: u.password })).status, 200)
  const changedAt = Date.now() // committed: the clock of "within 1 s" starts
  await waitFor(async () => (await b(u, 'GET', '/v2/user')).status === 401, { what: 'node B to refuse the old password', timeoutMs: 1000 })
  t.ok(Date.now() - changedAt <= 1000, 'within 1 s')
  t.equal((await b(token, 'GET', '/v2/user')).status, 401, 'the tokens of the old password are gone on B too')
  const u2 = { ...u, password: 'user-pass-2' }
  t.equal((await b(u2, 'GET', '/v2/user')).status, 200, 'the new password works on B')

  // A token revoked on B stops working on A.
  const t2 = (await a(u2, 'POST', '/v2/auth/token')).body.resource.access_token as string
  t.equal((await a(t2, 'GET', '/v2/user')).status, 200)
  t.equal((await b(t2, 'DELETE', '/v2/auth/token')).status, 200)
  await waitFor(async () => (await a(t2, 'GET', '/v2/user')).status === 401, { what: 'node A to refuse the revoked token', timeoutMs: 1000 })

  // A user deleted on A can no longer log in on B (cached there a moment ago).
  t.equal((await b(u2, 'GET', '/v2/user')).status, 200)
  t.equal((await a(u2, 'DELETE', '/v2/user')).status, 200)
  await waitFor(async () => (await b(u2, 'GET', '/v2/user')).status === 401, { what: 'node B to refuse the deleted user', timeoutMs: 1000 })
})

t.test('the Basic cache of one node drops a login changed on another', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const [a, b] = await Promise.all([PostgresCatalog.open(url, adminEndpoints), PostgresCatalog.open(url, adminEndpoints)])
  t.teardown(async () => { await a.close(); await b.close() })
  const login = { email: 'admin@acme.test', password: 'admin-pass-1' }
  const { user } = await a.createCompanyWithAdmin('Acme', login)
  const auth = new Authenticator(b)
  t.teardown(() => auth.close())
  await auth.authenticate(basic(login))
  t.equal(auth.cachedLogins, 1)
  await a.users.update(user.id, { lastName: 'Renamed' })
  await waitFor(() => auth.cachedLogins === 0, { what: 'the credentials change to reach node B', timeoutMs: 1000 })
})
