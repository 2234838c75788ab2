// MQTT accounts over HTTP (spec 1 "MQTT accounts" and the account lifecycle).
import t from 'tap'
import { addProject, addUser, platform } from '../helpers/platform.ts'

t.test('create, read, extend, delete; validity and uniqueness rules', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Site')
  const before = Date.now()
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-1', password: 'edge-secret', validity: 600, description: 'gateway' })
  t.equal(res.status, 201)
  t.match(res.body, {
    success: true, operation: 'create',
    resource: { username: 'edge-1', description: 'gateway', rights: 'read', topics: [{ id: 1, rights: 'read', topic: `lintel/p${pid}/#` }] },
  })
  const account = res.body.resource
  t.notMatch(JSON.stringify(res.body), /edge-secret|scrypt|password/)
  t.match(account.valid_until, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/, 'UTC, ISO 8601')
  const until = Date.parse(account.valid_until)
  t.ok(until >= before + 600_000 && until <= Date.now() + 600_000)

  t.same((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-1', password: 'other-secret' })).body,
    { success: false, error: "An MQTT account with username 'edge-1' already exists", operation: 'create' })
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'x', password: 'long-enough', validity: 7201 })).status, 400, 'at most 7200 s')
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'x', password: 'long-enough', rights: 'admin' })).status, 400)
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { password: 'long-enough' })).status, 400, 'username required')

  const put = await p.call(p.admin, 'PUT', `/v2/project/${pid}/mqttuser/${account.id}`, { validity: 7200, rights: 'write' })
  t.equal(put.status, 201)
  t.equal(put.body.operation, '')
  t.equal(put.body.resource.rights, 'write')
  t.ok(Date.parse(put.body.resource.valid_until) > until, 'validity runs from the time of the update')

  const list = await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttusers`)
  t.same(list.body.map((a: { username: string }) => a.username), ['edge-1'])
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttuser/${account.id}`)).body.username, 'edge-1')
  const del = await p.call(p.admin, 'DELETE', `/v2/project/${pid}/mqttuser/${account.id}`)
  t.equal(del.body.operation, 'delete')
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttuser/${account.id}`)).status, 404)
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-1', password: 'edge-secret' })).status, 201, 'the username is free again')
})

t.test('expired accounts vanish and free their username', async (t) => {
  let ahead = 0 // the catalog's clock runs this many ms ahead of the wall clock
  const p = await platform(t, { now: () => Date.now() + ahead })
  const { id: pid } = await addProject(p, p.admin, 'Site')
  const a = await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'short', password: 'short-lived', validity: 1 })
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttuser/${a.body.resource.id}`)).status, 200, 'valid for its second')
  ahead = 1_000
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttuser/${a.body.resource.id}`)).status, 404)
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/mqttusers`)).body, [])
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'short', password: 'short-lived' })).status, 201)
})

t.test('accounts belong to their project and need the grant', async (t) => {
  const p = await platform(t)
  const a = await addProject(p, p.admin, 'A')
  const b = await addProject(p, p.admin, 'B')
  const acc = await p.call(p.admin, 'POST', `/v2/project/${a.id}/mqttuser`, { username: 'a-dev', password: 'a-dev-pass' })
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${b.id}/mqttuser/${acc.body.resource.id}`)).status, 404, 'not visible through another project')
  const u = await addUser(p, 'someone')
  t.equal((await p.call(u, 'POST', `/v2/project/${a.id}/mqttuser`, { username: 'u-dev', password: 'u-dev-pass' })).body.error,
    'Unauthorized access to endpoint: 60 - POST /v2/project/{project_id}/mqttuser')
})

t.test('an account carries a snapshot of its creator\'s reach; a change re-takes it from the changer', async (t) => {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'Site')
  const u = await addUser(p, 'narrow')
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, {
    name: 'narrow', authed_endpoints: [50, 52, 60, 61], authed_tags: [{ key: 'room', value: 'A', read: true, write: true }],
  })
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  const res = await p.call(u, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'n-dev', password: 'n-dev-pass', rights: 'write' })
  t.equal(res.status, 201)
  const reachOf = async () => (await p.catalog.mqttAccounts.findValid('n-dev'))!.reach
  t.match(await reachOf(), { write: { all: false, auths: [{ key: 'room', value: 'A', write: true }] }, read: { all: false, auths: [{ key: 'room', value: 'A', read: true }] } })
  t.equal((await reachOf()).write.auths.length, 1)

  const put = await p.call(p.admin, 'PUT', `/v2/project/${pid}/mqttuser/${res.body.resource.id}`, { validity: 600 })
  t.equal(put.status, 201)
  t.same(await reachOf(), { write: { all: true, auths: [] }, read: { all: true, auths: [] } }, 'the admin\'s change gives the admin\'s reach')

  const r = await p.call(u, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'n-read', password: 'n-read-pass', rights: 'read' })
  t.same((await p.catalog.mqttAccounts.findValid('n-read'))!.reach.write, { all: false, auths: [] }, 'a read account writes nothing')
  t.equal(r.status, 201)
})
