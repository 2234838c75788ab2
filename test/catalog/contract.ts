// The contract of the catalog port (catalog/port.ts): what callers rely on, written only
// against the port, so every adapter (SQLite now, PostgreSQL with issue 17) runs it unchanged
// through its own *.test.ts. `open` gives a fresh, empty catalog per test.
import type { Test } from 'tap'
import type { CatalogPort, ChangePayload } from '../../catalog/port.ts'
import type { MqttAccountChange } from '../../catalog/mqtt-accounts.ts'
import { DATAPOINT_TAGS } from '../../catalog/changes.ts'
import { waitFor } from '../helpers/wait.ts'
import { controlsAppsContract } from './contract-controls-apps.ts'
import { userViewsContract } from './contract-user-views.ts'
import { exportJobsContract } from './contract-export-jobs.ts'
import { lifecycleContract } from './contract-lifecycle.ts'

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
  userViewsContract(t, open)
  exportJobsContract(t, open)
  lifecycleContract(t, open)
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
    t.match(s, { ...project, project_handle: `p${project.id}`, hash_id_length: Number, sampling_n: Number, load_balancing_group: String, time_zone: 'UTC' })
    t.same(await c.projects.update(project.id, { time_zone: 'Europe/Berlin' }), project, 'the time zone is a setting, not a field of the project')
    t.equal((await c.projects.settings(project.id)).time_zone, 'Europe/Berlin')
    await t.rejects(c.projects.update(project.id, { time_zone: 'Mars/Olympus' }), E(400))
    t.equal((await c.projects.settings(project.id)).time_zone, 'Europe/Berlin', 'unchanged by a rejected update')
    await c.projects.update(project.id, { time_zone: 'UTC' })
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
    t.same(await c.datapoints.findByHash(project.id, a.hash_id), [a], 'findByHash: the datapoint of a hash id, tags included')
    t.same(await c.datapoints.findByHash(project.id, 'no-such-hash'), [])
    t.same(await c.datapoints.findByHash(project.id + 1000, a.hash_id), [], 'findByHash: only within the project')
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

  t.test('datapoint tags: by id, tagged of a project, each change announced after the commit', async (t) => {
    const { c, project } = await seeded(t, open)
    const heard: ChangePayload[] = []
    c.changes.subscribe(DATAPOINT_TAGS, (p) => heard.push(p))
    const ids = await c.datapoints.ensure(project.id, ['a', 'b', 'c'])
    const [a, b, x] = ['a', 'b', 'c'].map((k) => ids.get(k)!)
    await c.datapoints.setTag(a, 'room', 'A')
    await waitFor(() => heard.length === 1, { what: 'the first announcement' })
    await c.transaction(async (tx) => {
      await tx.entityTags.replaceTags('datapoint', b, { room: 'B', unit: 'K' }, ['room', 'unit'], 'edge')
      await tx.entityTags.replaceTags('device', (await tx.entityTags.entity(project.id, 'device', 'gw', true))!, { k: 'v' }, ['k'], 'edge')
      t.equal(heard.length, 1, 'held back until the commit')
    })
    await t.rejects(c.transaction(async (tx) => { await tx.datapoints.setTag(x, 'room', 'X'); throw new Error('undo') }))
    t.match(await c.datapoints.byId(b), { id: b, project_id: project.id, dataPointID: 'b', tags: { room: 'B', unit: 'K' } })
    t.equal(await c.datapoints.byId(999999), undefined)
    t.same((await c.datapoints.taggedOfProject(project.id)).sort((p, q) => p.id - q.id), [
      { id: a, dataPointID: 'a', tags: { room: 'A' } }, { id: b, dataPointID: 'b', tags: { room: 'B', unit: 'K' } },
    ], 'only the tagged ones')
    await c.datapoints.remove([a])
    t.same(await c.datapoints.removeSomeOfProject(project.id, 10), [b, x])
    await waitFor(() => heard.length >= 4, { what: 'the announcements' })
    t.same(heard, [{ datapoint: a }, { datapoint: b }, { datapoint: a, removed: true }, { project: project.id }], 'no device, no rolled-back change; a removal says so')
  })

  t.test('MQTT accounts: unique usernames, reach, expiry, update, delete', async (t) => {
    const { c, project } = await seeded(t, open)
    const reach = { write: { all: false, auths: [{ id: 1, key: 'room', value: 'A', read: false, write: true }] }, read: { all: true, auths: [] } }
    const a = await c.mqttAccounts.create(project.id, { username: 'dev', password: 'dev-pass-1', rights: 'write', validUntil: Date.now() + 60_000, reach })
    t.match(a, { project_id: project.id, username: 'dev', rights: 'write', description: '', password_hash: String })
    await t.rejects(c.mqttAccounts.create(project.id, { username: 'dev', password: 'x-pass-12', validUntil: null }), E(409))
    await t.rejects(c.mqttAccounts.create(project.id, { username: 'op\u0000x', password: 'x-pass-12', validUntil: null }),
      { status: 400, message: 'Refused: the MQTT username "op\\u0000x" contains the control character U+0000' }, 'no control character in a username (issue 9)')
    const op = await c.mqttAccounts.create(project.id, { username: 'op', password: 'op-pass-1', validUntil: null })
    t.equal(op.rights, 'read')
    // Edge agents (issue 29 item 3): not by default; designated at create, by update, by username.
    t.equal(a.edge, 0, 'not an edge agent by default')
    const gw = await c.mqttAccounts.create(project.id, { username: 'gw', password: 'gw-pass-1', rights: 'write', validUntil: null, edge: true })
    t.equal((await c.mqttAccounts.findValid('gw'))!.edge, 1)
    t.equal(await c.mqttAccounts.setEdge('gw', false), true)
    t.equal((await c.mqttAccounts.get(project.id, gw.id)).edge, 0)
    t.equal(await c.mqttAccounts.setEdge('nobody', true), false)
    t.equal((await c.mqttAccounts.update(project.id, gw.id, { edge: true })).edge, 1)
    t.equal((await c.mqttAccounts.update(project.id, gw.id, { description: 'kept' })).edge, 1, 'an update without edge keeps it')
    await c.mqttAccounts.delete(project.id, gw.id)
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
    t.same([...(await c.mqttAccounts.validById()).keys()].sort(), [a.id, op.id].sort())
    // The grant fingerprint moves with what a connection was granted, and only with that.
    const grant = async () => (await c.mqttAccounts.validById()).get(a.id)!.grant
    const g0 = await grant()
    t.equal((await c.mqttAccounts.findValid('dev'))!.grant, g0, 'the login sees the fingerprint the periodic check sees')
    await c.mqttAccounts.update(project.id, a.id, { description: 'only the description' })
    t.equal(await grant(), g0, 'a description change keeps the grant')
    const changes: [string, MqttAccountChange][] = [['password', { password: 'another-password' }], ['rights', { rights: 'read' }],
      ['reach', { reach: { write: { all: true, auths: [] }, read: { all: false, auths: [] } } }], ['edge flag', { edge: true }]]
    const seen = new Set([g0])
    for (const [what, change] of changes) {
      await c.mqttAccounts.update(project.id, a.id, change)
      const g = await grant()
      t.notOk(seen.has(g), `a ${what} change changes the grant`)
      seen.add(g)
    }
    await c.mqttAccounts.update(project.id, a.id, { validUntil: Date.now() + 500 }) // room for a slow adapter's update
    await waitFor(async () => !(await c.mqttAccounts.findValid('dev')), { what: 'the account to expire by the clock' })
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

  t.test('files: quotas per space, exact commit, listing, folders, orphans', async (t) => {
    const { c, company, project } = await seeded(t, open)
    const ps = { kind: 'project' as const, companyId: company.id, projectId: project.id }
    const cs = { kind: 'company' as const, companyId: company.id }
    t.equal(c.files.key(ps), `p${project.id}`)
    t.equal(c.files.key(cs), `c${company.id}`)
    t.same(await c.files.usage(ps), { files: 0, space_bytes: 0 })
    t.same(await c.files.setLimits(ps, { files: 2, space_bytes: 100 }), { ...(await c.files.limits(cs)), files: 2, space_bytes: 100 })
    await t.rejects(c.files.setLimits(ps, { files: -1 }), E(400))
    const l = await c.files.limits(ps)
    t.match(c.files.refusal(ps, l, 50, 51), { status: 413, message: /space_bytes/ })
    t.equal(c.files.refusal(ps, l, 50, 50), undefined)
    t.match(c.files.filesFull(ps, l), { status: 413, message: /quota_limits\.files/ })
    const f = (path: string, size: number) => ({ path, object_key: `k-${path}-${size}`, size_bytes: size, sha256: 'h' })
    t.same(await c.files.commit(ps, 'create', f('a/x_1.txt', 40), 1000), { replacedKey: undefined })
    await t.rejects(c.files.commit(ps, 'create', f('a/x_1.txt', 1), 1001), E(400))
    await t.rejects(c.files.commit(ps, 'replace', f('nope', 1), 1001), E(404))
    await t.rejects(c.files.commit(ps, 'create', f('b', 61), 1001), E(413))
    t.same(await c.files.commit(ps, 'replace', f('a/x_1.txt', 90), 1002), { replacedKey: 'k-a/x_1.txt-40' })
    await c.files.commit(ps, 'create', f('a/y%.txt', 10), 1003)
    await t.rejects(c.files.commit(ps, 'create', f('c', 0), 1004), E(413), 'files limit')
    t.same(await c.files.get(ps, 'a/x_1.txt'), { ...f('a/x_1.txt', 90), last_modified: 1002 })
    t.equal(await c.files.get(cs, 'a/x_1.txt'), undefined, 'spaces are separate')
    t.same(await c.files.quota(ps), {
      quota_limits: { ...l }, quota_used: { files: 2, space_bytes: 100 }, quota_available: { files: 0, space_bytes: 0 },
    })
    t.same(await c.files.list(ps, { page: 1, perPage: 1 }), { items: [{ ...f('a/x_1.txt', 90), last_modified: 1002 }], total: 2 })
    t.same((await c.files.list(ps, { page: 2, perPage: 1 })).items.map((x) => x.path), ['a/y%.txt'])
    t.same((await c.files.list(ps, { page: 1, perPage: 9, search: 'Y%' })).items.map((x) => x.path), ['a/y%.txt'], 'any case, % taken literally')
    t.same((await c.files.list(ps, { page: 1, perPage: 9, search: 'x_' })).items.map((x) => x.path), ['a/x_1.txt'], '_ taken literally')
    await c.files.commit(cs, 'create', f('a', 1), 1005)
    t.same((await c.files.delete(ps, 'a')).sort(), ['k-a/x_1.txt-90', 'k-a/y%.txt-10'], 'a folder')
    await t.rejects(c.files.delete(ps, 'a'), E(404))
    t.same(await c.files.delete(cs, 'a'), ['k-a-1'], 'a file')
    for (const p of ['CASE/a', 'Case/b', 'case/c', 'CASE.txt', 'CASEX/d', 'CASE/sub/e']) await c.files.commit(cs, 'create', f(p, 1), 1006)
    t.same((await c.files.delete(cs, 'CASE')).sort(), ['k-CASE/a-1', 'k-CASE/sub/e-1'], 'a folder by its exact name, case included (issue 29)')
    t.same((await c.files.list(cs, { page: 1, perPage: 9 })).items.map((x) => x.path).sort(), ['CASE.txt', 'CASEX/d', 'Case/b', 'case/c'])
    await t.rejects(c.files.delete(cs, 'CASE'), E(404))
    const p2 = (await c.projects.create(company.id, { name: 'Q' }, null)).project
    await c.projects.delete(p2.id)
    t.same(await c.files.orphans([`c${company.id}`, `p${project.id}`, `p${p2.id}`, 'other', 'c999999']), [`p${p2.id}`, 'c999999'])
  })

  t.test('series tags: changes only, bounds, history, at a time', async (t) => {
    const { c, project } = await seeded(t, open)
    const ids = await c.datapoints.ensure(project.id, ['a', 'b'])
    const a = ids.get('a')!
    const b = ids.get('b')!
    const put = (series: number, time: number, value: string, key = 'k') => c.seriesTags.record(project.id, [{ series, time, tags: [{ key, value }] }])
    t.same(await put(a, 10, 'x'), { stored: 1, unchanged: 0, overflow: 0 })
    t.same(await put(a, 20, 'x'), { stored: 0, unchanged: 1, overflow: 0 })
    await put(a, 30, 'y')
    await put(a, 25, 'y')
    await put(a, 5, 'z')
    await put(a, 10, 'z')
    t.same(await c.seriesTags.history(a), [{ key: 'k', value: 'z', valid_from: 5 }, { key: 'k', value: 'y', valid_from: 25 }])
    await put(a, 7, 'q', 'other')
    t.same({ ...await c.seriesTags.at(a, 26) }, { k: 'y', other: 'q' })
    t.same({ ...await c.seriesTags.at(a, 6) }, { k: 'z' })
    t.same({ ...await c.seriesTags.at(a, 1) }, {})
    t.same(await c.seriesTags.limits(), { perSeries: 1000, perProject: 100000 })
    await c.seriesTags.setLimits({ perSeries: 1, perProject: 4 })
    t.same(await c.seriesTags.limits(), { perSeries: 1, perProject: 4 })
    t.same(await c.seriesTags.record(project.id, [{ series: b, time: 1, tags: [{ key: 'k', value: '1' }, { key: 'j', value: '1' }] }]),
      { stored: 1, unchanged: 0, overflow: 1 }, 'per series')
    await c.datapoints.remove([a])
    t.same(await c.seriesTags.history(a), [], 'rows go with their datapoint')
  })

  t.test('alerts: definitions, checkpoints, transitions with outbox, events, outbox bound', async (t) => {
    const { c, project } = await seeded(t, open)
    const dp = (await c.datapoints.ensure(project.id, ['t'])).get('t')!
    const def = { datapoint: dp, kind: 'threshold' as const, name: 'hot', description: '', status_code: 100, config: { max: 30 }, notification: { webhook: 'x' }, attributes: { a: '1' } }
    const a = await c.alerts.create(project.id, def)
    t.match(a, { ...def, id: Number, project_id: project.id, dataPointID: 't', created_at: Number })
    t.same(await c.alerts.byId(a.id), a)
    t.equal(await c.alerts.find(a.id + 1000), undefined)
    await t.rejects(c.alerts.byId(a.id + 1000), E(404))
    const b = await c.alerts.create(project.id, { ...def, name: 'b', status_code: 200 })
    t.same((await c.alerts.listByProject(project.id)).map((x) => x.id), [a.id, b.id])
    t.same((await c.alerts.listByStatus([200])).map((x) => x.id), [b.id])
    t.same(await c.alerts.listByStatus([]), [])
    t.equal((await c.alerts.setStatus(a.id, 200)).status_code, 200)
    t.equal(await c.alerts.state(a.id), undefined)
    await c.alerts.saveStates([{ alertId: a.id, state: 's1' }, { alertId: 999999, state: 'gone' }])
    t.equal(await c.alerts.state(a.id), 's1')
    t.same(await c.alerts.states([a.id, b.id]), new Map([[a.id, 's1']]))
    await c.alerts.clearState(a.id)
    t.equal(await c.alerts.state(a.id), undefined)
    const event = { kind: 'raise' as const, level: 'crit' as const, previous_level: null, value: 31.5, time: 1_000_000 }
    const rec = await c.alerts.recordTransitions([
      { alertId: a.id, event, state: 's2', channels: ['webhook', 'mail'] },
      { alertId: 999999, event, state: 'x', channels: ['webhook'] },
    ], (alert, e, ch) => `${alert.name}:${e.kind}:${ch}`)
    t.equal(rec.length, 1, 'transitions of deleted alerts are skipped')
    t.match(rec[0].event, { ...event, id: Number, alert_id: a.id, recorded_at: Number })
    t.same(rec[0].outbox.map((o) => [o.channel, o.payload, o.attempts]), [['webhook', 'hot:raise:webhook', 0], ['mail', 'hot:raise:mail', 0]])
    t.equal(await c.alerts.state(a.id), 's2')
    const reset = (await c.alerts.recordTransitions([{ alertId: a.id, event: { ...event, kind: 'reset', time: 2_000_000 }, state: 's3', channels: [] }], () => ''))[0].event
    t.equal(await c.alerts.eventCount(a.id), 2)
    t.same((await c.alerts.events(a.id, { limit: 10 })).map((e) => e.id), [reset.id, rec[0].event.id], 'newest first')
    t.same(await c.alerts.events(a.id, { limit: 10, before: reset.id }), [rec[0].event])
    const more = await c.alerts.outboxAdd([{ alert_id: b.id, channel: 'webhook', payload: 'p' }])
    t.match(more, [{ id: Number, alert_id: b.id, channel: 'webhook', payload: 'p', attempts: 0, created_at: Number }])
    t.equal(await c.alerts.outboxCount(), 3)
    const pending = await c.alerts.outboxPending(10)
    t.same(pending.map((o) => o.payload), ['hot:raise:webhook', 'hot:raise:mail', 'p'])
    t.same((await c.alerts.outboxPending(1, pending[0].id)).map((o) => o.id), [pending[1].id])
    await c.alerts.outboxAttempted(pending[2].id)
    t.equal((await c.alerts.outboxPending(10, pending[1].id))[0].attempts, 1)
    t.same((await c.alerts.outboxDropOldest(1)).map((o) => o.id), [pending[0].id])
    await c.alerts.outboxDelete([pending[1].id])
    t.same((await c.alerts.outboxPending(10)).map((o) => o.id), [pending[2].id])
    await c.alerts.remove(a.id)
    t.equal(await c.alerts.find(a.id), undefined)
    t.equal(await c.alerts.eventCount(a.id), 0, 'events go with the alert')
    await c.datapoints.remove([dp])
    t.equal(await c.alerts.find(b.id), undefined, 'alerts go with their datapoint')
  })

  t.test('alerts: acknowledgement silences raises until a reset or a clear, with who, when and a comment in the events', async (t) => {
    const { c, project } = await seeded(t, open)
    const dp = (await c.datapoints.ensure(project.id, ['t'])).get('t')!
    const a = await c.alerts.create(project.id, { datapoint: dp, kind: 'threshold', name: 'hot', description: '', status_code: 200, config: {}, notification: {}, attributes: {} })
    const payload = (_a: unknown, e: { kind: string; actor?: string | null }, ch: string) => `${e.kind}:${e.actor ?? '-'}:${ch}`
    const raise = { kind: 'raise' as const, level: 'warn' as const, previous_level: null, value: 27, time: 1_000_000 }
    t.same((await c.alerts.recordTransitions([{ alertId: a.id, event: raise, state: 's1', channels: ['webhook'] }], payload))[0].outbox.map((o) => o.payload), ['raise:-:webhook'])
    t.equal(await c.alerts.ack(a.id), undefined)
    const acked = await c.alerts.acknowledge(a.id, { actor: 'ann@acme.test', comment: 'on it', level: 'warn', time: 1_500_000 }, ['webhook', 'email'], payload)
    t.match(acked!.event, { kind: 'ack', level: 'warn', actor: 'ann@acme.test', comment: 'on it', time: 1_500_000, id: Number, recorded_at: Number })
    t.same(acked!.outbox.map((o) => o.payload), ['ack:ann@acme.test:webhook', 'ack:ann@acme.test:email'])
    t.match(await c.alerts.ack(a.id), { alert_id: a.id, event_id: acked!.event.id, actor: 'ann@acme.test', comment: 'on it', level: 'warn', at: Number })
    t.equal(await c.alerts.acknowledge(a.id, { actor: 'bob@acme.test', comment: null, level: 'warn', time: 1_600_000 }, ['webhook'], payload), undefined, 'one acknowledgement per raise')
    t.equal(await c.alerts.acknowledge(a.id + 1000, { actor: 'x', comment: null, level: null, time: 1 }, [], payload), undefined, 'an unknown alert')
    const escalate = await c.alerts.recordTransitions([{ alertId: a.id, event: { ...raise, level: 'crit', previous_level: 'warn', time: 2_000_000 }, state: 's2', channels: ['webhook'] }], payload)
    t.same(escalate[0].outbox, [], 'an acknowledged alert\'s escalation is recorded, not notified')
    t.ok(await c.alerts.ack(a.id), 'still acknowledged')
    const reset = await c.alerts.recordTransitions([{ alertId: a.id, event: { ...raise, kind: 'reset', level: 'crit', time: 3_000_000 }, state: 's3', channels: ['webhook'] }], payload)
    t.same(reset[0].outbox.map((o) => o.payload), ['reset:-:webhook'], 'the reset is notified')
    t.equal(await c.alerts.ack(a.id), undefined, 'and ends the acknowledgement')
    t.equal((await c.alerts.recordTransitions([{ alertId: a.id, event: { ...raise, time: 4_000_000 }, state: 's4', channels: ['webhook'] }], payload))[0].outbox.length, 1, 'the next raise notifies again')
    await c.alerts.acknowledge(a.id, { actor: 'ann@acme.test', comment: null, level: 'warn', time: 4_500_000 }, [], payload)
    const clear = await c.alerts.recordTransitions([{ alertId: a.id, event: { kind: 'clear', level: 'warn', previous_level: null, value: null, time: 5_000_000, actor: 'bob@acme.test', comment: 'sensor replaced' }, state: 's5', channels: ['webhook'] }], payload)
    t.same(clear[0].outbox.map((o) => o.payload), ['clear:bob@acme.test:webhook'])
    t.equal(await c.alerts.ack(a.id), undefined, 'a clear ends the acknowledgement')
    const kinds = (await c.alerts.events(a.id, { limit: 20 })).map((e) => [e.kind, e.actor ?? null, e.comment ?? null])
    t.same(kinds, [['clear', 'bob@acme.test', 'sensor replaced'], ['ack', 'ann@acme.test', null], ['raise', null, null], ['reset', null, null], ['raise', null, null], ['ack', 'ann@acme.test', 'on it'], ['raise', null, null]])
    await c.alerts.acknowledge(a.id, { actor: 'ann@acme.test', comment: null, level: 'warn', time: 6_000_000 }, [], payload)
    await c.alerts.remove(a.id)
    t.equal(await c.alerts.ack(a.id), undefined, 'acknowledgements go with the alert')
  })

  t.test('setpoints: settings, write bounds, operations with log, awaiting', async (t) => {
    const { c, project } = await seeded(t, open)
    t.same(await c.setpoints.settings(project.id), { project_id: project.id, enabled: false, max_priority: 8 })
    t.same(await c.setpoints.setSettings(project.id, { enabled: true }), { project_id: project.id, enabled: true, max_priority: 8 })
    t.same(await c.setpoints.setSettings(project.id, { maxPriority: 3 }), { project_id: project.id, enabled: true, max_priority: 3 })
    await t.rejects(c.setpoints.setSettings(project.id, { maxPriority: 17 }), E(400))
    await t.rejects(c.setpoints.setSettings(999999, { enabled: true }), E(404))
    await c.datapoints.ensure(project.id, ['sp'])
    t.equal(await c.setpoints.bounds(project.id, 'sp'), undefined)
    const bounds = { setpoint_min_value: 10, setpoint_max_value: 25.5 }
    t.same(await c.setpoints.setBounds(project.id, 'sp', bounds), bounds)
    t.same(await c.setpoints.bounds(project.id, 'sp'), bounds)
    await c.datapoints.ensure(project.id, ['plain'])
    t.same([...await c.setpoints.boundsOfProject(project.id)], [[(await c.datapoints.get(project.id, 'sp')).id, bounds]], 'the bounds of the project by datapoint id; a datapoint without bounds is not there')
    t.same([...await c.setpoints.boundsOfProject(999999)], [])
    await t.rejects(c.setpoints.setBounds(project.id, 'sp', { setpoint_min_value: 2, setpoint_max_value: 1 }), E(400))
    await t.rejects(c.setpoints.setBounds(project.id, 'none', bounds), E(404))
    const base = { project_id: project.id, dataPointID: 'sp', value: 21.5, priority: 8, acked: true, dryrun: false, keep_out_of_service: false, requested_by: 'a@x', created_at: 1000, deadline: null, status: 'initialized' }
    const op = await c.setpoints.create({ ...base, reference: 'r1', log: [{ msg: 'created', status: 'initialized', time: 't0' }] })
    t.same(op, { ...base, reference: 'r1', old_value: null, log: [{ msg: 'created', status: 'initialized', time: 't0' }] })
    t.same(await c.setpoints.get('r1'), op)
    t.equal(await c.setpoints.find('none'), undefined)
    await t.rejects(c.setpoints.get('none'), E(404))
    await c.setpoints.create({ ...base, reference: 'r2', value: null, acked: false, status: 'requested', log: [] })
    const next = await c.setpoints.advance('r1', 'requested', { msg: 'sent', status: 'requested', time: 't1', priorityArray: [null, 3] }, { deadline: 5000, old_value: '20' })
    t.same(await c.setpoints.get('r1'), next)
    t.match(next, { status: 'requested', deadline: 5000, old_value: '20', log: [{ msg: 'created' }, { msg: 'sent', priorityArray: [null, 3] }] })
    t.same((await c.setpoints.listByDatapoint(project.id, 'sp')).map((o) => o.reference), ['r2', 'r1'], 'newest first')
    t.same((await c.setpoints.listByDatapoint(project.id, 'sp', 1)).map((o) => o.reference), ['r2'])
    t.same((await c.setpoints.listAwaiting()).map((o) => o.reference), ['r1'], 'requested without a deadline awaits nothing')
    t.same((await c.setpoints.listAwaiting(project.id + 1000)), [])
    const done = await c.setpoints.advance('r1', 'done', { msg: 'ok', status: 'done', time: 't2' }, { deadline: null }, next)
    t.equal(done?.status, 'done')
    // Compare-and-set: a second process acting on the same earlier read changes nothing.
    t.equal(await c.setpoints.advance('r1', 'failed', { msg: 'late', status: 'failed', time: 't3' }, {}, next), undefined, 'stale read: not moved')
    t.equal(await c.setpoints.advance('none', 'failed', { msg: 'x', status: 'failed', time: 't3' }), undefined)
    t.same(await c.setpoints.listAwaiting(project.id), [])
    t.equal((await c.setpoints.get('r1')).log.length, 3)
  })

  t.test('ids are never reused after a delete', async (t) => {
    const { c, company, user, project } = await seeded(t, open)
    const dp = (await c.datapoints.ensure(project.id, ['x'])).get('x')!
    const u = await c.users.create(company.id, { email: 'b@acme.test', password: 'password-1', firstName: 'b', lastName: 'b' })
    const r = await c.roles.create(company.id, project.id, { name: 'r', authed_tags: [{ key: 'k', value: 'v', read: true, write: false }] })
    const alert = await c.alerts.create(project.id, { datapoint: dp, kind: 'threshold', name: 'n', description: '', status_code: 100, config: {}, notification: {}, attributes: {} })
    const co = await c.companies.create('Z')
    await c.users.delete(u.id)
    await c.roles.delete(r.id)
    await c.projects.delete(project.id)
    await c.companies.delete(co.id)
    const again = await c.projects.create(company.id, { name: 'P' }, user.id)
    t.ok(again.project.id > project.id && again.role.id > r.id && again.role.authed_tags[0].id > r.authed_tags[0].id)
    const dp2 = (await c.datapoints.ensure(again.project.id, ['x'])).get('x')!
    t.ok(dp2 > dp)
    t.ok((await c.users.create(company.id, { email: 'b@acme.test', password: 'password-1', firstName: 'b', lastName: 'b' })).id > u.id)
    t.ok((await c.companies.create('Z')).id > co.id)
    t.ok((await c.alerts.create(again.project.id, { datapoint: dp2, kind: 'threshold', name: 'n', description: '', status_code: 100, config: {}, notification: {}, attributes: {} })).id > alert.id)
  })

  t.test('emails are unique in any case', async (t) => {
    const { c, company } = await seeded(t, open)
    await t.rejects(c.users.create(company.id, { email: 'ADMIN@acme.test', password: 'x-pass-123', firstName: 'a', lastName: 'b' }), E(409))
    t.match(await c.users.findByEmailWithHash('Admin@Acme.Test'), { email: 'admin@acme.test' })
    const u = await c.users.create(company.id, { email: 'u@acme.test', password: 'x-pass-123', firstName: 'a', lastName: 'b' })
    t.equal((await c.users.update(u.id, { email: 'U@acme.test' })).email, 'U@acme.test', 'its own address in another case')
    await t.rejects(c.users.update(u.id, { email: 'Admin@acme.test' }), E(409))
  })

  t.test('transactions: all or nothing, awaits inside, isolation from other calls, nesting', async (t) => {
    const { c, company, project } = await seeded(t, open)
    t.equal(await c.transaction(async (tx) => (await tx.companies.create('T1')).name), 'T1', 'the result is passed on')
    await t.rejects(c.transaction(async (tx) => {
      await tx.companies.create('T2')
      await new Promise((r) => setImmediate(r)) // awaits outside the catalog (a turn of the loop) are allowed
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

    // Transactions run one after the other, never interleaved: both are asked for at once,
    // and the first does a round trip of its own before it writes. Without the gate the
    // second one's BEGIN, sent meanwhile, would be answered and it would start (PostgreSQL),
    // or it would fail as a transaction within a transaction (SQLite).
    const order: string[] = []
    await Promise.all([1, 2].map((n) => c.transaction(async (tx) => {
      order.push(`start ${n}`)
      await tx.companies.findByName(`S${n}`)
      await new Promise((r) => setImmediate(r))
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

  t.test('components in project: create, pins and attributes upserted, cascades from datapoints and projects', async (t) => {
    const { c, project } = await seeded(t, open)
    const ids = await c.datapoints.ensure(project.id, ['hc/flow', 'hc/return', 'oat'])
    const cip = await c.componentsInProject.create(project.id, { component_id: 5, display_name: 'HC 1', tags: { floor: '1' } })
    t.match(cip, { project_id: project.id, component_id: 5, display_name: 'HC 1', tags: { floor: '1' }, pins: [], attributes: [], created_at: Number })
    t.same(await c.componentsInProject.get(cip.id), cip)
    t.equal(await c.componentsInProject.find(999999), undefined)
    await t.rejects(c.componentsInProject.get(999999), E(404))
    const mapped = await c.componentsInProject.setPins(cip.id, [{ pin_id: 502, datapoint: ids.get('hc/return')! }, { pin_id: 501, datapoint: ids.get('hc/flow')! }])
    t.same(mapped.pins, [{ pin_id: 501, datapoint: ids.get('hc/flow'), dataPointID: 'hc/flow' }, { pin_id: 502, datapoint: ids.get('hc/return'), dataPointID: 'hc/return' }], 'in pin order')
    t.same((await c.componentsInProject.setPins(cip.id, [{ pin_id: 502, datapoint: ids.get('oat')! }])).pins[1].dataPointID, 'oat', 'replaced')
    t.same((await c.componentsInProject.removePins(cip.id, [502])).pins.map((p) => p.pin_id), [501])
    t.same((await c.componentsInProject.setAttributes(cip.id, [{ attribute_id: 551, value: '-12' }, { attribute_id: 552, value: '70' }])).attributes, [{ attribute_id: 551, value: '-12' }, { attribute_id: 552, value: '70' }])
    t.same((await c.componentsInProject.setAttributes(cip.id, [{ attribute_id: 551, value: '-14' }])).attributes[0], { attribute_id: 551, value: '-14' })
    t.same((await c.componentsInProject.removeAttributes(cip.id, [552])).attributes, [{ attribute_id: 551, value: '-14' }])
    t.match(await c.componentsInProject.update(cip.id, { display_name: 'HC one' }), { display_name: 'HC one', tags: { floor: '1' } })
    const other = await c.componentsInProject.create(project.id, { component_id: 6, display_name: 'Room', tags: {} })
    t.same((await c.componentsInProject.listByProject(project.id)).map((x) => x.id), [cip.id, other.id])
    await c.datapoints.remove([ids.get('hc/flow')!])
    t.same((await c.componentsInProject.get(cip.id)).pins, [], 'a deleted datapoint unmaps its pins')
    await c.componentsInProject.remove(other.id)
    t.equal(await c.componentsInProject.find(other.id), undefined)
    await c.projects.delete(project.id)
    t.equal(await c.componentsInProject.find(cip.id), undefined, 'the project takes its components along')
  })

  t.test('analytics: one instance per pair, results with both languages, latest per instance, cascade', async (t) => {
    const { c, project } = await seeded(t, open)
    const cip = await c.componentsInProject.create(project.id, { component_id: 5, display_name: 'HC', tags: {} })
    const i = await c.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 3, name: 'curve', description: '', enabled: true, weeks_from: 7 })
    t.match(i, { project_id: project.id, componentinproject_id: cip.id, analysisfunction_id: 3, name: 'curve', enabled: true, weeks_from: 7 })
    await t.rejects(c.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 3, name: 'again', description: '', enabled: false, weeks_from: 0 }),
      { status: 409, message: `Analysis instance for componentinproject_id ${cip.id} and analysisfunction_id 3 already exists` })
    const j = await c.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 4, name: 'spread', description: 'd', enabled: false, weeks_from: 0 })
    t.same((await c.analytics.instancesOfProject(project.id)).map((x) => x.id), [i.id, j.id])
    t.match(await c.analytics.updateInstance(j.id, { enabled: true, weeks_from: 14 }), { enabled: true, weeks_from: 14, name: 'spread' })
    const texts = (lang: string) => ({ function_name: lang, interpretation: `i-${lang}`, kpi: [{ name: 'k', unit: '%', value: 1 }], recommendation: [`r-${lang}`], info: [] })
    const r = (start: number) => ({ start, end: start + 10, status: 'success', trigger: 'manual' as const, signal_color: 'green', texts: { en: texts('en'), de: texts('de') } })
    const a = await c.analytics.addResult(i.id, r(0))
    const b = await c.analytics.addResult(i.id, r(100))
    const d = await c.analytics.addResult(j.id, r(50))
    t.not(a.result_id, b.result_id, 'unique result ids')
    t.match(b, { instance_id: i.id, start: 100, end: 110, status: 'success', signal_color: 'green', texts: { de: { interpretation: 'i-de' } } })
    t.same(await c.analytics.findResult(i.id, a.result_id), a)
    t.equal(await c.analytics.findResult(j.id, a.result_id), undefined, 'not through another instance')
    t.same((await c.analytics.results(i.id)).map((x) => x.result_id), [a.result_id, b.result_id])
    t.same((await c.analytics.latestResults(project.id)).map((x) => x.result_id), [b.result_id, d.result_id])
    // Issue 29: an instance keeps its newest `keep` results, oldest dropped first; others untouched.
    const e = await c.analytics.addResult(i.id, r(200), 2)
    t.same((await c.analytics.results(i.id)).map((x) => x.result_id), [b.result_id, e.result_id], 'the oldest is dropped')
    const f = await c.analytics.addResult(i.id, r(300), 1)
    t.same((await c.analytics.results(i.id)).map((x) => x.result_id), [f.result_id], 'a smaller bound drops all beyond it')
    t.equal(await c.analytics.findResult(i.id, a.result_id), undefined)
    t.same((await c.analytics.results(j.id)).map((x) => x.result_id), [d.result_id], 'another instance keeps its results')
    for (let n = 0; n < 3; n++) await c.analytics.addResult(i.id, r(400 + n))
    t.equal((await c.analytics.results(i.id)).length, 4, 'the default bound (1,000) keeps them all')
    const week = await c.analytics.addResult(i.id, r(500), 2)
    t.equal((await c.analytics.results(i.id)).length, 2)
    t.equal((await c.analytics.results(i.id)).at(-1)!.result_id, week.result_id)
    await c.analytics.removeInstance(j.id)
    t.equal(await c.analytics.findInstance(j.id), undefined)
    await c.componentsInProject.remove(cip.id)
    await t.rejects(c.analytics.instance(i.id), E(404), 'deleting the component deletes its instances')
    t.same(await c.analytics.latestResults(project.id), [])
  })

  t.test('analytics: the weekly ledger is claimed once, a stale claim is taken over, only the holder completes', async (t) => {
    const { c, project } = await seeded(t, open)
    const cip = await c.componentsInProject.create(project.id, { component_id: 1, display_name: 'B', tags: {} })
    const i = await c.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 1, name: 'n', description: '', enabled: true, weeks_from: 1000 })
    await c.analytics.createInstance(project.id, { componentinproject_id: cip.id, analysisfunction_id: 2, name: 'off', description: '', enabled: false, weeks_from: 0 })
    t.same(await c.analytics.scheduled(), [{ id: i.id, project_id: project.id, weeks_from: 1000, last_week: null }], 'enabled instances only')
    const RUNNING = 102
    const claims = await Promise.all(['w1', 'w2'].map((w) => c.analytics.claimWeek(i.id, 1000, w, RUNNING, 0)))
    t.same(claims.sort(), [false, true], 'one of two workers claims the week')
    const holder = claims[0] ? 'w1' : 'w2'
    const [first] = await Promise.all([c.analytics.claimWeek(i.id, 1000, 'w1', RUNNING, 0)])
    t.equal(first, false, 'a fresh claim is not taken over')
    const result = { start: 1000, end: 2000, status: 'success', trigger: 'weekly' as const, signal_color: null, texts: { en: { function_name: 'f', interpretation: '', kpi: [], recommendation: [], info: [] }, de: { function_name: 'f', interpretation: '', kpi: [], recommendation: [], info: [] } } }
    t.equal((await c.analytics.staleWeeks(RUNNING, Date.now() + 1000)).length, 1)
    t.ok(await c.analytics.claimWeek(i.id, 1000, 'w3', RUNNING, Date.now() + 1000), 'a claim older than the lease is taken over')
    t.equal(await c.analytics.completeWeek(i.id, 1000, 'w1', RUNNING, 200, result), undefined, 'the old holder cannot complete')
    const manual = await c.analytics.addResult(i.id, { ...result, trigger: 'manual' })
    const done = await c.analytics.completeWeek(i.id, 1000, 'w3', RUNNING, 200, result, 1)
    t.match(done, { instance_id: i.id, trigger: 'weekly' })
    t.same((await c.analytics.results(i.id)).map((x) => x.result_id), [done!.result_id], 'a weekly result keeps the bound too')
    t.not(manual.result_id, done!.result_id)
    t.same(await c.analytics.weeks(i.id), [{ week_start: 1000, status_code: 200, claimed_by: 'w3', result_id: done!.result_id }])
    t.equal(await c.analytics.claimWeek(i.id, 1000, 'w4', RUNNING, Date.now() + 1000), false, 'a completed week is never claimed again')
    t.same(await c.analytics.scheduled(), [{ id: i.id, project_id: project.id, weeks_from: 1000, last_week: 1000 }])
    t.equal((await c.analytics.results(i.id)).length, 1)
    void holder
  })

  controlsAppsContract(t, open)
}
