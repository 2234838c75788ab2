// Representative traffic for the OpenAPI check (issue 15, item 8): for every endpoint of the
// registry one request that succeeds and one that fails, sent over real HTTP to `base`. The
// test validates the answers against the served document (test/api/openapi.test.ts); the
// same traffic sent through `prism proxy` lets Prism validate it (scripts/openapi-traffic.ts).
import { basic, type Login } from './platform.ts'
import { waitFor } from './wait.ts'

export interface Exchange {
  endpoint: number
  expect: 'success' | 'failure'
  method: string
  url: string
  status: number
  contentType: string
  body: unknown
}

type Who = Login | { bearer: string } | null
interface Send { who?: Who; body?: unknown; form?: FormData }

/** Runs the traffic as `admin` (a company admin) against the API at `base`; returns every exchange. */
/** What only the operator or a device can do, done by the caller between requests (optional). */
export interface TrafficHooks {
  /** Enables setpoint writing for the project and marks the datapoint writable (its metadata). */
  setpointsReady?: (projectId: number, dataPointID: string) => Promise<void>
}

export async function representativeTraffic(base: string, admin: Login, hooks: TrafficHooks = {}): Promise<Exchange[]> {
  const out: Exchange[] = []
  const call = async (endpoint: number, expect: Exchange['expect'], method: string, url: string, opts: Send = {}) => {
    const who = opts.who === undefined ? admin : opts.who
    const headers: Record<string, string> = {}
    if (who && 'bearer' in who) headers.authorization = `Bearer ${who.bearer}`
    else if (who) headers.authorization = basic(who)
    let body: string | FormData | undefined
    if (opts.form) body = opts.form
    else if (opts.body !== undefined) { headers['content-type'] = 'application/json'; body = JSON.stringify(opts.body) }
    const res = await fetch(base + url, { method, headers, body })
    const text = await res.text()
    let parsed: unknown = text
    try { parsed = JSON.parse(text) } catch { /* not JSON: the check reports it */ }
    const x = { endpoint, expect, method, url, status: res.status, contentType: res.headers.get('content-type') ?? '', body: parsed }
    out.push(x)
    return x as Exchange & { body: any }
  }
  const ok = (no: number, method: string, url: string, opts?: Send) => call(no, 'success', method, url, opts)
  const bad = (no: number, method: string, url: string, opts?: Send) => call(no, 'failure', method, url, opts)
  const nobody: Login = { email: admin.email, password: 'not-the-password' }

  // User scope: the caller's own record; failures are wrong or missing credentials.
  await ok(1, 'GET', '/v2/user')
  await bad(1, 'GET', '/v2/user', { who: null })
  await ok(4, 'GET', '/v2/user/projects')
  await bad(4, 'GET', '/v2/user/projects', { who: nobody })
  await ok(5, 'GET', '/v2/endpoints')
  await bad(5, 'GET', '/v2/endpoints', { who: null })
  const token = (await ok(6, 'POST', '/v2/auth/token', { body: { expires_in: 600 } })).body.resource.access_token as string
  await bad(6, 'POST', '/v2/auth/token', { who: { bearer: token }, body: {} })
  await ok(7, 'DELETE', '/v2/auth/token', { who: { bearer: token } })
  await bad(7, 'DELETE', '/v2/auth/token', { who: { bearer: token } })
  // The component library (110-112): global, User scope.
  await ok(110, 'GET', '/v2/components')
  await bad(110, 'GET', '/v2/components', { who: null })
  await ok(111, 'GET', '/v2/component/5/pins')
  await bad(111, 'GET', '/v2/component/999/pins')
  await ok(112, 'GET', '/v2/component/5/attributeDefinitions')
  await bad(112, 'GET', '/v2/component/x/attributeDefinitions')

  // Company scope.
  const company = (await ok(10, 'GET', '/v2/company')).body.company.id as number
  await ok(8, 'GET', '/v2/system/metrics')
  const newbie = { email: 'newbie@openapi.test', password: 'newbie-password' }
  const newbieId = (await ok(13, 'POST', '/v2/company/user', { body: { company_id: company, firstName: 'New', lastName: 'Bie', ...newbie } })).body.resource.id as number
  await bad(13, 'POST', '/v2/company/user', { body: { company_id: company, firstName: 'New', lastName: 'Bie', ...newbie } })
  await bad(8, 'GET', '/v2/system/metrics', { who: newbie })
  await bad(10, 'GET', '/v2/company', { who: newbie })
  await ok(2, 'PUT', '/v2/user', { who: newbie, body: { firstName: 'Newer' } })
  await bad(2, 'PUT', '/v2/user', { who: newbie, body: { firstName: 42 } })
  const pid = (await ok(11, 'POST', '/v2/company/project', { body: { name: 'OpenAPI' } })).body.resource.project.id as number
  await bad(11, 'POST', '/v2/company/project', { body: {} })
  const spare = (await ok(12, 'POST', '/v2/project', { body: { name: 'Spare' } })).body.resource.project.id as number
  await bad(12, 'POST', '/v2/project', { who: newbie, body: { name: 'Nope' } })
  await ok(14, 'GET', '/v2/company/roles')
  await bad(14, 'GET', '/v2/company/roles', { who: newbie })
  const role = (await ok(15, 'POST', '/v2/company/role', { body: { name: 'openapi-viewer', authed_endpoints: [10] } })).body.resource.id as number
  await bad(15, 'POST', '/v2/company/role', { body: { name: 'openapi-viewer' } })
  await ok(16, 'GET', `/v2/company/role/${role}`)
  await bad(16, 'GET', '/v2/company/role/999999')
  await ok(17, 'PUT', `/v2/company/role/${role}`, { body: { description: 'reads the company' } })
  await bad(17, 'PUT', '/v2/company/role/999999', { body: { description: 'x' } })
  await ok(19, 'POST', `/v2/company/role/${role}/user/${newbieId}`)
  await bad(19, 'POST', `/v2/company/role/999999/user/${newbieId}`)
  await ok(20, 'DELETE', `/v2/company/role/${role}/user/${newbieId}`)
  await bad(20, 'DELETE', `/v2/company/role/${role}/user/${newbieId}`)
  await ok(18, 'DELETE', `/v2/company/role/${role}`)
  await bad(18, 'DELETE', `/v2/company/role/${role}`)

  // Project scope.
  const p = `/v2/project/${pid}`
  await ok(30, 'GET', p)
  await bad(30, 'GET', p, { who: newbie })
  await ok(31, 'PUT', p, { body: { description: 'documented' } })
  await bad(31, 'PUT', p, { body: { name: '' } })
  await ok(32, 'DELETE', `/v2/project/${spare}`)
  await bad(32, 'DELETE', `/v2/project/${spare}`)
  await ok(33, 'GET', `${p}/roles`)
  await bad(33, 'GET', `${p}/roles`, { who: newbie })
  const prole = (await ok(34, 'POST', `${p}/role`, { body: { name: 'openapi-reader', authed_endpoints: [52] } })).body.resource.id as number
  await bad(34, 'POST', `${p}/role`, { body: { name: 'openapi-reader' } })
  await ok(35, 'GET', `${p}/role/${prole}`)
  await bad(35, 'GET', `${p}/role/999999`)
  await ok(36, 'PUT', `${p}/role/${prole}`, { body: { description: 'reads' } })
  await bad(36, 'PUT', `${p}/role/${prole}`, { body: { authed_endpoints: 'all' } })
  const tagAuth = (await ok(38, 'POST', `${p}/role/${prole}/tagauth`, { body: { key: 'room', value: 'A', read: true, write: false } })).body.resource.authed_tags[0].id as number
  await bad(38, 'POST', `${p}/role/${prole}/tagauth`, { body: { key: 'room' } })
  await ok(39, 'DELETE', `${p}/role/${prole}/tagauth/${tagAuth}`)
  await bad(39, 'DELETE', `${p}/role/${prole}/tagauth/${tagAuth}`)
  await ok(40, 'POST', `${p}/role/${prole}/user/${newbieId}`)
  await bad(40, 'POST', `${p}/role/${prole}/user/999999`)
  await ok(41, 'DELETE', `${p}/role/${prole}/user/${newbieId}`)
  await bad(41, 'DELETE', `${p}/role/${prole}/user/${newbieId}`)
  await ok(37, 'DELETE', `${p}/role/${prole}`)
  await bad(37, 'DELETE', `${p}/role/${prole}`)

  await ok(50, 'POST', `${p}/timeseries`, { body: { 'room A temp': [{ time: '2024-01-01T00:00:00Z', value: 21.5 }] } })
  await bad(50, 'POST', `${p}/timeseries`, { body: { 'room A temp': [{ time: 'yesterday', value: 1 }] } })
  const csv = (text: string) => { const f = new FormData(); f.append('import_file', new Blob([text], { type: 'text/csv' }), 'data.csv'); return f }
  await ok(51, 'POST', `${p}/importTimeseries?format=csv&on_error=continue`, { form: csv('room A temp,22,2024-01-01T00:10:00Z\n') })
  await bad(51, 'POST', `${p}/importTimeseries?format=xml&on_error=continue`, { form: csv('x,1,2024-01-01T00:00:00Z\n') })
  await ok(53, 'POST', `${p}/importTimeseries/csv?on_error=abort`, { form: csv('room A temp,23,2024-01-01T00:20:00Z\n') })
  await bad(53, 'POST', `${p}/importTimeseries/csv?on_error=abort`, { body: { not: 'multipart' } })
  await ok(52, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent('room A temp')}`)
  await bad(52, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=unknown`)

  const account = { username: `openapi-${pid}`, password: 'mqtt-password-1', rights: 'write' }
  const mqttId = (await ok(60, 'POST', `${p}/mqttuser`, { body: account })).body.resource.id as number
  await bad(60, 'POST', `${p}/mqttuser`, { body: account })
  await ok(61, 'PUT', `${p}/mqttuser/${mqttId}`, { body: { description: 'edge' } })
  await bad(61, 'PUT', `${p}/mqttuser/999999`, { body: { description: 'edge' } })
  await ok(62, 'GET', `${p}/mqttusers`)
  await bad(62, 'GET', `${p}/mqttusers`, { who: newbie })
  await ok(63, 'GET', `${p}/mqttuser/${mqttId}`)
  await bad(63, 'GET', `${p}/mqttuser/999999`)
  await ok(64, 'DELETE', `${p}/mqttuser/${mqttId}`)
  await bad(64, 'DELETE', `${p}/mqttuser/${mqttId}`)

  const vdp = `${p}/virtual_datapoint`
  await ok(70, 'POST', `${vdp}?dataPointID=double&type=formula`, { body: { pins: { P1: { dataPointID: 'room A temp' } }, parameters: { formula: '2 * P1' } } })
  await bad(70, 'POST', `${vdp}?dataPointID=double&type=formula`, { body: { pins: { P1: { dataPointID: 'room A temp' } }, parameters: { formula: '2 * P1' } } })
  await ok(74, 'GET', `${vdp}?dataPointID=double`)
  await bad(74, 'GET', `${vdp}?dataPointID=unknown`)
  await ok(76, 'POST', `${vdp}/replay`, { body: { dataPointID: 'double', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' } })
  await bad(76, 'POST', `${vdp}/replay`, { body: { dataPointID: 'double', start: '2024-01-02T00:00:00Z', end: '2024-01-01T00:00:00Z' } })
  await ok(72, 'PUT', `${vdp}?dataPointID=double`, { body: { description: 'twice room A' } })
  await bad(72, 'PUT', `${vdp}?dataPointID=unknown`, { body: { description: 'x' } })
  await ok(75, 'GET', `${p}/virtual_datapoints?search=double`)
  await bad(75, 'GET', `${p}/virtual_datapoints?filter=colour`)
  await bad(71, 'POST', `${vdp}/run?dataPointID=double&run=false`) // not running: 409
  await ok(71, 'POST', `${vdp}/run?dataPointID=double&run=true`)
  await ok(71, 'POST', `${vdp}/run?dataPointID=double&run=false`)
  await ok(73, 'DELETE', `${vdp}?dataPointID=double`)
  await bad(73, 'DELETE', `${vdp}?dataPointID=double`)

  // Documents: the company space (80-85) and the project space (90-95).
  const file = (text: string, name = 'plan.txt') => { const f = new FormData(); f.append('file', new Blob([text], { type: 'text/plain' }), name); return f }
  for (const [first, base] of [[80, '/v2/company'], [90, p]] as const) {
    await ok(first, 'GET', `${base}/quota`)
    await bad(first, 'GET', `${base}/quota`, { who: newbie })
    await ok(first + 1, 'POST', `${base}/file?folder=docs`, { form: file('first') })
    await bad(first + 1, 'POST', `${base}/file?folder=docs`, { form: file('again') })
    await ok(first + 2, 'GET', `${base}/files?search=plan`)
    await bad(first + 2, 'GET', `${base}/files?per_page=0`)
    await ok(first + 3, 'GET', `${base}/file?path=docs/plan.txt&expiry=30m`)
    await bad(first + 3, 'GET', `${base}/file?path=docs/none.txt`)
    await ok(first + 4, 'PUT', `${base}/file?folder=docs`, { form: file('second') })
    await bad(first + 4, 'PUT', `${base}/file?folder=docs`, { form: file('none', 'none.txt') })
    await ok(first + 5, 'DELETE', `${base}/file?path=docs/plan.txt`)
    await bad(first + 5, 'DELETE', `${base}/file?path=docs/plan.txt`)
  }

  // Alerts (100-108): a threshold and a throughput alert on the datapoint written above.
  const alertBody = { name: 'room A hot', dataPointID: 'room A temp', thresholds: { warn: { upper: 26, upper_reset: 24 } }, notification: { log: true } }
  const alertId = (await ok(100, 'POST', `/v2/alert/threshold?project_id=${pid}`, { body: alertBody })).body.resource.id as number
  await bad(100, 'POST', `/v2/alert/threshold?project_id=${pid}`, { body: { ...alertBody, thresholds: {} } })
  const silentId = (await ok(101, 'POST', `/v2/alert/throughput?project_id=${pid}`, { body: { name: 'room A silent', dataPointID: 'room A temp', throughput: { window_seconds: 900, min_count: 1, level: 'crit' } } })).body.resource.id as number
  await bad(101, 'POST', `/v2/alert/throughput?project_id=${pid}`, { body: { name: 'x', dataPointID: 'room A temp' } })
  await ok(103, 'POST', `/v2/alert/${silentId}/disable?project_id=${pid}`)
  await bad(103, 'POST', `/v2/alert/${silentId}/disable?project_id=${pid}`)
  await ok(102, 'POST', `/v2/alert/${silentId}/enable?project_id=${pid}`)
  await bad(102, 'POST', `/v2/alert/${silentId}/enable?project_id=${pid}`)
  await ok(105, 'GET', `${p}/alerts?search=room&sort=-name`)
  await bad(105, 'GET', `${p}/alerts?sort=colour`)
  await bad(106, 'PUT', `${p}/alert/${alertId}`, { body: { name: 'renamed' } })
  await bad(106, 'PUT', `${p}/alert/999999`, { body: { name: 'renamed' } })
  await ok(107, 'GET', `${p}/alert/${alertId}`)
  await bad(107, 'GET', `${p}/alert/999999`)
  await ok(108, 'GET', `${p}/alert/${alertId}/events`)
  await bad(108, 'GET', `${p}/alert/999999/events`)
  // Acknowledge and clear (200, 201): an alert any value raises, raised by one observation.
  const raisedId = (await ok(100, 'POST', `/v2/alert/threshold?project_id=${pid}`, { body: { ...alertBody, name: 'always', thresholds: { info: { lower: 1e9 } } } })).body.resource.id as number
  await ok(50, 'POST', `${p}/timeseries`, { body: { 'room A temp': [{ time: new Date().toISOString(), value: 21 }] } })
  await waitFor(async () => (await ok(107, 'GET', `${p}/alert/${raisedId}`)).body.state.raised, { what: 'the alert evaluated after the store write', timeoutMs: 20_000, intervalMs: 50 })
  await ok(200, 'POST', `/v2/alert/${raisedId}/acknowledge?project_id=${pid}`, { body: { comment: 'seen' } })
  await bad(200, 'POST', `/v2/alert/${raisedId}/acknowledge?project_id=${pid}`, { body: { comment: 'seen twice' } })
  await ok(201, 'POST', `/v2/alert/${raisedId}/clear?project_id=${pid}`, { body: {} })
  await bad(201, 'POST', `/v2/alert/${raisedId}/clear?project_id=${pid}`)
  await ok(104, 'DELETE', `/v2/alert/${silentId}?project_id=${pid}`)
  await bad(104, 'DELETE', `/v2/alert/${silentId}?project_id=${pid}`)

  // Mapped components (113-124): a heating circuit on the datapoint written above.
  const cipId = (await ok(117, 'POST', `${p}/componentInProject`, { body: { component_id: 5, display_name: 'HC 1' } })).body.resource.id as number
  await bad(117, 'POST', `${p}/componentInProject`, { body: { component_id: 999 } })
  await ok(113, 'GET', `${p}/componentsInProject`)
  await bad(113, 'GET', `${p}/componentsInProject`, { who: newbie })
  await ok(114, 'GET', `${p}/componentInProject/${cipId}`)
  await bad(114, 'GET', `${p}/componentInProject/999999`)
  await ok(115, 'PUT', `${p}/componentInProject/${cipId}`, { body: { tags: { floor: '1' } } })
  await bad(115, 'PUT', `${p}/componentInProject/${cipId}`, { body: { display_name: '' } })
  const pinBody = { componentinproject_id: cipId, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'room A temp' }] }
  await ok(118, 'POST', `${p}/componentInProject/pin/datapoint`, { body: pinBody })
  await bad(118, 'POST', `${p}/componentInProject/pin/datapoint`, { body: pinBody })
  await ok(119, 'PUT', `${p}/componentInProject/pin/datapoint`, { body: pinBody })
  await bad(119, 'PUT', `${p}/componentInProject/pin/datapoint`, { body: { ...pinBody, pins: [{ pin_alphanumeric_id: 'co2', dataPointID: 'room A temp' }] } })
  await ok(124, 'GET', `${p}/componentInProject/${cipId}/suggestions`)
  await bad(124, 'GET', `${p}/componentInProject/${cipId}/suggestions?limit=0`)
  const attrBody = { componentinproject_id: cipId, attributes: [{ key: 'design_outdoor_temp', value: '-12' }] }
  await ok(121, 'POST', `${p}/componentInProject/attribute`, { body: attrBody })
  await bad(121, 'POST', `${p}/componentInProject/attribute`, { body: attrBody })
  await ok(122, 'PUT', `${p}/componentInProject/attribute`, { body: attrBody })
  await bad(122, 'PUT', `${p}/componentInProject/attribute`, { body: { ...attrBody, attributes: [{ key: 'design_outdoor_temp', value: 'cold' }] } })
  await ok(123, 'DELETE', `${p}/componentInProject/attribute?componentinproject_id=${cipId}&key=design_outdoor_temp`)
  await bad(123, 'DELETE', `${p}/componentInProject/attribute?componentinproject_id=${cipId}&key=design_outdoor_temp`)
  await ok(120, 'DELETE', `${p}/componentInProject/pin/datapoint?componentinproject_id=${cipId}&pin_alphanumeric_id=flow_temp`)
  await bad(120, 'DELETE', `${p}/componentInProject/pin/datapoint?componentinproject_id=${cipId}&pin_alphanumeric_id=flow_temp`)
  // Analysis (150-161) on the heating circuit above (flow_temp mapped again for the curve).
  await ok(119, 'PUT', `${p}/componentInProject/pin/datapoint`, { body: { componentinproject_id: cipId, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'room A temp' }, { pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'room A temp' }] } })
  await ok(150, 'GET', '/v2/analytics/functions?component_alphanumeric_id=heating_circuit')
  await bad(150, 'GET', '/v2/analytics/functions?component_alphanumeric_id=spaceship')
  const aq = `project_id=${pid}`
  const instanceBody = { analysisfunction_id: 2, componentinproject_id: cipId, name: 'Curve', description: 'weekly' }
  const instanceId = (await ok(151, 'POST', `/v2/analytics/instance?${aq}`, { body: instanceBody })).body.resource.id as number
  await bad(151, 'POST', `/v2/analytics/instance?${aq}`, { body: instanceBody })
  await ok(152, 'GET', `/v2/analytics/instance/${instanceId}?${aq}`)
  await bad(152, 'GET', `/v2/analytics/instance/999999?${aq}`)
  await ok(153, 'GET', `/v2/analytics/instances?${aq}`)
  await bad(153, 'GET', '/v2/analytics/instances')
  const resultId = (await ok(154, 'POST', `/v2/analytics/instance/${instanceId}/run?${aq}&start=2024-01-01T00:00:00Z&end=2024-01-02T00:00:00Z`)).body.resource.result_id as string
  await bad(154, 'POST', `/v2/analytics/instance/${instanceId}/run?${aq}&start=2024-01-02T00:00:00Z&end=2024-01-01T00:00:00Z`)
  await ok(155, 'GET', `/v2/analytics/componentsInProject?${aq}`)
  await bad(155, 'GET', '/v2/analytics/componentsInProject', { who: newbie })
  await ok(156, 'GET', `/v2/analytics/componentInProject/${cipId}/results?${aq}`)
  await bad(156, 'GET', `/v2/analytics/componentInProject/999999/results?${aq}`)
  await ok(157, 'GET', `/v2/analytics/results?${aq}&result_language=de`)
  await bad(157, 'GET', `/v2/analytics/results?${aq}&result_language=fr`)
  await ok(158, 'GET', `/v2/analytics/instance/${instanceId}/results?${aq}`)
  await bad(158, 'GET', `/v2/analytics/instance/999999/results?${aq}`)
  await ok(159, 'GET', `/v2/analytics/instance/${instanceId}/result/${resultId}?${aq}&result_language=de`)
  await bad(159, 'GET', `/v2/analytics/instance/${instanceId}/result/no-such-result?${aq}`)
  await ok(160, 'PUT', `/v2/analytics/instance/${instanceId}?${aq}`, { body: { enabled: false } })
  await bad(160, 'PUT', `/v2/analytics/instance/${instanceId}?${aq}`, { body: { enabled: 'no' } })
  await ok(161, 'DELETE', `/v2/analytics/instance/${instanceId}?${aq}`)
  await bad(161, 'DELETE', `/v2/analytics/instance/${instanceId}?${aq}`)
  const spareCip = (await ok(117, 'POST', `${p}/componentInProject`, { body: { component_id: 6 } })).body.resource.id as number
  await ok(116, 'DELETE', `${p}/componentInProject/${spareCip}`)
  await bad(116, 'DELETE', `${p}/componentInProject/${spareCip}`)

  // Setpoints (140-143); a successful write needs the operator's enabling and a writable point.
  const sp = `project_id=${pid}&dataPointID=${encodeURIComponent('room A temp')}`
  if (hooks.setpointsReady) {
    await hooks.setpointsReady(pid, 'room A temp')
    await ok(140, 'PUT', `/v2/datapoint?${sp}`, { body: { setpoint_min_value: 15, setpoint_max_value: 30 } })
    const ref = (await ok(141, 'POST', `/v2/datapoint/setpoint?${sp}&value=21&acked=true`)).body.resource.reference as string
    await ok(142, 'GET', `/v2/datapoint/setpoint/${ref}`)
    await controlsApps(pid, cipId)
  }
  await bad(140, 'PUT', `/v2/datapoint?${sp}`, { body: { setpoint_min_value: 'low' } })
  await bad(141, 'POST', `/v2/datapoint/setpoint?${sp}&value=35`)
  await bad(142, 'GET', '/v2/datapoint/setpoint/no-such-reference')
  await ok(143, 'GET', `/v2/datapoint/setpoints?${sp}`)
  await bad(143, 'GET', `/v2/datapoint/setpoints?project_id=${pid}&dataPointID=unknown`)

  // Live subscriptions (190): a WebSocket; over plain HTTP it only refuses (test/api/live.test.ts has the socket).
  await bad(190, 'GET', `/v2/live?project_id=${pid}`)
  // Favorites and plot views (191-198), the caller's own.
  await ok(192, 'POST', `${p}/favorite`, { body: { dataPointID: 'room A temp' } })
  await bad(192, 'POST', `${p}/favorite`, { body: { dataPointID: 'no such datapoint' } })
  await ok(191, 'GET', `${p}/favorites`)
  await bad(191, 'GET', `${p}/favorites`, { who: newbie })
  await ok(193, 'DELETE', `${p}/favorite?dataPointID=${encodeURIComponent('room A temp')}`)
  await bad(193, 'DELETE', `${p}/favorite?dataPointID=${encodeURIComponent('room A temp')}`)
  const view = { name: 'Room A', datapoints: [{ dataPointID: 'room A temp', units: 'degC' }], relative: '24h', samplerate: 'auto' }
  const viewId = (await ok(195, 'POST', `${p}/plotview`, { body: view })).body.resource.id as number
  await bad(195, 'POST', `${p}/plotview`, { body: { ...view, relative: '24 hours' } })
  await ok(194, 'GET', `${p}/plotviews`)
  await bad(194, 'GET', `${p}/plotviews`, { who: newbie })
  await ok(196, 'GET', `${p}/plotview/${viewId}`)
  await bad(196, 'GET', `${p}/plotview/999999`)
  await ok(197, 'PUT', `${p}/plotview/${viewId}`, { body: { name: 'Room A, today' } })
  await bad(197, 'PUT', `${p}/plotview/${viewId}`, { body: { start: '2024-01-02T00:00:00Z', end: '2024-01-01T00:00:00Z' } })
  await ok(198, 'DELETE', `${p}/plotview/${viewId}`)
  // Haystack ops (230-241): a JSON grid in, a JSON grid out; the failure: no credentials (an error grid).
  const grid = (row: Record<string, unknown>) => ({ _kind: 'grid', meta: { ver: '3.0' }, cols: Object.keys(row).map((name) => ({ name })), rows: [row] })
  const haystack: [number, string, Record<string, unknown>?][] = [[230, 'about'], [231, 'ops'], [232, 'formats'], [233, 'close'], [234, 'read', { filter: 'point' }], [235, 'nav'],
    [236, 'hisRead'], [237, 'hisWrite'], [238, 'pointWrite'], [239, 'watchSub'], [240, 'watchPoll'], [241, 'watchUnsub']]
  for (const [no, op, row] of haystack) {
    await ok(no, 'POST', `/haystack/${pid}/${op}`, row ? { body: grid(row) } : {})
    await bad(no, 'POST', `/haystack/${pid}/${op}`, { who: null })
  }
  await bad(198, 'DELETE', `${p}/plotview/${viewId}`)
  // Export (210-212): a job over a readable datapoint; bad input and an unknown job refused.
  const range = { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }
  const exportId = (await ok(210, 'POST', `${p}/export`, { body: { format: 'csv', ...range, dataPointIDs: ['room A temp'] } })).body.resource.id as number
  await bad(210, 'POST', `${p}/export`, { body: { format: 'csv', start: range.end, end: range.start, dataPointIDs: ['room A temp'] } })
  await ok(211, 'GET', `${p}/export/${exportId}`)
  await bad(211, 'GET', `${p}/export/999999`)
  await ok(212, 'GET', `${p}/exports`)
  await bad(212, 'GET', `${p}/exports`, { who: newbie })
  // Data lifecycle (220-224): a range of a spare datapoint, then the datapoint; one a virtual
  // datapoint reads is refused (409); retention read and set by the company.
  await ok(50, 'POST', `${p}/timeseries`, { body: { spare: [{ time: '2024-01-01T00:00:00Z', value: 1 }, { time: '2024-01-01T01:00:00Z', value: 2 }] } })
  const spareDp = `project_id=${pid}&dataPointID=spare`
  await ok(220, 'DELETE', `/v2/datapoint/timeseries?${spareDp}&start=2024-01-01T00:00:00Z&end=2024-01-01T01:00:00Z`)
  await bad(220, 'DELETE', `/v2/datapoint/timeseries?${spareDp}&start=2024-01-02T00:00:00Z&end=2024-01-01T00:00:00Z`)
  await ok(221, 'GET', `${p}/deletions`)
  await bad(221, 'GET', `${p}/deletions`, { who: newbie })
  await ok(222, 'DELETE', `/v2/datapoint?${spareDp}`)
  await bad(222, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=${encodeURIComponent('room A temp')}`)
  await ok(223, 'GET', `/v2/company/project/${pid}/retention`)
  await bad(223, 'GET', '/v2/company/project/999999/retention')
  await ok(224, 'PUT', `/v2/company/project/${pid}/retention`, { body: { raw: null } })
  await bad(224, 'PUT', `/v2/company/project/${pid}/retention`, { body: { raw: '30s' } })
  // Controls apps (170-181) on the heating circuit, its setpoint pin on the writable point.
  async function controlsApps(pid: number, cipId: number) {
    const p = `/v2/project/${pid}`
    await ok(119, 'PUT', `${p}/componentInProject/pin/datapoint`, { body: { componentinproject_id: cipId, pins: [{ pin_alphanumeric_id: 'flow_temp_setpoint', dataPointID: 'room A temp' }] } })
    const q = `project_id=${pid}`
    const create = `/v2/controls/app?${q}&componentinproject_id=${cipId}&algorithm=schedule&name=Heating`
    const config = { week: [{ days: ['mon'], time: '06:00', values: { flow_temp_setpoint: 21 } }] }
    const appId = (await ok(170, 'POST', create, { body: config })).body.resource.id as string
    await bad(170, 'POST', create, { body: { week: [{ days: ['mon'], time: '6 am', values: {} }] } })
    await ok(171, 'GET', `/v2/controls/apps?${q}&search=heat`)
    await bad(171, 'GET', `/v2/controls/apps?${q}&per_page=0`)
    await ok(172, 'GET', `/v2/controls/app/${appId}?${q}`)
    await bad(172, 'GET', `/v2/controls/app/no-such-app?${q}`)
    await ok(173, 'GET', `/v2/controls/app/${appId}/logs?${q}`)
    await bad(173, 'GET', `/v2/controls/app/no-such-app/logs?${q}`)
    await ok(174, 'POST', `/v2/controls/app/${appId}/run?${q}&run=true`)
    await bad(174, 'POST', `/v2/controls/app/no-such-app/run?${q}`)
    await ok(175, 'POST', `/v2/controls/apps/run?${q}`, { body: { run: false, controls_app_ids: [appId, 'no-such-app'] } })
    await bad(175, 'POST', `/v2/controls/apps/run?${q}`, { body: { run: false, controls_app_ids: [] } })
    await bad(176, 'DELETE', `/v2/controls/app?${q}&controls_app_id=${appId}`) // stopping: still running
    const spare = async () => (await ok(170, 'POST', create, { body: config })).body.resource.id as string
    await ok(176, 'DELETE', `/v2/controls/app?${q}&controls_app_id=${await spare()}`)
    await ok(177, 'DELETE', `/v2/controls/app/${await spare()}?${q}`)
    await bad(177, 'DELETE', `/v2/controls/app/no-such-app?${q}`)
    await ok(178, 'PUT', `${p}/holidays`, { body: [{ name: 'Christmas', date: '2026-12-24', end: '2026-12-26', yearly: true }] })
    await bad(178, 'PUT', `${p}/holidays`, { body: [{ name: 'Christmas', date: '24.12.2026' }] })
    await ok(179, 'GET', `${p}/holidays`)
    await bad(179, 'GET', '/v2/project/999999/holidays')
    await ok(180, 'GET', `${p}/componentinproject/${cipId}/schedules?start=2026-12-21&end=2026-12-28`)
    await bad(180, 'GET', `${p}/componentinproject/${cipId}/schedules?start=2026-12-28&end=2026-12-21`)
    await ok(181, 'GET', `${p}/componentinproject/${cipId}/holidays?start=2026-12-01&end=2027-01-01`)
    await bad(181, 'GET', `${p}/componentinproject/999999/holidays?start=2026-12-01&end=2027-01-01`)
  }

  // Last: a user deletes its own account.
  await bad(3, 'DELETE', '/v2/user', { who: { ...newbie, password: 'wrong-password' } })
  await ok(3, 'DELETE', '/v2/user', { who: newbie })
  return out
}
