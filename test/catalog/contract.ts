// The contract of the catalog port (catalog/port.ts): what callers rely on, written only
// against the port, so every adapter (SQLite now, PostgreSQL with issue 17) runs it unchanged
// through its own *.test.ts. `open` gives a fresh, empty catalog per test.
import type { Test } from 'tap'
import type { CatalogPort } from '../../catalog/port.ts'

/** Matches a typed catalog error by its HTTP status (core/errors.ts). */
const E = (status: number): Error => ({ status }) as unknown as Error

export type OpenCatalog = (t: Test) => Promise<CatalogPort>

async function seeded(t: Test, open: OpenCatalog) {
  const c = await open(t)
  const { company, user } = await c.createCompanyWithAdmin('Acme', { email: 'admin@acme.test', password: 'admin-pass-1' })
  const { project, role } = await c.projects.create(company.id, { name: 'P' }, user.id)
  return { c, company, user, project, role }
}

export function catalogContract(t: Test, open: OpenCatalog): void {
  t.test('companies: create with an admin role, names unique, update, delete with projects', async (t) => {
    const { c, company, user, project } = await seeded(t, open)
    t.same(await c.companies.get(company.id), { id: company.id, name: 'Acme', description: '' })
    t.same(await c.companies.findByName('Acme'), company)
    t.equal(await c.companies.findByName('nope'), undefined)
    await t.rejects(c.companies.create('Acme'), E(409))
    const b = await c.companies.create('Beta', 'second')
    t.same((await c.companies.list()).map((x) => x.name), ['Acme', 'Beta'])
    await t.rejects(c.companies.update(b.id, { name: 'Acme' }), E(409))
    t.same(await c.companies.update(b.id, { description: 'd' }), { id: b.id, name: 'Beta', description: 'd' })
    const admin = await c.companies.adminRoleId(company.id)
    t.same((await c.roles.rolesOfUser(user.id)).map((r) => r.id).includes(admin), true, 'the first user holds the admin role')
    t.same(await c.companies.delete(company.id), { company, projectIds: [project.id] })
    await t.rejects(c.companies.get(company.id), E(404))
    await t.rejects(c.projects.get(project.id), E(404), 'cascade')
  })

  t.test('users: unique email, hash only on request, update revokes tokens, delete', async (t) => {
    const { c, company, user } = await seeded(t, open)
    await t.rejects(c.users.create(company.id, { email: 'admin@acme.test', password: 'x-pass-123', firstName: 'a', lastName: 'b' }), E(409))
    const u = await c.users.create(company.id, { email: 'u@acme.test', password: 'u-pass-123', firstName: 'U', lastName: 'V' })
    t.same(u, { id: u.id, company_id: company.id, email: 'u@acme.test', firstName: 'U', lastName: 'V' })
    t.same(await c.users.get(u.id), u)
    t.match(await c.users.findWithHash(u.id), { ...u, password_hash: String })
    t.match(await c.users.findByEmailWithHash('u@acme.test'), { id: u.id, password_hash: String })
    t.equal(await c.users.findByEmailWithHash('none@acme.test'), undefined)
    t.same((await c.users.listByCompany(company.id)).map((x) => x.id), [user.id, u.id])
    const other = await c.companies.create('Other')
    await t.rejects(c.users.getInCompany(u.id, other.id), E(404))
    const token = await c.tokens.issue(u.id, 60)
    t.equal(await c.users.update(u.id, { firstName: 'W' }).then((x) => x.firstName), 'W')
    t.equal(await c.tokens.verify(token.access_token), u.id, 'a name change keeps the tokens')
    await c.users.update(u.id, { password: 'new-pass-123' })
    t.equal(await c.tokens.verify(token.access_token), undefined, 'a new password revokes them')
    t.same(await c.users.delete(u.id), { ...u, firstName: 'W' })
    await t.rejects(c.users.get(u.id), E(404))
  })

  t.test('tokens: issue, verify, expiry, revoke, count', async (t) => {
    const { c, user } = await seeded(t, open)
    const a = await c.tokens.issue(user.id, 60)
    t.match(a, { access_token: /^lt_/, token_type: 'Bearer', expires_in: 60 })
    t.equal(await c.tokens.verify(a.access_token), user.id)
    t.equal(await c.tokens.verify('lt_unknown'), undefined)
    const dead = await c.tokens.issue(user.id, 0)
    t.equal(await c.tokens.verify(dead.access_token), undefined, 'expired')
    t.equal(await c.tokens.countOfUser(user.id), 2)
    t.equal(await c.tokens.revoke(a.access_token), true)
    t.equal(await c.tokens.revoke(a.access_token), false)
    t.equal(await c.tokens.verify(a.access_token), undefined)
  })

  t.test('roles: scoped, admin roles fixed, TagAuths, assignments', async (t) => {
    const { c, company, user, project, role } = await seeded(t, open)
    t.match(role, { name: 'admin', is_admin: true, project_id: project.id, authed_tags: [{ key: 'dataPointID', value: '*', read: true, write: true }] })
    const r = await c.roles.create(company.id, project.id, { name: 'r', authed_endpoints: [30, 31], authed_tags: [{ key: 'room', value: 'A', read: true, write: false }] })
    t.match(r, { name: 'r', is_admin: false, project_id: project.id, authed_endpoints: [30, 31], authed_tags: [{ key: 'room', value: 'A', read: true, write: false }] })
    await t.rejects(c.roles.create(company.id, project.id, { name: 'r' }), E(409))
    t.same(await c.roles.get(r.id), r)
    t.same(await c.roles.getScoped(r.id, company.id, project.id), r)
    await t.rejects(c.roles.getScoped(r.id, company.id, null), E(404))
    t.equal(await c.roles.companyOf(r.id), company.id)
    const cr = await c.roles.create(company.id, null, { name: 'hr', authed_endpoints: [13] })
    t.same((await c.roles.listCompanyRoles(company.id)).map((x) => x.name), ['admin', 'hr'])
    t.same((await c.roles.listProjectRoles(project.id)).map((x) => x.name), ['admin', 'r'])
    await t.rejects(c.roles.update(role.id, { name: 'x' }), E(400), 'admin roles cannot change')
    await t.rejects(c.roles.delete(role.id), E(400))
    t.match(await c.roles.update(r.id, { name: 'r2', authed_endpoints: [32] }), { name: 'r2', authed_endpoints: [32] })
    const withTag = await c.roles.addTagAuth(r.id, { key: 'floor', value: '1', read: true, write: true })
    t.equal(withTag.authed_tags.length, 2)
    t.equal((await c.roles.removeTagAuth(r.id, withTag.authed_tags[1].id)).authed_tags.length, 1)
    await t.rejects(c.roles.removeTagAuth(r.id, 999999), E(404))
    await c.roles.assign(user.id, cr.id)
    await c.roles.assign(user.id, cr.id) // twice is once
    t.equal((await c.roles.rolesOfUser(user.id)).filter((x) => x.id === cr.id).length, 1)
    await c.roles.unassign(user.id, cr.id)
    await t.rejects(c.roles.unassign(user.id, cr.id), E(404))
    t.same(await c.roles.delete(cr.id), await c.roles.get(cr.id).catch(() => cr).then(() => cr))
    await t.rejects(c.roles.get(cr.id), E(404))
  })

  t.test('projects: create with admin role, settings, topic, vdp switch, MQTT settings re-derive hash ids', async (t) => {
    const { c, company, user, project, role } = await seeded(t, open)
    t.same(project, { id: project.id, company_id: company.id, name: 'P', description: '' })
    t.ok((await c.roles.rolesOfUser(user.id)).some((r) => r.id === role.id), 'the creator holds the project admin role')
    t.same(await c.projects.get(project.id), project)
    const other = await c.companies.create('Other')
    await t.rejects(c.projects.getInCompany(project.id, other.id), E(404))
    const s = await c.projects.settings(project.id)
    t.match(s, { ...project, project_handle: `p${project.id}`, hash_id_length: Number, sampling_n: Number, load_balancing_group: String })
    t.same(await c.projects.findByTopic(s.load_balancing_group, s.project_handle), s)
    t.equal(await c.projects.findByTopic('x', 'y'), undefined)
    t.equal(await c.projects.vdpEnabled(project.id), true)
    await c.projects.setVdpEnabled(project.id, false)
    t.equal(await c.projects.vdpEnabled(project.id), false)
    const ids = await c.datapoints.ensure(project.id, ['a'])
    const before = (await c.datapoints.get(project.id, 'a')).hash_id
    const changed = await c.projects.setMqtt(project.id, { handle: 'h1', hashIdLength: s.hash_id_length === 6 ? 8 : 6, samplingN: 7 })
    t.match(changed, { project_handle: 'h1', sampling_n: 7 })
    const after = await c.datapoints.get(project.id, 'a')
    t.equal(after.id, ids.get('a'))
    t.equal(after.hash_id.length, changed.hash_id_length)
    t.not(after.hash_id, before)
    await t.rejects(c.projects.setMqtt(project.id, { handle: 'META' }), E(400))
    await t.rejects(c.projects.setMqtt(project.id, { hashIdLength: 3 }), E(400))
    const p2 = (await c.projects.create(company.id, { name: 'Q', description: 'q' }, null)).project
    await t.rejects(c.projects.setMqtt(p2.id, { handle: 'h1' }), E(409))
    t.same((await c.projects.listByCompany(company.id)).map((p) => p.id), [project.id, p2.id])
    t.same((await c.projects.listByIds([p2.id])).map((p) => p.id), [p2.id])
    t.same(await c.projects.listByIds([]), [])
    t.same(await c.projects.update(p2.id, { name: 'Q2' }), { ...p2, name: 'Q2' })
    t.same(await c.projects.delete(p2.id), { ...p2, name: 'Q2' })
    await t.rejects(c.projects.get(p2.id), E(404))
  })

  t.test('datapoints: ensure is all or nothing, quota, pages, tags, removal', async (t) => {
    const { c, project } = await seeded(t, open)
    const ids = await c.datapoints.ensure(project.id, ['a', 'b', 'a'])
    t.same([...ids.keys()], ['a', 'b'])
    t.same(await c.datapoints.ensure(project.id, ['b', 'a']), new Map([['b', ids.get('b')], ['a', ids.get('a')]]), 'known ones keep their ids')
    await t.rejects(c.datapoints.ensure(project.id, ['c', 'bad\u0001']), E(400))
    t.equal(await c.datapoints.find(project.id, 'c'), undefined, 'nothing created by a refused call')
    await t.rejects(c.datapoints.ensure(999999, ['x']), E(404))
    t.equal(await c.datapoints.countOf(project.id), 2)
    t.same(await c.datapoints.quota(project.id), { max: await c.datapoints.defaultQuota(), used: 2, own: false })
    await c.datapoints.setQuota(project.id, 3)
    t.same(await c.datapoints.quota(project.id), { max: 3, used: 2, own: true })
    await t.rejects(c.datapoints.ensure(project.id, ['c', 'd']), E(413))
    t.equal(await c.datapoints.countOf(project.id), 2, 'all or nothing at the quota')
    await t.rejects(c.datapoints.assertRoom(project.id, 2), E(413))
    await c.datapoints.assertRoom(project.id, 1)
    await t.rejects(c.datapoints.setQuota(project.id, -1), E(400))
    await t.rejects(c.datapoints.setQuota(999999, 1), E(404))
    await c.datapoints.setQuota(project.id, null)
    await c.datapoints.setDefaultQuota(50)
    t.equal(await c.datapoints.defaultQuota(), 50)
    t.equal((await c.datapoints.quota(project.id)).max, 50)
    await t.rejects(c.datapoints.setDefaultQuota(1.5), E(400))

    await c.datapoints.setTag(ids.get('a')!, 'room', 'A')
    await c.datapoints.setTag(ids.get('a')!, 'room', 'B')
    t.same(await c.datapoints.tagsOf(ids.get('a')!), { room: 'B' })
    const a = await c.datapoints.get(project.id, 'a')
    t.match(a, { id: ids.get('a'), project_id: project.id, dataPointID: 'a', hash_id: String, tags: { room: 'B' } })
    await t.rejects(c.datapoints.get(project.id, 'zz'), E(404))
    const many = await c.datapoints.findMany(project.id, ['zz', 'a', 'b', 'a'])
    t.same([...many.keys()].sort(), ['a', 'b'], 'findMany: the known ones, unknown ones left out')
    t.same(many.get('a'), a, 'findMany: the same record as find, tags included')
    t.same(many.get('b'), await c.datapoints.find(project.id, 'b'))
    t.same(await c.datapoints.findMany(project.id, []), new Map())
    await c.datapoints.ensure(project.id, ['c'])
    const all = await c.datapoints.listByProject(project.id)
    t.same(all.map((d) => d.dataPointID), ['a', 'b', 'c'])
    t.same(await c.datapoints.slice(project.id, { offset: 1 }, 1), [all[1]])
    t.same(await c.datapoints.slice(project.id, { afterId: all[0].id }, 5), all.slice(1))
    t.same(await c.datapoints.slice(project.id, { offset: 9 }, 5), [])
    t.same((await c.datapoints.idsOfProject(project.id)).sort((x, y) => x - y), all.map((d) => d.id))
    await c.datapoints.remove([all[2].id])
    t.equal(await c.datapoints.find(project.id, 'c'), undefined)
    t.same(await c.datapoints.removeSomeOfProject(project.id, 1), [all[0].id])
    t.same(await c.datapoints.removeSomeOfProject(project.id, 5), [all[1].id])
    t.same(await c.datapoints.removeSomeOfProject(project.id, 5), [])
  })

  t.test('MQTT accounts: unique usernames, reach, expiry, update, delete', async (t) => {
    const { c, project } = await seeded(t, open)
    const reach = { write: { all: false, auths: [{ id: 1, key: 'room', value: 'A', read: false, write: true }] }, read: { all: true, auths: [] } }
    const a = await c.mqttAccounts.create(project.id, { username: 'dev', password: 'dev-pass-1', rights: 'write', validUntil: Date.now() + 60_000, reach })
    t.match(a, { project_id: project.id, username: 'dev', rights: 'write', description: '', password_hash: String })
    await t.rejects(c.mqttAccounts.create(project.id, { username: 'dev', password: 'x-pass-12', validUntil: null }), E(409))
    const op = await c.mqttAccounts.create(project.id, { username: 'op', password: 'op-pass-1', validUntil: null })
    t.equal(op.rights, 'read')
    const found = (await c.mqttAccounts.findValid('dev'))!
    t.same(found.reach, reach)
    t.match(found, { id: a.id, session_scope: String })
    t.not(found.session_scope, (await c.mqttAccounts.findValid('op'))!.session_scope)
    t.same((await c.mqttAccounts.findValid('op'))!.reach, { write: { all: true, auths: [] }, read: { all: true, auths: [] } }, 'full reach by default')
    t.same(await c.mqttAccounts.get(project.id, a.id), a)
    await t.rejects(c.mqttAccounts.get(project.id + 1000, a.id), E(404))
    t.same((await c.mqttAccounts.list(project.id)).map((x) => x.username), ['dev', 'op'])
    const narrower = { write: { all: false, auths: [] }, read: { all: false, auths: [] } }
    const up = await c.mqttAccounts.update(project.id, a.id, { description: 'd', reach: narrower })
    t.equal(up.description, 'd')
    t.same((await c.mqttAccounts.findValid('dev'))!.reach, narrower)
    t.equal((await c.mqttAccounts.findValid('dev'))!.session_scope, found.session_scope, 'the scope stays')
    t.same([...(await c.mqttAccounts.validUntilById()).keys()].sort(), [a.id, op.id].sort())
    await c.mqttAccounts.update(project.id, a.id, { validUntil: Date.now() + 20 })
    while (await c.mqttAccounts.findValid('dev')) await new Promise((r) => setTimeout(r, 10)) // expires by the clock
    t.same((await c.mqttAccounts.list(project.id)).map((x) => x.username), ['op'], 'an expired account is gone for callers')
    t.same(await c.mqttAccounts.removeExpired(), ['dev'])
    t.same(await c.mqttAccounts.removeExpired(), [])
    t.equal(await c.mqttAccounts.deleteByUsername('op'), true)
    t.equal(await c.mqttAccounts.deleteByUsername('op'), false)
    const b = await c.mqttAccounts.create(project.id, { username: 'dev', password: 'dev-pass-2', validUntil: null })
    t.same(await c.mqttAccounts.delete(project.id, b.id), b)
    t.same(await c.mqttAccounts.list(project.id), [])
  })

  t.test('entity tags: entities, tag sets with sources, device links within the quota', async (t) => {
    const { c, project } = await seeded(t, open)
    t.equal(await c.entityTags.entity(project.id, 'datapoint', 'x', false), undefined)
    const x = (await c.entityTags.entity(project.id, 'datapoint', 'x', true))!
    t.equal((await c.datapoints.get(project.id, 'x')).id, x, 'a datapoint entity is the datapoint')
    await c.entityTags.replaceTags('datapoint', x, { unit: 'K', room: 'A' }, ['unit', 'room'], 'bms')
    await c.entityTags.replaceTags('datapoint', x, { room: 'B', floor: '1' }, ['room', 'floor'], 'edge')
    t.same({ ...await c.entityTags.tags('datapoint', x) }, { room: 'B', floor: '1' })
    t.same({ ...await c.entityTags.sources('datapoint', x) }, { room: 'edge', floor: 'edge' })
    await c.entityTags.replaceTags('datapoint', x, { room: 'B', floor: '2' }, ['floor'], null)
    t.same({ ...await c.entityTags.sources('datapoint', x) }, { room: 'edge', floor: null }, 'untouched keys keep their source')
    const d = (await c.entityTags.entity(project.id, 'device', 'AHU', true))!
    t.equal(await c.entityTags.entity(project.id, 'device', 'AHU', false), d)
    await c.entityTags.replaceTags('device', d, { vendor: 'V' }, ['vendor'], 'edge')
    await c.datapoints.setQuota(project.id, 2)
    await c.entityTags.linkDatapoints(project.id, d, ['x', 'y', 'z'])
    t.same(await c.entityTags.devicesOfProject(project.id), [{ device_id: 'AHU', tags: { vendor: 'V' }, datapoints: ['x', 'y'] }], 'z is beyond the quota')
    t.equal(await c.entityTags.entity(project.id, 'datapoint', 'w', true), undefined, 'none created at the quota')
  })

  t.test('virtual datapoints: create once, status with log, listings, removal', async (t) => {
    const { c, project } = await seeded(t, open)
    const def = { dataPointID: 'v', type: 'formula', description: 'd', pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' }, status_code: 100 }
    const v = await c.virtualDatapoints.create(project.id, def, 'Created')
    t.same(v, { id: v.id, project_id: project.id, ...def })
    await t.rejects(c.virtualDatapoints.create(project.id, def, 'again'), E(409))
    await t.rejects(c.virtualDatapoints.create(project.id, { ...def, dataPointID: 'bad\u0001' }, 'x'), E(400))
    t.same(await c.virtualDatapoints.find(project.id, 'v'), v)
    t.equal(await c.virtualDatapoints.find(project.id, 'none'), undefined)
    await t.rejects(c.virtualDatapoints.get(project.id, 'none'), E(404))
    t.same(await c.virtualDatapoints.byId(v.id), v)
    const w = await c.virtualDatapoints.create(project.id, { ...def, dataPointID: 'u', status_code: 202 }, 'Created')
    t.same((await c.virtualDatapoints.listByProject(project.id)).map((x) => x.dataPointID), ['u', 'v'])
    t.same((await c.virtualDatapoints.listByStatus([202])).map((x) => x.id), [w.id])
    t.same(await c.virtualDatapoints.listByStatus([]), [])
    t.equal((await c.virtualDatapoints.setStatus(v.id, 200, 'Run')).status_code, 200)
    const logs = await c.virtualDatapoints.logs(v.id)
    t.match(logs, [{ message: 'Created', status_code: 100, ts: /^\d+$/, type: 'status_change' }, { message: 'Run', status_code: 200, type: 'status_change' }])
    t.equal((await c.virtualDatapoints.setDescription(v.id, 'new')).description, 'new')
    await c.virtualDatapoints.remove(v.id)
    await t.rejects(c.virtualDatapoints.byId(v.id), E(404))
  })

  t.test('exchange rates: set replaces at the same start, pairs in order, delete', async (t) => {
    const c = await open(t)
    await c.exchangeRates.set({ base: 'EUR', quote: 'USD', validFrom: 20, rate: 1.1 })
    await c.exchangeRates.set({ base: 'EUR', quote: 'USD', validFrom: 10, rate: 1.0 })
    await c.exchangeRates.set({ base: 'EUR', quote: 'USD', validFrom: 20, rate: 1.2 })
    await c.exchangeRates.set({ base: 'CHF', quote: 'EUR', validFrom: 5, rate: 0.9 })
    t.same(await c.exchangeRates.ofPair('EUR', 'USD'), [{ validFrom: 10, rate: 1.0 }, { validFrom: 20, rate: 1.2 }])
    t.same(await c.exchangeRates.ofPair('USD', 'EUR'), [])
    t.same((await c.exchangeRates.list()).map((r) => `${r.base}${r.quote}${r.validFrom}`), ['CHFEUR5', 'EURUSD10', 'EURUSD20'])
    t.equal(await c.exchangeRates.delete('EUR', 'USD', 10), true)
    t.equal(await c.exchangeRates.delete('EUR', 'USD', 10), false)
  })

  t.test('transactions: all or nothing, awaits inside, isolation from other calls, nesting', async (t) => {
    const { c, company, project } = await seeded(t, open)
    t.equal(await c.transaction(async (tx) => (await tx.companies.create('T1')).name), 'T1', 'the result is passed on')
    await t.rejects(c.transaction(async (tx) => {
      await tx.companies.create('T2')
      await new Promise((r) => setTimeout(r, 5)) // awaits outside the catalog are allowed
      await tx.datapoints.ensure(project.id, ['in-tx'])
      throw new Error('boom')
    }), { message: 'boom' })
    t.equal(await c.companies.findByName('T2'), undefined, 'rolled back')
    t.equal(await c.datapoints.find(project.id, 'in-tx'), undefined, 'rolled back')

    // A call outside a transaction never sees, nor joins, its uncommitted writes.
    let release!: () => void
    const held = new Promise<void>((r) => { release = r })
    let wrote!: () => void
    const written = new Promise<void>((r) => { wrote = r })
    const tx1 = c.transaction(async (tx) => {
      await tx.companies.create('T3')
      wrote()
      await held
      throw new Error('undo')
    })
    await written
    const outside = c.companies.findByName('T3')
    const created = c.companies.create('T4') // must not be rolled back with tx1
    release()
    await t.rejects(tx1, { message: 'undo' })
    t.equal(await outside, undefined, 'the outside read waited and saw nothing')
    t.equal((await created).name, 'T4')
    t.ok(await c.companies.findByName('T4'), 'the outside write stayed')

    // Transactions run one after the other, never interleaved.
    const order: string[] = []
    await Promise.all([1, 2].map((n) => c.transaction(async (tx) => {
      order.push(`start ${n}`)
      await new Promise((r) => setTimeout(r, 5))
      await tx.companies.create(`S${n}`)
      order.push(`end ${n}`)
    })))
    t.same(order, ['start 1', 'end 1', 'start 2', 'end 2'])

    // Nesting: an inner failure caught by the outer fn undoes only the inner writes.
    await c.transaction(async (tx) => {
      await tx.companies.create('N1')
      await tx.transaction(async (inner) => { await inner.companies.create('N2'); throw new Error('inner') }).catch(() => {})
      await tx.companies.create('N3')
    })
    t.ok(await c.companies.findByName('N1'))
    t.equal(await c.companies.findByName('N2'), undefined)
    t.ok(await c.companies.findByName('N3'))

    // A tx used after its end refuses.
    let leaked: CatalogPort | undefined
    await c.transaction(async (tx) => { leaked = tx })
    await t.rejects(leaked!.companies.get(company.id), { message: /ended/ })

    // The unit-of-work operation: a failing admin leaves no company behind.
    await t.rejects(c.createCompanyWithAdmin('Half', { email: 'admin@acme.test', password: 'p-pass-123' }), E(409))
    t.equal(await c.companies.findByName('Half'), undefined)
  })
}
