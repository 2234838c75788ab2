// The trust boundary of the live WebSocket (GET /v2/live, endpoint 190): authentication on the
// upgrade; the grant per project; TagAuths narrow what arrives and are re-checked when tags or
// roles change; another company's project does not exist; revoked tokens and deleted users are
// cut within a second (4401).
import t, { type Test } from 'tap'
import { addProject, addUser, basic, platform, type Login, type Platform } from '../helpers/platform.ts'
import { liveClient } from '../helpers/live-client.ts'
import { waitFor } from '../helpers/wait.ts'

const iso = (i: number) => new Date(Date.UTC(2024, 2, 31) + i * 1000).toISOString()

async function world(t: Test) {
  const p = await platform(t)
  const address = await p.app.listen({ port: 0, host: '127.0.0.1' })
  const pid = (await addProject(p, p.admin, 'P')).id
  const ingest = async (id: string, i: number) => {
    const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { [id]: [{ time: iso(i), value: i }] })
    if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  }
  await ingest('open/1', 0)
  await ingest('open/2', 0)
  await ingest('hidden', 0)
  for (const id of ['open/1', 'open/2']) await p.catalog.datapoints.setTag((await p.catalog.datapoints.find(pid, id))!.id, 'zone', 'public')
  return { p, address, pid, ingest }
}

async function userWithRole(p: Platform, pid: number, name: string, endpoints: number[], tags: object[]): Promise<Login & { id: number; roleId: number }> {
  const u = await addUser(p, name)
  const role = (await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name, authed_endpoints: endpoints, authed_tags: tags })).body.resource
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.id}/user/${u.id}`)
  return { ...u, roleId: role.id }
}

t.test('the upgrade is authenticated: none or wrong credentials answer 401; a browser token as sub-protocol works', async (t) => {
  const { p, address, pid } = await world(t)
  await t.rejects(liveClient(address), { message: /upgrade refused: 401 / })
  await t.rejects(liveClient(address, { authorization: 'Bearer lt_wrong' }), { message: /upgrade refused: 401 / })
  await t.rejects(liveClient(address, { authorization: basic({ ...p.admin, password: 'wrong-password' }) }), { message: /upgrade refused: 401 / })
  const token = (await p.call(p.admin, 'POST', '/v2/auth/token')).body.resource.access_token
  const c = await liveClient(address, { protocols: ['lintel.v1', `bearer.${token}`] })
  t.equal(c.ws.protocol, 'lintel.v1', 'the server selects the protocol, not the token')
  c.send({ type: 'subscribe', project_id: pid, datapoints: ['open/1'] })
  t.same((await c.next('subscribed')).datapoints, ['open/1'])
})

t.test('without the grant: 403 on the upgrade with project_id, an error frame on subscribe', async (t) => {
  const { p, address, pid } = await world(t)
  const u = await userWithRole(p, pid, 'reader', [52], [{ key: 'dataPointID', value: '*', read: true, write: false }])
  await t.rejects(liveClient(address, { authorization: basic(u), query: `?project_id=${pid}` }), { message: /upgrade refused: 403 .*Unauthorized access to endpoint: 190 - GET \/v2\/live/ })
  const c = await liveClient(address, { authorization: basic(u) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: 'all', ref: 'r' })
  t.match(await c.next('error'), { ref: 'r', code: 'ENDPOINT_NOT_GRANTED', error: 'Unauthorized access to endpoint: 190 - GET /v2/live' })
  t.notOk(c.messages.some((m) => m.type === 'subscribed'))
})

t.test('a narrower TagAuth sees nothing hidden, and loses a datapoint whose tags change', async (t) => {
  const { p, address, pid, ingest } = await world(t)
  const u = await userWithRole(p, pid, 'narrow', [190], [{ key: 'zone', value: 'public', read: true, write: false }])
  const c = await liveClient(address, { authorization: basic(u) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: ['hidden', 'open/1'], since: iso(-1) })
  t.same((await c.next('subscribed')).datapoints, ['open/1'], 'the hidden datapoint is left out like an unknown one')
  await c.next('live')
  c.send({ type: 'subscribe', project_id: pid, datapoints: 'all', since: iso(-1) })
  await c.next('live', undefined, c.messages.findIndex((m) => m.type === 'live') + 1)
  for (let i = 1; i <= 5; i++) { await ingest('hidden', i); await ingest('open/1', i); await ingest('open/2', i) }
  await waitFor(() => c.points('open/2').length === 6, { what: 'open/2 from the store and live' })
  t.same(c.points('hidden'), [], 'nothing of the hidden datapoint: not by name, not with all, not from the store')
  // The datapoint's tags change: it is no longer public.
  await p.catalog.datapoints.setTag((await p.catalog.datapoints.find(pid, 'open/2'))!.id, 'zone', 'secret')
  t.match(await c.next('revoked'), { project_id: pid, dataPointID: 'open/2' })
  const before = c.points('open/2').length
  await ingest('open/2', 6)
  await ingest('open/1', 6)
  await waitFor(() => c.points('open/1').some((x) => x.value === 6), { what: 'open/1 after the change' })
  t.equal(c.points('open/2').length, before, 'nothing more of it')
  // The role loses endpoint 190: the subscription ends.
  await p.call(p.admin, 'PUT', `/v2/project/${pid}/role/${u.roleId}`, { authed_endpoints: [52] })
  t.match(await c.next('error', (m) => m.code === 'ENDPOINT_NOT_GRANTED'), { error: /endpoint: 190/ })
  await c.next('unsubscribed')
})

t.test('another company: its project does not exist here', async (t) => {
  const { p, address, pid } = await world(t)
  const beta = { email: 'boss@beta.test', password: 'beta-password-1' }
  await p.catalog.createCompanyWithAdmin('Beta', beta)
  await t.rejects(liveClient(address, { authorization: basic(beta), query: `?project_id=${pid}` }), { message: /upgrade refused: 404 / })
  const c = await liveClient(address, { authorization: basic(beta) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: 'all' })
  t.match(await c.next('error'), { code: 'NOT_FOUND', error: `Project ${pid} not found` })
})

t.test('a revoked token and a deleted user are cut within a second (4401)', async (t) => {
  const { p, address, pid } = await world(t)
  const token = (await p.call(p.admin, 'POST', '/v2/auth/token')).body.resource.access_token
  const byToken = await liveClient(address, { authorization: `Bearer ${token}` })
  byToken.send({ type: 'subscribe', project_id: pid, datapoints: 'all' })
  await byToken.next('subscribed')
  t.equal((await p.call(token, 'DELETE', '/v2/auth/token')).status, 200)
  t.equal((await byToken.closedWithin(1000)).code, 4401, 'revoked token')
  const u = await userWithRole(p, pid, 'leaver', [190], [{ key: 'dataPointID', value: '*', read: true, write: false }])
  const byPassword = await liveClient(address, { authorization: basic(u) })
  byPassword.send({ type: 'subscribe', project_id: pid, datapoints: 'all' })
  await byPassword.next('subscribed')
  t.equal((await p.call(u, 'DELETE', '/v2/user')).status, 200)
  t.equal((await byPassword.closedWithin(1000)).code, 4401, 'deleted user')
})
