// Issue 9 attacks on controls apps (issue 31), as outsiders would try them: every new endpoint
// without the grant (the registry's 403 text), with a narrower TagAuth (a user without write
// access to one pin's datapoint can neither create nor run the app; one who cannot read it does
// not see the app), from another company (404, nothing changes); and over MQTT: reports of an
// account that is not the project's edge agent are dropped (controls_not_edge), an APPDEF from
// any account is refused (only the platform deploys apps), another company's edge account is
// refused on this project's topic. Two companies: Live (A) and Beta (B).
import t from 'tap'
import { endpoints, deniedText } from '../../api/registry.ts'
import { controlsSite, FLOW_SP, VALVE, WEEK, type ControlsSite } from '../helpers/controls-site.ts'
import type { Login } from '../helpers/platform.ts'
import { waitFor, watchClose } from '../helpers/wait.ts'

const B: Login = { email: 'admin@beta.test', password: 'beta-admin-pass' }
const CONTROLS = endpoints.filter((e) => e.number >= 170 && e.number <= 189)
/** The setpoint pin and the valve: an app that writes both. */
const BOTH = { ...WEEK, week: [{ days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 21, valve_position: 20 } }] }

async function userWithProjectRole(site: ControlsSite, name: string, role: { authed_endpoints: number[]; authed_tags?: object[] }): Promise<Login> {
  const company = (await site.http('GET', '/v2/company')).body
  const login = { email: `${name}@live.test`, password: `${name}-password` }
  const u = await site.http('POST', '/v2/company/user', { company_id: company.company.id, firstName: name, lastName: 'Test', ...login })
  const r = await site.http('POST', `/v2/project/${site.pid}/role`, { name: `${name}-role`, ...role })
  if (u.status !== 201 || r.status !== 201) throw new Error(JSON.stringify([u.body, r.body]))
  await site.http('POST', `/v2/project/${site.pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
  return login
}

/** Endpoint x on the site's resources. */
function urlOf(site: ControlsSite, x: { path: string }, appId: string): string {
  const path = x.path.replace('{project_id}', String(site.pid)).replace('{componentinproject_id}', String(site.cip)).replace('{controls_app_id}', appId)
  const q = x.path.includes('{project_id}') ? '?' : `?project_id=${site.pid}&`
  return `${path}${q}componentinproject_id=${site.cip}&algorithm=schedule&controls_app_id=${appId}&start=2026-01-05&end=2026-01-12`
}

t.test('HTTP: no grant, a narrower TagAuth, another company', async (t) => {
  const site = await controlsSite(t)
  const appId = (await site.create(BOTH)).body.resource.id as string

  // Without the grant: the registry's text for every controls endpoint, before anything else is checked.
  const none = await userWithProjectRole(site, 'none', { authed_endpoints: [30] })
  for (const x of CONTROLS) {
    const res = await site.http(x.method, urlOf(site, x, appId), x.method === 'POST' || x.method === 'PUT' ? {} : undefined, none)
    t.same([res.status, res.body.error], [403, deniedText(x)], `${x.number} ${x.method} ${x.path}`)
  }

  // Every endpoint, write on the valve only (read on both): cannot create or run an app that writes the setpoint too.
  const all = CONTROLS.map((x) => x.number)
  const narrow = await userWithProjectRole(site, 'narrow', {
    authed_endpoints: all, authed_tags: [{ key: 'dataPointID', value: VALVE, read: true, write: true }, { key: 'dataPointID', value: FLOW_SP, read: true, write: false }],
  })
  const created = await site.create(BOTH, '', narrow)
  t.same([created.status, created.body.error], [403, `No write access to datapoint '${FLOW_SP}'`])
  t.same((await site.run(appId, true, narrow)).body.error, `No write access to datapoint '${FLOW_SP}'`)
  t.equal((await site.run(appId, false, narrow)).status, 403, 'nor stop it')
  t.equal((await site.http('DELETE', `/v2/controls/app?project_id=${site.pid}&controls_app_id=${appId}`, undefined, narrow)).status, 403, 'nor delete it')
  const multi = await site.http('POST', `/v2/controls/apps/run?project_id=${site.pid}`, { run: true, controls_app_ids: [appId] }, narrow)
  t.match(multi.body, { succeeded: 0, failed: 1, results: [{ controls_app_id: appId, affected: false, http_status: 403, error: `No write access to datapoint '${FLOW_SP}'` }] })
  t.equal((await site.get(appId, narrow)).status, 200, 'it reads both datapoints: it sees the app')
  const valveOnly = await site.create({ week: [{ days: ['mon'], time: '06:00', values: { valve_position: 20 } }] }, '', narrow)
  t.equal(valveOnly.status, 201, 'an app on the valve alone is within its TagAuth')
  t.equal((await site.run(valveOnly.body.resource.id, true, narrow)).status, 200)

  t.equal((await site.run(appId)).status, 200, 'the admin runs it')
  const before = (await site.get(appId)).body

  // Read on the valve only: the app that writes the setpoint does not exist for it.
  const blind = await userWithProjectRole(site, 'blind', { authed_endpoints: all, authed_tags: [{ key: 'dataPointID', value: VALVE, read: true, write: true }] })
  t.same([(await site.get(appId, blind)).status, (await site.get(appId, blind)).body.error], [404, `Controls app '${appId}' not found in project ${site.pid}`])
  t.equal((await site.logs(appId, '', blind)).status, 404)
  t.equal((await site.run(appId, true, blind)).status, 404, 'not found rather than refused: it does not learn the app exists')
  const listed = (await site.http('GET', `/v2/controls/apps?project_id=${site.pid}`, undefined, blind)).body
  t.same([listed.meta.total_items, listed.items.map((a: any) => a.id)], [1, [valveOnly.body.resource.id]], 'the list holds only what it sees')
  const sched = (await site.http('GET', `/v2/project/${site.pid}/componentinproject/${site.cip}/schedules?start=2026-01-05&end=2026-01-12`, undefined, blind)).body
  t.same(sched.apps.map((a: any) => a.controls_app_id), [valveOnly.body.resource.id])
  const cal = await site.http('PUT', `/v2/project/${site.pid}/holidays`, [], blind)
  t.same([cal.status, cal.body.error], [403, `No write access to datapoint '${FLOW_SP}'`], 'the calendar changes a running app it cannot write')

  // Another company: the project does not exist for it, whatever the endpoint.
  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  for (const x of CONTROLS) {
    const res = await site.http(x.method, urlOf(site, x, appId), x.method === 'POST' ? BOTH : x.method === 'PUT' ? [] : undefined, B)
    t.same([res.status, res.body.error], [404, `Project ${site.pid} not found`], `Beta: ${x.number} ${x.method} ${x.path}`)
  }
  // Beta's own project, naming A's app and component: 404 too.
  const bPid = (await site.http('POST', '/v2/company/project', { name: 'B-site' }, B)).body.resource.project.id
  await site.platform.catalog.setpoints.setSettings(bPid, { enabled: true })
  for (const [method, url] of [['GET', `/v2/controls/app/${appId}?project_id=${bPid}`], ['POST', `/v2/controls/app/${appId}/run?project_id=${bPid}`],
    ['DELETE', `/v2/controls/app?project_id=${bPid}&controls_app_id=${appId}`], ['GET', `/v2/controls/app/${appId}/logs?project_id=${bPid}`],
    ['GET', `/v2/project/${bPid}/componentinproject/${site.cip}/schedules?start=2026-01-05&end=2026-01-12`]]) {
    t.equal((await site.http(method, url, undefined, B)).status, 404, `through B: ${method} ${url}`)
  }
  const planted = await site.http('POST', `/v2/controls/app?project_id=${bPid}&componentinproject_id=${site.cip}&algorithm=schedule`, BOTH, B)
  t.same([planted.status, planted.body.error], [404, `Component in project ${site.cip} not found in project ${bPid}`])
  t.same((await site.get(appId)).body, before, 'A\'s app unchanged')
})

t.test('MQTT: reports only from the project\'s edge agent; APPDEF from nobody but the platform', async (t) => {
  const site = await controlsSite(t)
  const metrics = () => site.platform.broker.metricsOf([site.pid])
  const id = (await site.create()).body.resource.id as string
  await site.run(id)
  await site.edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2')

  // A full write account of the project, not designated: its reports are dropped and counted.
  const plain = await site.connect(await site.account(site.pid, 'gw-plain', 'write'))
  await plain.publishAsync(site.topic, JSON.stringify({ type: 'APPSTATE', swop_version: 0.1, app_id: id, revision: 2, state: 'Failed', reason: 'forged' }), { qos: 1 })
  await plain.publishAsync(site.topic, JSON.stringify({ type: 'APPLOG', swop_version: 0.1, app_id: id, seq: 1, time: new Date().toISOString(), kind: 'write', message: 'forged' }), { qos: 1 })
  await plain.publishAsync(site.topic, JSON.stringify({ type: 'APPSYNC', swop_version: 0.1, apps: [] }), { qos: 1 })
  t.equal(metrics().controls_not_edge, 3, 'all three dropped and counted')
  // Nobody deploys an app but the platform: an APPDEF from the edge account itself is refused and not forwarded.
  const seen = site.edge.defs.length
  const forged = { type: 'APPDEF', swop_version: 0.1, app_id: 'forged', revision: 1, desired: 'run', algorithm: 'schedule', zone: 'UTC', pins: { p: FLOW_SP }, configuration: { week: [{ days: ['mon'], time: '06:00', values: { p: 30 } }] }, holidays: [] }
  await site.edge.client.publishAsync(site.topic, JSON.stringify(forged), { qos: 1 })
  t.equal(metrics().controls_refused, 1, 'refused and counted')
  // The edge's own report after it: once it moved the app, the forged messages above were handled.
  await site.edge.state(id, 2, 'Running')
  const app = await site.settled(id, (a) => a.status.code === 202, 'Running')
  t.same(app.status, { code: 202, message: 'Running', reason: '' }, 'the forged Failed did not count')
  t.notOk(site.edge.defs.slice(seen).some((d) => d.app_id === 'forged'), 'the forged APPDEF reached no subscriber')
  t.equal((await site.logs(id)).body.items.filter((e: any) => e.seq !== null).length, 0, 'the forged APPLOG was not stored')

  // Another company's designated edge account on A's topic: refused, the connection closed.
  await site.platform.catalog.createCompanyWithAdmin('Beta', B)
  const bPid = (await site.http('POST', '/v2/company/project', { name: 'B-site' }, B)).body.resource.project.id
  await site.http('POST', `/v2/project/${bPid}/mqttuser`, { username: 'beta-edge', password: 'beta-edge-password', rights: 'write', edge: true }, B)
  const beta = await site.connect({ username: 'beta-edge', password: 'beta-edge-password' })
  const closed = watchClose(beta)
  beta.publish(site.topic, JSON.stringify({ type: 'APPSTATE', swop_version: 0.1, app_id: id, revision: 2, state: 'Stopped' }), { qos: 1 })
  await closed.within({ what: 'the other company\'s edge connection publishing on A\'s topic', cause: { what: 'its publish was refused', check: () => site.platform.broker.metricsOf([bPid]).publishes_refused === 1 } })
  t.equal((await site.get(id)).body.status.code, 202, 'still Running')
})

t.test('MQTT: the edge flag switched off on a connected edge agent: its next report is refused within about a second', async (t) => {
  const site = await controlsSite(t)
  const metrics = () => site.platform.broker.metricsOf([site.pid])
  const id = (await site.create()).body.resource.id as string
  await site.run(id)
  await site.edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2')
  const log = (seq: number) => JSON.stringify({ type: 'APPLOG', swop_version: 0.1, app_id: id, seq, time: new Date().toISOString(), kind: 'write', message: `entry ${seq}` })
  await site.edge.client.publishAsync(site.topic, log(1), { qos: 1 })
  await waitFor(async () => (await site.logs(id)).body.items.some((e: any) => e.seq === 1), { what: 'the designated agent\'s APPLOG stored' })

  // The operator's `lintel mqtt edge --disable`, from outside the broker: the session keeps no
  // stale flag past the grant tick (1 s). Reports are sent every 50 ms until one is refused.
  const flipped = Date.now()
  t.equal(await site.platform.catalog.mqttAccounts.setEdge(site.edgeAccount.username, false), true)
  let seq = 1
  let client = site.edge.client
  const refusedMs = await waitFor(async () => {
    if (metrics().controls_not_edge > 0) return Date.now() - flipped
    if (!client.connected) client = await site.connect(site.edgeAccount) // the tick ended the old session
    client.publish(site.topic, log(++seq), { qos: 1 })
    return undefined
  }, { what: 'a report of the account to be refused', timeoutMs: 10_000, intervalMs: 50 })
  t.ok(refusedMs < 2_500, `refused ${refusedMs} ms after the change`)
  t.equal(metrics().controls_not_edge, 1)
  const stored = ((await site.logs(id)).body.items as any[]).filter((e) => e.seq !== null).map((e) => e.seq as number)
  t.ok(stored.every((n) => n < seq), `stored ${JSON.stringify(stored)}: not the refused entry ${seq}`)
})

