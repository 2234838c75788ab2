// Issue 9 attacks on setpoints (issue 11), as outsiders would try them: every new endpoint
// without the grant, with a narrower TagAuth and from another company; acknowledgements from
// accounts that must not give them (another company, read rights, a narrower reach) and
// NEWSPT hidden from a reader outside the datapoint. Two companies: Live (A) and Beta (B).
import t, { type Test } from 'tap'
import { watchClose } from '../helpers/wait.ts'
import { until } from '../helpers/live-platform.ts'
import type { Login } from '../helpers/platform.ts'
import { setpointSite } from '../helpers/setpoint-site.ts'

const B: Login = { email: 'admin@beta.test', password: 'beta-admin-pass' }
type Site = Awaited<ReturnType<typeof setpointSite>>
const NULLS = new Array(16).fill(null)

async function userWithProjectRole(site: Site, pid: number, name: string, role: { authed_endpoints: number[]; authed_tags?: object[] }): Promise<Login> {
  const company = (await site.http('GET', '/v2/company')).body
  const login = { email: `${name}@live.test`, password: `${name}-password` }
  const u = await site.http('POST', '/v2/company/user', { company_id: company.company.id, firstName: name, lastName: 'Test', ...login })
  const r = await site.http('POST', `/v2/project/${pid}/role`, { name: `${name}-role`, ...role })
  if (u.status !== 201 || r.status !== 201) throw new Error(JSON.stringify([u.body, r.body]))
  await site.http('POST', `/v2/project/${pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
  return login
}

async function setup(t: Test) {
  const site = await setpointSite(t, { LINTEL_SETPOINT_TIMEOUT_MS: '60000' })
  await site.platform.catalog.createCompanyWithAdmin('Beta', B) // the operator path (lintel company create)
  // One written operation on ahu-1.sp by the admin, while the edge is up.
  const written = (await site.write('dataPointID=ahu-1.sp&value=21&acked=true')).body.resource.reference as string
  t.equal((await site.settled(written)).status, 'written')
  return { site, written }
}

t.test('HTTP: no grant, a narrower TagAuth, another company', async (t) => {
  const { site, written } = await setup(t)
  const pid = site.pid
  const dp = (id: string) => `project_id=${pid}&dataPointID=${id}`

  // Without the grant: the registry's text, before anything about the project is told.
  const none = await userWithProjectRole(site, pid, 'none', { authed_endpoints: [30] })
  const r1 = await site.write('dataPointID=ahu-1.sp&value=20', none)
  t.equal(r1.status, 403)
  t.equal(r1.body.error, 'Unauthorized access to endpoint: 141 - POST /v2/datapoint/setpoint')
  t.equal((await site.http('PUT', `/v2/datapoint?${dp('ahu-1.sp')}`, { setpoint_min_value: 0, setpoint_max_value: 99 }, none)).body.error, 'Unauthorized access to endpoint: 140 - PUT /v2/datapoint')
  t.equal((await site.op(written, none)).body.error, 'Unauthorized access to endpoint: 142 - GET /v2/datapoint/setpoint/{reference}')
  t.equal((await site.http('GET', `/v2/datapoint/setpoints?${dp('ahu-1.sp')}`, undefined, none)).status, 403)

  // A narrower TagAuth: all four endpoints, but write (and read) on ahu-2.sp only.
  const narrow = await userWithProjectRole(site, pid, 'narrow', {
    authed_endpoints: [140, 141, 142, 143], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.sp', read: true, write: true }],
  })
  const r2 = await site.write('dataPointID=ahu-1.sp&value=20&acked=true', narrow)
  t.equal(r2.status, 403)
  t.equal(r2.body.error, "Unauthorized access to endpoint: 141 - POST /v2/datapoint/setpoint: no write access to datapoint 'ahu-1.sp'")
  t.equal((await site.http('PUT', `/v2/datapoint?${dp('ahu-1.sp')}`, { setpoint_min_value: 0, setpoint_max_value: 99 }, narrow)).status, 403, 'cannot widen the bounds')
  t.equal((await site.op(written, narrow)).status, 404, 'an operation on a datapoint outside the TagAuth is not found')
  t.equal((await site.http('GET', `/v2/datapoint/setpoints?${dp('ahu-1.sp')}`, undefined, narrow)).status, 404)
  const mine = await site.write('dataPointID=ahu-2.sp&value=20&acked=true', narrow)
  t.equal(mine.status, 200, 'inside the TagAuth it works')
  t.equal((await site.settled(mine.body.resource.reference)).status, 'written')
  // Read-only on a datapoint: readable, not writable.
  const reader = await userWithProjectRole(site, pid, 'reader', {
    authed_endpoints: [141, 142], authed_tags: [{ key: 'dataPointID', value: 'ahu-1.sp', read: true, write: false }],
  })
  t.equal((await site.op(written, reader)).body.status, 'written')
  t.equal((await site.write('dataPointID=ahu-1.sp&value=20', reader)).status, 403)

  // Another company: nothing of project A exists for it.
  for (const [method, path] of [['POST', `/v2/datapoint/setpoint?${dp('ahu-1.sp')}&value=20`], ['PUT', `/v2/datapoint?${dp('ahu-1.sp')}`],
    ['GET', `/v2/datapoint/setpoint/${written}`], ['GET', `/v2/datapoint/setpoints?${dp('ahu-1.sp')}`],
    ['GET', `/v2/datapoint/setpoint/${written}?project_id=${pid}`]] as const) {
    const res = await site.http(method, path, method === 'PUT' ? { setpoint_min_value: 0, setpoint_max_value: 1 } : undefined, B)
    t.equal(res.status, 404, `${method} ${path}`)
    t.notMatch(JSON.stringify(res.body), /ahu-1|21/, 'and tells nothing about it')
  }
  const bPid = (await site.http('POST', '/v2/company/project', { name: 'B-site' }, B)).body.resource.project.id
  t.equal((await site.op(written + `?project_id=${bPid}`, B)).status, 404, 'naming an own project does not reach another company\'s operation')
  t.equal((await site.op('no-such-reference')).status, 404)
})

t.test('MQTT: acknowledgements only from the project\'s own write accounts with the datapoint in reach', async (t) => {
  const { site } = await setup(t)
  await site.agent.stop() // answers come from the attackers only
  const pid = site.pid
  const service = site.platform.setpoints!
  const pending = (await site.write('dataPointID=ahu-1.sp&value=22&acked=true')).body.resource.reference as string
  const ack = (datapoint = 'ahu-1.sp') => JSON.stringify({ type: 'SPTACK', swop_version: 0.1, reference: pending, datapoint, result: 'written', priorityArray: NULLS })
  const topicA = `CONTROLS/${site.group}/${site.handle}`

  // Another company's write account: on its own topic the answer is ignored; on A's topic refused.
  const bPid = (await site.http('POST', '/v2/company/project', { name: 'B-site' }, B)).body.resource.project.id
  const bs = await site.platform.catalog.projects.settings(bPid)
  const bAcct = await site.http('POST', `/v2/project/${bPid}/mqttuser`, { username: 'beta-w', password: 'beta-w-password', rights: 'write', edge: true }, B) // B's edge agent (issue 29)
  t.equal(bAcct.status, 201)
  const beta = await site.connect({ username: 'beta-w', password: 'beta-w-password' })
  const ignored = service.counters.answers_ignored
  await beta.publishAsync(`CONTROLS/${bs.load_balancing_group}/${bs.project_handle}`, ack(), { qos: 1 })
  t.ok(await until(() => service.counters.answers_ignored === ignored + 1), 'an answer from another project is ignored')
  const betaClosed = watchClose(beta)
  beta.publish(topicA, ack(), { qos: 1 })
  await betaClosed.within({ what: 'the other company\'s connection answering on A\'s topic', cause: { what: 'its publish was refused', check: () => site.platform.broker.metricsOf([bPid]).publishes_refused === 1 } })
  t.equal(site.platform.broker.metricsOf([bPid]).publishes_refused, 1, 'publishing on another project\'s CONTROLS topic is refused')

  // A read account of project A cannot answer.
  const ro = await site.connect(await site.account(pid, 'ro', 'read'))
  const roRefused = site.platform.broker.metricsOf([pid]).publishes_refused
  const roClosed = watchClose(ro)
  ro.publish(topicA, ack(), { qos: 1 })
  await roClosed.within({ what: 'the read account\'s connection answering on CONTROLS', cause: { what: 'its publish was refused (read rights only)', check: () => site.platform.broker.metricsOf([pid]).publishes_refused === roRefused + 1 } })

  // A write account created by a user whose TagAuth covers ahu-2.sp only: its answer for
  // ahu-1.sp is dropped, and its reader does not see NEWSPT for ahu-1.sp.
  const narrow = await userWithProjectRole(site, pid, 'gw', {
    authed_endpoints: [50, 52, 60], authed_tags: [{ key: 'dataPointID', value: 'ahu-2.sp', read: true, write: true }],
  })
  const nAcct = await site.http('POST', `/v2/project/${pid}/mqttuser`, { username: 'gw-w', password: 'gw-w-password', rights: 'write' }, narrow)
  t.equal(nAcct.status, 201)
  const gw = await site.connect({ username: 'gw-w', password: 'gw-w-password' })
  const seen: string[] = []
  await gw.subscribeAsync(topicA, { qos: 1 })
  gw.on('message', (_t, p) => { const m = JSON.parse(String(p)); if (m.type === 'NEWSPT') seen.push(m.datapoint) })
  const outside = site.platform.broker.metricsOf([pid]).controls_outside_grant ?? 0
  await gw.publishAsync(topicA, ack(), { qos: 1 })
  t.equal(site.platform.broker.metricsOf([pid]).controls_outside_grant, outside + 1, 'dropped: ahu-1.sp is outside the account\'s write reach')
  await site.write('dataPointID=ahu-1.sp&value=23&acked=true')
  await site.write('dataPointID=ahu-2.sp&value=23&acked=true')
  t.ok(await until(() => seen.length > 0))
  t.same(seen, ['ahu-2.sp'], 'NEWSPT for a datapoint outside the reader\'s reach is not forwarded')

  t.equal((await site.op(pending)).body.status, 'requested', 'no attacker moved the operation')
  // The project's own full write account can.
  const own = await site.connect(site.edgeAccount)
  await own.publishAsync(topicA, ack(), { qos: 1 })
  t.ok(await until(async () => (await site.op(pending)).body.status === 'written'))
})
