// The catalog port's contract (test/catalog/contract.ts) run against the PostgreSQL adapter,
// each test on a database of its own; then what only this adapter has: migrations applied
// once by processes opening one database at once, and change notifications between them.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { PostgresCatalog } from '../../catalog/postgres-catalog.ts'
import { CREDENTIALS } from '../../catalog/changes.ts'
import type { ChangePayload } from '../../catalog/port.ts'
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
