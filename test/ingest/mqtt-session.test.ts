// MqttAuthenticator: sessions carry the account's reach and session scope; an unknown
// username costs what a wrong password of a known one costs (issue 9, item 6).
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { sqliteConnectionForTests } from '../../catalog/sqlite/catalog.ts'
import { MqttAuthenticator } from '../../ingest/mqtt/session.ts'

t.test('unknown and known usernames take the same time to refuse', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  await catalog.mqttAccounts.create(project.id, { username: 'known', password: 'known-password', rights: 'write', validUntil: null })
  const auth = new MqttAuthenticator(catalog)
  const time = async (username: string) => {
    const s = process.hrtime.bigint()
    t.equal(await auth.authenticate(username, Buffer.from('wrong-password')), undefined)
    return Number(process.hrtime.bigint() - s) / 1e6
  }
  await time('warm-up')
  const known: number[] = []
  const unknown: number[] = []
  for (let i = 0; i < 7; i++) { known.push(await time('known')); unknown.push(await time(`ghost-${i}`)) }
  const median = (xs: number[]) => xs.sort((a, b) => a - b)[Math.floor(xs.length / 2)]
  const ratio = median(unknown) / median(known)
  t.ok(ratio > 0.5 && ratio < 2, `median unknown/known = ${ratio.toFixed(2)} (${median(unknown).toFixed(1)} ms / ${median(known).toFixed(1)} ms)`)

  const s = await auth.authenticate('known', Buffer.from('known-password'))
  t.match(s, { username: 'known', projectId: project.id, rights: 'write', reach: { write: { all: true }, read: { all: true } }, sessionScope: /^[0-9a-f]{24}$/ })
})

t.test('reach and session scope come from the account; a missing reach row fails closed', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const narrow = { write: { all: false, auths: [{ id: 1, key: 'room', value: 'A', read: true, write: true }] }, read: { all: false, auths: [] } }
  const a = await catalog.mqttAccounts.create(project.id, { username: 'n1', password: 'n1-password', rights: 'write', validUntil: Date.now() + 60_000, reach: narrow })
  const b = await catalog.mqttAccounts.create(project.id, { username: 'n2', password: 'n2-password', rights: 'write', validUntil: Date.now() + 60_000, reach: narrow })
  const auth = new MqttAuthenticator(catalog)
  const s1 = await auth.authenticate('n1', Buffer.from('n1-password'))
  const s2 = await auth.authenticate('n2', Buffer.from('n2-password'))
  t.same(s1!.reach, narrow)
  t.not(s1!.sessionScope, s2!.sessionScope, 'every account has its own scope')
  sqliteConnectionForTests(catalog).prepare('DELETE FROM mqtt_account_reach WHERE account_id = ?').run(a.id)
  t.same((await auth.authenticate('n1', Buffer.from('n1-password')))!.reach, { write: { all: false, auths: [] }, read: { all: false, auths: [] } })
  await catalog.mqttAccounts.delete(project.id, b.id)
  t.equal(sqliteConnectionForTests(catalog).prepare('SELECT COUNT(*) FROM mqtt_account_reach WHERE account_id = ?').pluck().get(b.id), 0, 'deleted with its account')
})
