// Fuzz test generated from the served OpenAPI document (issue 29, item 5): every operation
// gets wrong types, missing and extra fields, huge and non-finite numbers, odd Unicode and
// broken multipart bodies (test/helpers/openapi-fuzz.ts). The test fails on any 5xx, on any
// status the document does not list for the operation, and on a failure without the envelope. Seeded: the seed is printed, and
// LINTEL_FUZZ_SEED=<n> repeats a run (CI uses the fixed default, so a failure reproduces).
import t from 'tap'
import { gzipSync } from 'node:zlib'
import { request } from 'node:http'
import { basic, type Login } from '../helpers/platform.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { fuzzRequests, type Fixture, type FuzzRequest } from '../helpers/openapi-fuzz.ts'

const SEED = Number(process.env.LINTEL_FUZZ_SEED ?? 29_005)

/** One request over a raw HTTP connection (fetch would refuse or repair some of the broken ones). */
function send(base: URL, x: FuzzRequest, who: Login): Promise<{ status: number; body: string }> {
  const body = x.body && x.headers['content-encoding'] === 'gzip' ? gzipSync(x.body) : x.body
  const headers: Record<string, string> = { ...x.headers, authorization: basic(who), 'content-length': String(body?.length ?? 0) }
  return new Promise((resolve, reject) => {
    const req = request({ host: base.hostname, port: base.port, method: x.method, path: x.url, headers }, (res) => {
      const chunks: Buffer[] = []
      res.on('data', (c: Buffer) => chunks.push(c))
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }))
      res.on('error', reject)
    })
    // The server may answer and close before it has read a refused body: that answer counts.
    req.on('error', reject)
    req.end(body)
  })
}

t.test(`every fuzzed request gets an answer the OpenAPI document lists, never a 5xx (seed ${SEED})`, async (t) => {
  t.comment(`fuzz seed ${SEED} (LINTEL_FUZZ_SEED=${SEED} repeats this run)`)
  const { platform, http } = await livePlatform(t)
  const base = new URL(platform.address)
  const doc = await (await fetch(platform.address + '/v2/openapi.json')).json() as any

  // The fixture: one of everything, so that valid ids reach the code behind the checks.
  const ok = async (method: string, path: string, body?: unknown) => {
    const res = await http(method, path, body)
    if (res.status >= 300) throw new Error(`fixture ${method} ${path}: ${res.status} ${JSON.stringify(res.body)}`)
    return res.body
  }
  const upload = async (path: string, field: string, name: string, text: string) => {
    const f = new FormData(); f.append(field, new Blob([text]), name)
    const res = await fetch(platform.address + path, { method: 'POST', headers: { authorization: basic(ADMIN) }, body: f })
    if (res.status >= 300) throw new Error(`fixture upload ${path}: ${res.status} ${await res.text()}`)
  }
  const company = (await ok('GET', '/v2/company')).company.id as number
  const pid = (await ok('POST', '/v2/company/project', { name: 'Fuzz' })).resource.project.id as number
  const p = `/v2/project/${pid}`
  await ok('POST', `${p}/timeseries`, { 'room A temp': [{ time: '2024-01-01T00:00:00Z', value: 21.5 }] })
  const self = { email: 'self@fuzz.test', password: 'self-password-1' }
  const userId = (await ok('POST', '/v2/company/user', { company_id: company, firstName: 'F', lastName: 'Z', ...self })).resource.id as number
  const role = (await ok('POST', '/v2/company/role', { name: 'fuzz-role', authed_endpoints: [10] })).resource.id as number
  const prole = (await ok('POST', `${p}/role`, { name: 'fuzz-prole', authed_endpoints: [52] })).resource.id as number
  const tagauth = (await ok('POST', `${p}/role/${prole}/tagauth`, { key: 'room', value: 'A', read: true, write: false })).resource.authed_tags[0].id as number
  const mqttuser = (await ok('POST', `${p}/mqttuser`, { username: `fuzz-${pid}`, password: 'mqtt-password-1', rights: 'write' })).resource.id as number
  await ok('POST', `${p}/virtual_datapoint?dataPointID=double&type=formula`, { pins: { P1: { dataPointID: 'room A temp' } }, parameters: { formula: '2 * P1' } })
  await upload('/v2/company/file?folder=docs', 'file', 'plan.txt', 'plan')
  await upload(`${p}/file?folder=docs`, 'file', 'plan.txt', 'plan')
  const alert = (await ok('POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'hot', dataPointID: 'room A temp', thresholds: { warn: { upper: 26, upper_reset: 24 } }, notification: { log: true } })).resource.id as number
  const cip = (await ok('POST', `${p}/componentInProject`, { component_id: 5, display_name: 'HC 1' })).resource.id as number
  await ok('PUT', `${p}/componentInProject/pin/datapoint`, { componentinproject_id: cip, pins: [{ pin_alphanumeric_id: 'flow_temp', dataPointID: 'room A temp' }, { pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'room A temp' }] })
  const instance = (await ok('POST', `/v2/analytics/instance?project_id=${pid}`, { analysisfunction_id: 2, componentinproject_id: cip, name: 'Curve' })).resource.id as number
  const result = (await ok('POST', `/v2/analytics/instance/${instance}/run?project_id=${pid}&start=2024-01-01T00:00:00Z&end=2024-01-02T00:00:00Z`)).resource.result_id as string
  await platform.catalog.setpoints.setSettings(pid, { enabled: true })
  const entity = (await platform.catalog.entityTags.entity(pid, 'datapoint', 'room A temp', false))!
  await platform.catalog.entityTags.replaceTags('datapoint', entity, { writable: 'true' }, ['writable'], 'test')
  await ok('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${encodeURIComponent('room A temp')}`, { setpoint_min_value: 15, setpoint_max_value: 30 })
  const reference = (await ok('POST', `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=${encodeURIComponent('room A temp')}&value=21&acked=true`)).resource.reference as string

  const known: Record<string, string | number> = {
    project_id: pid, company_id: company, user_id: userId, tagauth_id: tagauth, mqttuser_id: mqttuser, alert_id: alert,
    componentinproject_id: cip, component_id: 5, instance_id: instance, result_id: result, reference, analysisfunction_id: 2,
    dataPointID: 'room A temp', path: 'docs/plan.txt', folder: 'docs', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z',
    pin_alphanumeric_id: 'flow_temp', key: 'design_outdoor_temp', component_alphanumeric_id: 'heating_circuit', value: 21, format: 'csv',
    on_error: 'continue', type: 'formula', run: 'true',
  }
  const fixture: Fixture = (name, where, path) => {
    if (name === 'role_id') return path.startsWith('/v2/project/') ? prole : role
    if (name === 'dataPointID' && path.includes('virtual_datapoint')) return 'double'
    // A body's ids and names are left to the schema, except the ones that must exist.
    if (where === 'body' && !['componentinproject_id', 'component_id', 'analysisfunction_id', 'dataPointID', 'company_id'].includes(name)) return undefined
    return known[name]
  }
  const all = fuzzRequests(doc, SEED, fixture)
  // Deletes last, and last of all the ones that remove the caller's project or account.
  const rank = (x: FuzzRequest) => (x.op === 'DELETE /v2/project/{project_id}' ? 3 : x.op === 'DELETE /v2/user' ? 4 : x.method === 'DELETE' ? 2 : 1)
  const ordered = all.map((x, i) => ({ x, i })).sort((a, b) => rank(a.x) - rank(b.x) || a.i - b.i).map(({ x }) => x)
  // Calls on the caller's own account go as a user of its own, so the admin stays usable.
  const whoFor = (x: FuzzRequest) => (x.op.endsWith(' /v2/user') && x.method !== 'GET' ? self : ADMIN)

  const started = Date.now()
  const bad: string[] = []
  const statuses = new Map<number, number>()
  for (const x of ordered) {
    const e = Object.entries(doc.paths[x.op.split(' ')[1]]).find(([m]) => m.toUpperCase() === x.method)![1] as any
    let answer: { status: number; body: string }
    try { answer = await send(base, x, whoFor(x)) } catch (err) { bad.push(`${x.op} [${x.what}] ${x.url}: no answer (${(err as Error).message})`); continue }
    statuses.set(answer.status, (statuses.get(answer.status) ?? 0) + 1)
    const listed = Object.keys(e.responses ?? {}).includes(String(answer.status))
    let envelope = answer.status < 400
    // The Haystack ops answer error grids instead of the envelope (api/haystack/errors.ts).
    const grid = x.op.split(' ')[1].startsWith('/haystack/')
    try {
      const b = JSON.parse(answer.body)
      envelope ||= grid ? b?._kind === 'grid' && b.meta?.err?._kind === 'marker' && typeof b.meta.dis === 'string' : b?.success === false && typeof b.error === 'string' && typeof b.operation === 'string'
    } catch { /* not JSON */ }
    if (answer.status >= 500 || !listed || !envelope) {
      const why = !listed ? ' (not in the document)' : !envelope ? ' (no failure envelope)' : ''
      bad.push(`${x.op} [${x.what}] ${x.url.slice(0, 200)} → ${answer.status}${why}: ${answer.body.slice(0, 200)}`)
    }
  }
  t.comment(`${ordered.length} requests over ${Object.values(doc.paths).reduce((n: number, o: any) => n + Object.keys(o).length, 0)} operations in ${Date.now() - started} ms; statuses ${JSON.stringify(Object.fromEntries(statuses))}`)
  t.same(bad, [], 'no 5xx, no undocumented status, every failure in the envelope')
  // The fuzzing reached past authentication: most requests were judged on their input.
  t.ok((statuses.get(400) ?? 0) > ordered.length / 4, 'at least a quarter of the requests were refused as invalid input (400)')
  t.notOk(statuses.has(429), 'no login was throttled (every request carried the right credentials)')
})
