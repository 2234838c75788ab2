// The catalog port's contract (test/catalog/contract.ts) run against the PostgreSQL adapter,
// each test on a database of its own; then what only this adapter has: migrations applied
// once by processes opening one database at once, and change notifications between them.
import t from 'tap'
import pg from 'pg'
import { ConflictError } from '../../core/errors.ts'
import { adminEndpoints } from '../../api/registry.ts'
import { PostgresCatalog } from '../../catalog/postgres/catalog.ts'
import { CREDENTIALS } from '../../catalog/changes.ts'
import type { CatalogPort, ChangePayload } from '../../catalog/port.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { waitFor } from '../helpers/wait.ts'
import { catalogContract } from './contract.ts'

catalogContract(t, async (t) => {
  const url = await testDatabase(t)
  if (!url) throw new Error('PostgreSQL unreachable')
  const c = await PostgresCatalog.open(url, adminEndpoints)
  t.teardown(() => c.close())
  return c
})

t.test('two processes on one database: migrations once, changes reach both', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const [a, b] = await Promise.all([PostgresCatalog.open(url, adminEndpoints), PostgresCatalog.open(url, adminEndpoints)])
  t.teardown(async () => { await a.close(); await b.close() })
  const again = await PostgresCatalog.open(url, adminEndpoints) // idempotent
  await again.close()

  const heard: ChangePayload[] = []
  b.changes.subscribe('vdp', (p) => heard.push(p))
  await a.changes.publish('vdp', { id: 7, run: true })
  await waitFor(() => heard.length === 1, { what: 'the other process to hear the change' })
  t.same(heard, [{ id: 7, run: true }])
  await t.rejects(a.changes.publish('Bad Topic', {}), /topic/)

  const creds: ChangePayload[] = []
  b.changes.subscribe(CREDENTIALS, (p) => creds.push(p))
  const { company, user } = await a.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  await a.transaction(async (tx) => {
    await tx.users.update(user.id, { firstName: 'X' })
    t.same(creds, [], 'held back until the commit')
  })
  await waitFor(() => creds.length === 1, { what: 'the committed change' })
  t.same(creds, [{ userId: user.id }])
  await t.rejects(a.transaction(async (tx) => { await tx.users.delete(user.id); throw new Error('undo') }))
  await a.companies.delete(company.id)
  await waitFor(() => creds.length === 2, { what: 'the company deletion' })
  t.same(creds[1], {}, 'a rolled-back change announced nothing')
})

t.test('two writers create the same name at once: the loser gets the 409 the SQLite adapter gives', async (t) => {
  const url = await testDatabase(t)
  if (!url) return
  const [a, b] = await Promise.all([PostgresCatalog.open(url, adminEndpoints), PostgresCatalog.open(url, adminEndpoints)])
  const watch = new pg.Client({ connectionString: url })
  await watch.connect()
  t.teardown(async () => { await watch.end(); await a.close(); await b.close() })
  const { company, user } = await a.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await a.projects.create(company.id, { name: 'P' }, user.id)

  /**
   * A's create stays uncommitted until B's create of the same key waits on the unique index
   * (B's own check saw nothing): when A commits, B's insert clashes (SQLSTATE 23505).
   */
  const race = async <T>(what: string, create: (c: CatalogPort) => Promise<T>, text: string) => {
    let second: Promise<unknown> | undefined
    await a.transaction(async (tx) => {
      await create(tx)
      second = create(b).then(() => 'created', (err) => err)
      await waitFor(async () => (await watch.query("SELECT 1 FROM pg_stat_activity WHERE wait_event_type = 'Lock' AND datname = current_database()")).rowCount, { what: `${what}: the second writer to wait` })
    })
    const err = await second
    t.ok(err instanceof ConflictError, `${what}: a ConflictError (409)`)
    t.equal((err as Error).message, text, `${what}: the SQLite adapter's text`)
  }
  await race('company', (c) => c.companies.create('Beta'), "Company 'Beta' already exists")
  await race('user', (c) => c.users.create(company.id, { email: 'u@acme.test', password: 'u-pass-123', firstName: 'U', lastName: 'V' }), "A user with email 'u@acme.test' already exists")
  await race('role', (c) => c.roles.create(company.id, project.id, { name: 'ops' }), "A role named 'ops' already exists")
  await race('MQTT account', (c) => c.mqttAccounts.create(project.id, { username: 'dev', password: 'dev-pass-123', rights: 'write', validUntil: null }), "An MQTT account with username 'dev' already exists")
  await race('virtual datapoint', (c) => c.virtualDatapoints.create(project.id, { dataPointID: 'v', type: 'sum', description: '', pins: {}, parameters: {}, status_code: 0 }, 'created'),
    `A virtual datapoint 'v' already exists in project ${project.id}`)
  // Datapoints created by two writers at once are the same datapoint, no clash.
  const [x, y] = await Promise.all([a.datapoints.ensure(project.id, ['d1', 'd2']), b.datapoints.ensure(project.id, ['d2', 'd1'])])
  t.same(x, new Map([['d1', y.get('d1')], ['d2', y.get('d2')]]))
  const [e1, e2] = await Promise.all([a.entityTags.entity(project.id, 'datapoint', 'd3', true), b.entityTags.entity(project.id, 'datapoint', 'd3', true)])
  t.equal(e1, e2, 'META creating one datapoint on two nodes')
})
