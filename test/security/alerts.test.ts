// Issue 9 style attacks on alerts (endpoints 100-108, issue 13 item 5; acknowledge and clear 200-201, issue 34): a caller without the
// grant, a caller whose TagAuth reaches only another datapoint (room A, not the alert's room
// B), and the admin of another company. An alert the caller may not read does not exist for
// the caller (404); the webhook secret is never shown to anyone.
import t, { type Test } from 'tap'
import { addProject, addUser, platform, type Login } from '../helpers/platform.ts'

const ALL_ALERTS = [100, 101, 102, 103, 104, 105, 106, 107, 108, 200, 201]
const SECRET = 'the-webhook-secret-1'

async function world(t: Test) {
  const p = await platform(t)
  const proj = await addProject(p, p.admin, 'P')
  const pid = proj.id
  const ids = await p.catalog.datapoints.ensure(pid, ['visible', 'hidden'])
  await p.catalog.datapoints.setTag(ids.get('visible')!, 'room', 'A')
  await p.catalog.datapoints.setTag(ids.get('hidden')!, 'room', 'B')
  const mk = async (who: Login, dataPointID: string, projectId = pid) => p.call(who, 'POST', `/v2/alert/threshold?project_id=${projectId}`, {
    name: `on ${dataPointID}`, dataPointID, thresholds: { crit: { upper: 1 } }, notification: { webhook: { url: 'https://hooks.example.com/x', secret: SECRET } },
  })
  const hidden = (await mk(p.admin, 'hidden')).body.resource.id as number
  const visible = (await mk(p.admin, 'visible')).body.resource.id as number
  const role = async (name: string, authed_endpoints: number[], authed_tags: object[]) => {
    const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name, authed_endpoints, authed_tags })
    if (res.status !== 201) throw new Error(JSON.stringify(res.body))
    return res.body.resource.id as number
  }
  const give = async (roleId: number, u: { id: number }) => {
    if ((await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${roleId}/user/${u.id}`)).status !== 201) throw new Error('assign failed')
  }
  return { p, pid, hidden, visible, mk, role, give }
}

/** Every alert endpoint on `id` as `who`; returns [endpoint, status] pairs. */
async function attackAll(p: Awaited<ReturnType<typeof world>>['p'], who: Login, pid: number, id: number) {
  const calls: [number, string, string][] = [
    [102, 'POST', `/v2/alert/${id}/enable?project_id=${pid}`], [103, 'POST', `/v2/alert/${id}/disable?project_id=${pid}`],
    [106, 'PUT', `/v2/project/${pid}/alert/${id}`], [107, 'GET', `/v2/project/${pid}/alert/${id}`],
    [108, 'GET', `/v2/project/${pid}/alert/${id}/events`],
    [200, 'POST', `/v2/alert/${id}/acknowledge?project_id=${pid}`], [201, 'POST', `/v2/alert/${id}/clear?project_id=${pid}`],
    [104, 'DELETE', `/v2/alert/${id}?project_id=${pid}`],
  ]
  const out: { no: number; status: number; body: any }[] = []
  for (const [no, method, url] of calls) out.push({ no, ...await p.call(who, method as 'GET', url, method === 'PUT' ? {} : undefined) })
  return out
}

t.test('without the grant: 403 naming the endpoint, for every alert endpoint', async (t) => {
  const w = await world(t)
  const eve = await addUser(w.p, 'eve')
  await w.give(await w.role('reader', [52], [{ key: 'dataPointID', value: '*', read: true, write: true }]), eve)
  const made = await w.mk(eve, 'visible')
  t.same(made.body, { success: false, error: 'Unauthorized access to endpoint: 100 - POST /v2/alert/threshold', operation: 'create' })
  for (const r of await attackAll(w.p, eve, w.pid, w.visible)) t.equal(r.status, 403, `endpoint ${r.no}`)
  t.equal((await w.p.call(eve, 'GET', `/v2/project/${w.pid}/alerts`)).status, 403)
  t.ok(await w.p.catalog.alerts.find(w.visible), 'nothing was deleted')
})

t.test('a narrower TagAuth: the alert on the other datapoint does not exist for the caller', async (t) => {
  const w = await world(t)
  const mel = await addUser(w.p, 'mel')
  await w.give(await w.role('room A alerts', ALL_ALERTS, [{ key: 'room', value: 'A', read: true, write: false }]), mel)
  const made = await w.mk(mel, 'hidden')
  // 403 as every route refuses a named datapoint the caller cannot read (api/datapoint-access.ts; was 400 here)
  t.same([made.status, made.body.error], [403, "No read access to datapoint 'hidden'"])
  t.equal((await w.mk(mel, 'visible')).status, 201, 'positive control: room A is reachable')
  for (const r of await attackAll(w.p, mel, w.pid, w.hidden)) {
    t.equal(r.status, 404, `endpoint ${r.no}: 404`)
    t.equal(r.body.error, `Alert ${w.hidden} not found in project ${w.pid}`)
  }
  const list = (await w.p.call(mel, 'GET', `/v2/project/${w.pid}/alerts?search=hidden`)).body
  t.same(list.items, [], 'not listed, not even by search')
  const all = (await w.p.call(mel, 'GET', `/v2/project/${w.pid}/alerts`)).body
  t.same(all.items.map((a: any) => a.dataPointID), ['visible', 'visible'])
  t.notOk(JSON.stringify(all).includes(SECRET), 'no secret in the answer')
  t.match(await w.p.catalog.alerts.find(w.hidden), { status_code: 200 }, 'the hidden alert is untouched')

  // Write-only TagAuth on room B does not give read.
  const wo = await addUser(w.p, 'wo')
  await w.give(await w.role('room B write', ALL_ALERTS, [{ key: 'room', value: 'B', read: false, write: true }]), wo)
  t.equal((await w.p.call(wo, 'GET', `/v2/project/${w.pid}/alert/${w.hidden}`)).status, 404)
})

t.test('another company: nothing of project P is reachable, not even through its own project', async (t) => {
  const w = await world(t)
  const beta = { email: 'boss@beta.test', password: 'beta-password-1' }
  await w.p.catalog.createCompanyWithAdmin('Beta', beta) // the operator path
  const own = await addProject(w.p, beta, 'B-site')
  t.equal((await w.mk(beta, 'visible')).status, 404, 'create in P: project not found')
  t.equal((await w.p.call(beta, 'GET', `/v2/project/${w.pid}/alerts`)).status, 404)
  for (const r of await attackAll(w.p, beta, w.pid, w.visible)) t.equal(r.status, 404, `endpoint ${r.no} via P`)
  for (const r of await attackAll(w.p, beta, own.id, w.visible)) t.equal(r.status, 404, `endpoint ${r.no} via its own project`)
  t.same((await w.p.call(beta, 'GET', `/v2/project/${own.id}/alerts`)).body.items, [])
  t.match(await w.p.catalog.alerts.find(w.visible), { status_code: 200 }, 'untouched')
})

t.test('webhook URLs: internal addresses are refused at creation unless the operator allows them', async (t) => {
  const w = await world(t)
  const mkUrl = (url: string) => w.p.call(w.p.admin, 'POST', `/v2/alert/threshold?project_id=${w.pid}`, {
    name: url, dataPointID: 'visible', thresholds: { crit: { upper: 1 } }, notification: { webhook: { url, secret: SECRET } },
  })
  const cases: [string, string][] = [
    ['http://127.0.0.1:8080/x', '127.0.0.1'], ['http://localhost/x', '127.0.0.1'], ['http://[::1]:80/x', '::1'],
    ['http://169.254.169.254/latest/meta-data', '169.254.169.254'], ['http://10.1.2.3/x', '10.1.2.3'],
    ['http://192.168.0.10/x', '192.168.0.10'], ['http://[::ffff:127.0.0.1]/x', '::ffff:7f00:1'], ['http://0.0.0.0/x', '0.0.0.0'],
  ]
  for (const [url, address] of cases) {
    const res = await mkUrl(url)
    t.equal(res.status, 400, url)
    t.match(res.body.error, `is the internal address ${address} (loopback, private, link-local, reserved, or an IPv6 range that embeds an IPv4 address); the operator can allow it with LINTEL_WEBHOOK_ALLOW`, url)
  }
  t.equal((await w.p.call(w.p.admin, 'GET', `/v2/project/${w.pid}/alerts`)).body.meta.total_items, 2, 'none was created')
  t.equal((await mkUrl('https://hooks.example.com/lintel')).status, 201, 'a public host name is accepted (its address is checked when connecting)')
})
