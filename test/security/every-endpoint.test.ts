// Issue 9, the guide's rule for every endpoint, driven by the registry (api/registry.ts), so
// an endpoint added later is covered without touching this file:
// - without a session every endpoint answers 401;
// - a user holding EVERY other grant (a company role and a project role with all endpoints
//   but one, TagAuth dataPointID=* read/write) is refused that one with the exact 403 text
//   of spec 1 ("Unauthorized access to endpoint: N - METHOD path"), and is not refused it
//   once the endpoint is granted (the URLs are real, the refusal is about the grant);
// - resources of project P are out of reach through another project: from another company
//   (Beta, through its own project) and from the admin of a sibling project (Q), by every
//   id-bearing endpoint; Acme's company roles and users are out of Beta's reach. Afterwards
//   everything of Acme reads exactly as before.
// Narrower TagAuths are endpoint-specific and tested beside each feature (see the README's
// "Access" section and test/security/*.test.ts).
import t, { type Test } from 'tap'
import { deniedText, endpoints, type Endpoint } from '../../api/registry.ts'
import { addProject, addUser, platform, type Login, type Platform } from '../helpers/platform.ts'

const T0 = Date.UTC(2024, 0, 1)
const series = (f: (h: number) => number) => Array.from({ length: 48 }, (_, h) => ({ time: new Date(T0 + h * 3_600_000).toISOString(), value: f(h) }))
const granted = endpoints.filter((x) => x.scope !== 'User').map((x) => x.number)
const projectScoped = endpoints.filter((x) => x.scope === 'Project').map((x) => x.number)
/** The refusal's text: the envelope's `error`, or the `dis` of a Haystack error grid (JSON, /haystack/...). */
const errorOf = (body: any): unknown => body?.error ?? body?.meta?.dis

async function ok(p: Platform, who: Login, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, body?: unknown): Promise<any> {
  const res = await p.call(who, method, url, body)
  if (res.status >= 300) throw new Error(`${method} ${url}: ${res.status} ${JSON.stringify(res.body)}`)
  return res.body
}

/** Acme with project P holding one of everything; project Q beside it; Beta with project B. */
async function world(t: Test) {
  const p = await platform(t)
  const a = p.admin
  const { id: pid } = await addProject(p, a, 'P')
  await ok(p, a, 'POST', `/v2/project/${pid}/timeseries`, { 'hc1/flow': series((h) => 50 - h / 10), 'hc1/return': series((h) => 40 - h / 10), 'weather/oat': series((h) => h % 12), dp: series(() => 1) })
  const role = (await ok(p, a, 'POST', `/v2/project/${pid}/role`, { name: 'victim-role', authed_endpoints: [52], authed_tags: [{ key: 'dataPointID', value: 'dp', read: true, write: false }] })).resource
  const victim = await addUser(p, 'victim')
  await ok(p, a, 'POST', `/v2/project/${pid}/role/${role.id}/user/${victim.id}`)
  const companyRole = (await ok(p, a, 'POST', '/v2/company/role', { name: 'victim-company-role', authed_endpoints: [10] })).resource
  await ok(p, a, 'POST', `/v2/company/role/${companyRole.id}/user/${victim.id}`)
  const mqtt = (await ok(p, a, 'POST', `/v2/project/${pid}/mqttuser`, { username: 'acme-dev', password: 'acme-dev-password-1', rights: 'write' })).resource
  await ok(p, a, 'POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=v&type=formula`, { pins: { P1: { dataPointID: 'dp' } }, parameters: { formula: 'P1 * 2' } })
  const alert = (await ok(p, a, 'POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'high', dataPointID: 'dp', thresholds: { crit: { upper: 5 } } })).resource
  const cip = (await ok(p, a, 'POST', `/v2/project/${pid}/componentInProject`, { component_id: 5, display_name: 'HC 1' })).resource
  await ok(p, a, 'POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [
    { pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/flow' }, { pin_alphanumeric_id: 'return_temp', dataPointID: 'hc1/return' }, { pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'weather/oat' }] })
  const attribute = (await ok(p, a, 'GET', '/v2/component/5/attributeDefinitions'))[0]
  const instance = (await ok(p, a, 'POST', `/v2/analytics/instance?project_id=${pid}`, { analysisfunction_id: 2, componentinproject_id: cip.id, name: 'Curve' })).resource
  const result = (await ok(p, a, 'POST', `/v2/analytics/instance/${instance.id}/run?project_id=${pid}&start=2024-01-01&end=2024-01-03`)).resource

  const beta = { email: 'boss@beta.test', password: 'beta-password-1' }
  const betaCompany = (await p.catalog.createCompanyWithAdmin('Beta', beta)).user.company_id
  const { id: pidB } = await addProject(p, beta, 'B')
  const betaUser = (await ok(p, beta, 'POST', '/v2/company/user', { company_id: betaCompany, firstName: 'b', lastName: 'b', email: 'b@beta.test', password: 'b-password-12' })).resource
  const betaRole = (await ok(p, beta, 'POST', '/v2/company/role', { name: 'beta-role', authed_endpoints: [10] })).resource
  const betaProjectRole = (await ok(p, beta, 'POST', `/v2/project/${pidB}/role`, { name: 'beta-project-role', authed_endpoints: [52], authed_tags: [] })).resource
  await ok(p, beta, 'POST', `/v2/project/${pidB}/timeseries`, { dp: series(() => 2) })

  const q = await addProject(p, a, 'Q')
  const qAdmin = await addUser(p, 'qadmin')
  await ok(p, a, 'POST', `/v2/project/${q.id}/role/${q.adminRoleId}/user/${qAdmin.id}`)
  await ok(p, a, 'POST', `/v2/project/${q.id}/timeseries`, { dp: series(() => 3) })

  const ids = { pid, role: role.id, tagauth: role.authed_tags[0].id, victim: victim.id, companyRole: companyRole.id, mqtt: mqtt.id, alert: alert.id, cip: cip.id, attribute: attribute.id, instance: instance.id, result: result.result_id }
  return { p, ids, victim, beta, betaCompany, betaUser, betaRole, betaProjectRole, pidB, q, qAdmin }
}

type World = Awaited<ReturnType<typeof world>>

/** The URL of endpoint x on P's resources; Project endpoints whose path names no project take it as project_id. */
function urlOf(x: Endpoint, w: World): string {
  const values: Record<string, string | number> = {
    project_id: w.ids.pid, role_id: x.scope === 'Company' ? w.ids.companyRole : w.ids.role, user_id: w.ids.victim, tagauth_id: w.ids.tagauth,
    mqttuser_id: w.ids.mqtt, alert_id: w.ids.alert, componentinproject_id: w.ids.cip, component_id: 5, instance_id: w.ids.instance,
    result_id: w.ids.result, reference: 'no-such-reference', format: 'csv', controls_app_id: 'no-such-app', plotview_id: 1, export_id: 1,
  }
  const path = x.path.replace(/\{(\w+)\}/g, (_, name: string) => {
    if (!(name in values)) throw new Error(`endpoint ${x.number}: no test value for {${name}}; add one to urlOf`)
    return String(values[name])
  })
  return x.scope === 'Project' && !x.path.includes('{project_id}') ? `${path}?project_id=${w.ids.pid}` : path
}

/** What Acme's admin reads of P's resources and the victim's roles: must not change under attack. */
async function snapshot(w: World) {
  const { p, ids } = w
  const a = p.admin
  const q = `project_id=${ids.pid}`
  return {
    role: await ok(p, a, 'GET', `/v2/project/${ids.pid}/role/${ids.role}`),
    companyRole: await ok(p, a, 'GET', `/v2/company/role/${ids.companyRole}`),
    victim: await ok(p, w.victim, 'GET', '/v2/user'),
    users: (await ok(p, a, 'GET', '/v2/company')).users ?? null,
    mqtt: await ok(p, a, 'GET', `/v2/project/${ids.pid}/mqttuser/${ids.mqtt}`),
    vdp: (await ok(p, a, 'GET', `/v2/project/${ids.pid}/virtual_datapoint?dataPointID=v`)).status,
    alert: await ok(p, a, 'GET', `/v2/project/${ids.pid}/alert/${ids.alert}`),
    cip: await ok(p, a, 'GET', `/v2/project/${ids.pid}/componentInProject/${ids.cip}`),
    instance: await ok(p, a, 'GET', `/v2/analytics/instance/${ids.instance}?${q}`),
    results: await ok(p, a, 'GET', `/v2/analytics/instance/${ids.instance}/results?${q}`),
  }
}

t.test('without a session every endpoint answers 401', async (t) => {
  const w = await world(t)
  for (const x of endpoints) {
    const res = await w.p.call(null, x.method, urlOf(x, w))
    t.equal(res.status, 401, `${x.number} ${x.method} ${x.path}`)
  }
})

t.test('every other grant held, one missing: that endpoint is refused with its 403 text, and allowed once granted', async (t) => {
  const w = await world(t)
  const { p, ids } = w
  const u = await addUser(p, 'almost')
  const companyRole = (await ok(p, p.admin, 'POST', '/v2/company/role', { name: 'all-but-one', authed_endpoints: [] })).resource.id
  const projectRole = (await ok(p, p.admin, 'POST', `/v2/project/${ids.pid}/role`, { name: 'all-but-one', authed_endpoints: [], authed_tags: [{ key: 'dataPointID', value: '*', read: true, write: true }] })).resource.id
  await ok(p, p.admin, 'POST', `/v2/company/role/${companyRole}/user/${u.id}`)
  await ok(p, p.admin, 'POST', `/v2/project/${ids.pid}/role/${projectRole}/user/${u.id}`)
  const holdAllBut = async (missing: number | undefined) => {
    await ok(p, p.admin, 'PUT', `/v2/company/role/${companyRole}`, { authed_endpoints: granted.filter((n) => n !== missing) })
    await ok(p, p.admin, 'PUT', `/v2/project/${ids.pid}/role/${projectRole}`, { authed_endpoints: projectScoped.filter((n) => n !== missing) })
  }
  for (const x of endpoints.filter((e) => e.scope !== 'User')) {
    await holdAllBut(x.number)
    const res = await p.call(u, x.method, urlOf(x, w))
    t.same([res.status, errorOf(res.body)], [403, deniedText(x)], `${x.number} ${x.method} ${x.path}`)
  }
  // Positive control, in registry order with the project's own deletion last: the same URLs
  // are not refused for the grant once it is held (they may fail for other reasons: no body).
  await holdAllBut(undefined)
  const order = endpoints.filter((e) => e.scope !== 'User').sort((a, b) => Number(a.number === 32) - Number(b.number === 32))
  for (const x of order) {
    const res = await p.call(u, x.method, urlOf(x, w))
    t.not(errorOf(res.body), deniedText(x), `${x.number} granted: ${res.status}`)
    t.not(res.status, 401)
  }
})

/** Calls on P's resources through the attacker's project `pid`: every one must answer 404 and change nothing. */
function throughProject(w: World, pid: number, ownUser: number, ownRole: number): [number, 'GET' | 'POST' | 'PUT' | 'DELETE', string, unknown?][] {
  const { ids } = w
  const base = `/v2/project/${pid}`
  const q = `project_id=${pid}`
  const cipBody = { componentinproject_id: ids.cip, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'dp' }] }
  const attrBody = { componentinproject_id: ids.cip, attributes: [{ attribute_id: ids.attribute, value: 'pwned' }] }
  return [
    [35, 'GET', `${base}/role/${ids.role}`], [36, 'PUT', `${base}/role/${ids.role}`, { name: 'pwned' }],
    [38, 'POST', `${base}/role/${ids.role}/tagauth`, { key: 'dataPointID', value: '*', read: true, write: true }],
    [39, 'DELETE', `${base}/role/${ids.role}/tagauth/${ids.tagauth}`],
    [40, 'POST', `${base}/role/${ids.role}/user/${ownUser}`], [41, 'DELETE', `${base}/role/${ids.role}/user/${ids.victim}`],
    [37, 'DELETE', `${base}/role/${ids.role}`],
    [63, 'GET', `${base}/mqttuser/${ids.mqtt}`], [61, 'PUT', `${base}/mqttuser/${ids.mqtt}`, { password: 'pwned-password-1' }],
    [64, 'DELETE', `${base}/mqttuser/${ids.mqtt}`],
    [102, 'POST', `/v2/alert/${ids.alert}/enable?${q}`], [103, 'POST', `/v2/alert/${ids.alert}/disable?${q}`], [106, 'PUT', `${base}/alert/${ids.alert}`, {}],
    [107, 'GET', `${base}/alert/${ids.alert}`], [108, 'GET', `${base}/alert/${ids.alert}/events`], [104, 'DELETE', `/v2/alert/${ids.alert}?${q}`],
    [114, 'GET', `${base}/componentInProject/${ids.cip}`], [115, 'PUT', `${base}/componentInProject/${ids.cip}`, { display_name: 'pwned' }],
    [124, 'GET', `${base}/componentInProject/${ids.cip}/suggestions`],
    [118, 'POST', `${base}/componentInProject/pin/datapoint`, cipBody], [119, 'PUT', `${base}/componentInProject/pin/datapoint`, cipBody],
    [120, 'DELETE', `${base}/componentInProject/pin/datapoint?componentinproject_id=${ids.cip}&pin_alphanumeric_id=flow_temp`],
    [121, 'POST', `${base}/componentInProject/attribute`, attrBody], [122, 'PUT', `${base}/componentInProject/attribute`, attrBody],
    [123, 'DELETE', `${base}/componentInProject/attribute?componentinproject_id=${ids.cip}&attribute_id=${ids.attribute}`],
    [151, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: 4, componentinproject_id: ids.cip, name: 'pwned' }],
    [152, 'GET', `/v2/analytics/instance/${ids.instance}?${q}`], [154, 'POST', `/v2/analytics/instance/${ids.instance}/run?${q}&start=2024-01-01&end=2024-01-03`],
    [156, 'GET', `/v2/analytics/componentInProject/${ids.cip}/results?${q}`], [158, 'GET', `/v2/analytics/instance/${ids.instance}/results?${q}`],
    [159, 'GET', `/v2/analytics/instance/${ids.instance}/result/${ids.result}?${q}`], [160, 'PUT', `/v2/analytics/instance/${ids.instance}?${q}`, { name: 'pwned' }],
    [161, 'DELETE', `/v2/analytics/instance/${ids.instance}?${q}`],
    [116, 'DELETE', `${base}/componentInProject/${ids.cip}`],
    // The attacker's own role given to P's user: across companies only (Q's admin may assign Q roles to Acme's users).
    ...(ownRole ? [[40, 'POST', `${base}/role/${ownRole}/user/${ids.victim}`] as [number, 'POST', string]] : []),
  ]
}

t.test('resources of project P through another project: another company and a sibling project\'s admin get 404, nothing changes', async (t) => {
  const w = await world(t)
  const { p, ids } = w
  const before = await snapshot(w)
  for (const [who, name, pid, ownUser, ownRole] of [
    [w.beta, 'Beta through its project', w.pidB, w.betaUser.id, w.betaProjectRole.id],
    [w.qAdmin, 'Q\'s admin through Q', w.q.id, w.qAdmin.id, 0],
  ] as const) {
    for (const [no, method, url, body] of throughProject(w, pid, ownUser, ownRole)) {
      const res = await p.call(who, method, url, body)
      t.equal(res.status, 404, `${name}: ${no} ${method} ${url} → ${JSON.stringify(res.body)}`)
    }
  }
  // Beta on P directly: the project does not exist for it, whatever the endpoint.
  for (const x of endpoints.filter((e) => e.scope === 'Project')) {
    const res = await p.call(w.beta, x.method, urlOf(x, w))
    t.same([res.status, errorOf(res.body)], [404, `Project ${ids.pid} not found`], `Beta on P: ${x.number} ${x.method} ${x.path}`)
  }
  // Acme's company roles and users are out of Beta's reach.
  for (const [no, method, url, body] of [
    [16, 'GET', `/v2/company/role/${ids.companyRole}`], [17, 'PUT', `/v2/company/role/${ids.companyRole}`, { name: 'pwned' }],
    [19, 'POST', `/v2/company/role/${ids.companyRole}/user/${w.betaUser.id}`], [19, 'POST', `/v2/company/role/${w.betaRole.id}/user/${ids.victim}`],
    [20, 'DELETE', `/v2/company/role/${ids.companyRole}/user/${ids.victim}`], [18, 'DELETE', `/v2/company/role/${ids.companyRole}`],
    [223, 'GET', `/v2/company/project/${ids.pid}/retention`], [224, 'PUT', `/v2/company/project/${ids.pid}/retention`, { raw: '1m' }],
  ] as const) {
    const res = await p.call(w.beta, method, url, body)
    t.equal(res.status, 404, `Beta: ${no} ${method} ${url} → ${JSON.stringify(res.body)}`)
  }
  const foreignUser = await p.call(w.beta, 'POST', '/v2/company/user', { company_id: p.admin.companyId, firstName: 'x', lastName: 'x', email: 'planted@acme.test', password: 'planted-password-1' })
  t.same([foreignUser.status, foreignUser.body.error], [404, `Company ${p.admin.companyId} not found`], 'Beta cannot create a user in Acme')
  t.same(await snapshot(w), before, 'everything of Acme reads as before')
})
