// The OpenAPI document describes what the server really answers (issue 15, item 8): a live
// platform serves /v2/openapi.json, representative traffic (a success and a failure per
// endpoint, test/helpers/openapi-traffic.ts) goes over real HTTP, and each answer's status
// must be listed for its operation and its body must match that status's schema (ajv).
import t from 'tap'
import { Ajv } from 'ajv'
import { endpoints } from '../../api/registry.ts'
import { alertPayload } from '../../engine/notify/payload.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { representativeTraffic } from '../helpers/openapi-traffic.ts'

t.test('real answers of every endpoint match the served OpenAPI document', async (t) => {
  const { platform } = await livePlatform(t)
  const doc = await (await fetch(platform.address + '/v2/openapi.json')).json() as any
  t.ok(doc.servers?.length > 0, 'servers is not empty')
  t.same(Object.keys(doc.components.securitySchemes).sort(), ['basic', 'bearer'])
  const upload = doc.paths['/v2/project/{project_id}/importTimeseries'].post.requestBody.content['multipart/form-data'].schema
  t.same(upload.required, ['import_file'], 'the CSV upload body is multipart with import_file')
  t.match(upload.properties.import_file, { type: 'string', format: 'binary' })

  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
  const byNumber = new Map(endpoints.map((e) => [e.number, e]))
  const seen = new Map<number, Set<string>>()
  const { catalog } = platform
  const setpointsReady = async (pid: number, id: string) => {
    await catalog.setpoints.setSettings(pid, { enabled: true })
    const entity = (await catalog.entityTags.entity(pid, 'datapoint', id, false))!
    await catalog.entityTags.replaceTags('datapoint', entity, { writable: 'true' }, ['writable'], 'test')
  }
  for (const x of await representativeTraffic(platform.address, ADMIN, { setpointsReady })) {
    const e = byNumber.get(x.endpoint)!
    const op = doc.paths[e.path]?.[e.method.toLowerCase()]
    const what = `${x.endpoint} ${x.method} ${x.url} → ${x.status}`
    const ok = x.expect === 'success' ? x.status < 300 : x.status >= 400
    t.ok(ok, `${what} is a ${x.expect}${ok ? '' : ': ' + JSON.stringify(x.body)}`)
    const response = op?.responses?.[String(x.status)]
    if (!response) { t.fail(`${what}: status not in the document (lists ${Object.keys(op?.responses ?? {}).join(', ')})`); continue }
    t.match(x.contentType, /^application\/json/, `${what}: JSON`)
    const schema = response.content?.['application/json']?.schema
    if (!schema) { t.fail(`${what}: no JSON schema documented`); continue }
    const valid = ajv.validate(schema, x.body)
    t.ok(valid, `${what}: body matches the documented schema${valid ? '' : ' ' + ajv.errorsText()}`)
    // The Haystack ops answer grids (api/haystack/openapi.ts): a failure is an error grid, not the envelope.
    if (x.status >= 400 && e.path.startsWith('/haystack/')) t.match(x.body, { _kind: 'grid', meta: { err: { _kind: 'marker' }, dis: String } }, `${what}: error grid`)
    else if (x.status >= 400) t.match(x.body, { success: false, error: String, operation: String }, `${what}: failure envelope`)
    if (!seen.has(x.endpoint)) seen.set(x.endpoint, new Set())
    seen.get(x.endpoint)!.add(x.expect)
  }
  // 106 (PUT an alert) always refuses: in-place modification is not supported (issue 13).
  // 190 is a WebSocket: over plain HTTP it only refuses (its socket: test/api/live.test.ts).
  const ALWAYS_REFUSES = new Set([106, 190])
  for (const e of endpoints) {
    const want = ALWAYS_REFUSES.has(e.number) ? ['failure'] : ['failure', 'success']
    t.same([...seen.get(e.number) ?? []].sort(), want, `${e.number} ${e.method} ${e.path}: ${want.length === 2 ? 'a success and a failure were' : 'its failure was'} checked`)
  }
})

t.test('every operation lists its failures with the envelope; creates list 201', async (t) => {
  const { platform } = await livePlatform(t)
  const doc = await (await fetch(platform.address + '/v2/openapi.json')).json() as any
  for (const e of endpoints) {
    const responses = doc.paths[e.path][e.method.toLowerCase()].responses
    const codes = Object.keys(responses).map(Number)
    t.ok(codes.includes(401) && codes.includes(429) && codes.includes(500), `${e.number}: 401, 429, 500`)
    if (e.scope !== 'User') t.ok(codes.includes(403), `${e.number}: 403`)
    for (const c of codes.filter((c) => c >= 400)) {
      const haystack = e.path.startsWith('/haystack/')
      t.same(responses[c].content['application/json'].schema.required, haystack ? ['_kind', 'meta', 'cols', 'rows'] : ['success', 'error', 'operation'], `${e.number} ${c}: ${haystack ? 'error grid' : 'failure envelope'}`)
    }
  }
  // A parameter with a default is optional (e.g. spec 2: setpoint `priority` default 13, `acked`,
  // `dryrun`, `keep_out_of_service`): a generated client must not be forced to send it.
  for (const e of endpoints) {
    for (const p of doc.paths[e.path][e.method.toLowerCase()].parameters ?? []) {
      if (p.schema?.default !== undefined) t.notOk(p.required, `${e.number} ${p.in} parameter ${p.name} has a default: not required`)
    }
  }
  const setpoint = doc.paths['/v2/datapoint/setpoint'].post.parameters
  t.same(setpoint.filter((p: any) => p.required).map((p: any) => p.name).sort(), ['dataPointID', 'project_id', 'value'], '141: only project_id, dataPointID and value are required')
  t.same(Object.keys(doc.paths['/v2/company/project'].post.responses).filter((c) => c < '300'), ['201'], 'a create answers 201')
  t.same(doc.paths['/v2/auth/token'].post.security, [{ basic: [] }], 'a token is exchanged for a Basic login only')
})

t.test('the alert webhook payload is documented as a callback of both alert creates, and real payloads match it', async (t) => {
  const { platform } = await livePlatform(t)
  const doc = await (await fetch(platform.address + '/v2/openapi.json')).json() as any
  const callback = (path: string) => doc.paths[path].post.callbacks?.alertNotification?.['{$request.body#/notification/webhook/url}']?.post
  const threshold = callback('/v2/alert/threshold')
  t.same(callback('/v2/alert/throughput'), threshold, 'the same callback on 100 and 101')
  t.match(threshold.requestBody.description, /x-lintel-signature: t=<unix seconds>,v1=<hex HMAC-SHA256/)
  // redocly's operation-summary and operation-4xx-response rules hold for the callback too (issue 30 item 8)
  t.match(threshold.summary, /^Alert notification: /, 'the callback operation keeps its summary (@fastify/swagger drops it)')
  t.same(Object.keys(threshold.responses).sort(), ['2XX', '4XX', '5XX'], 'the receiver\'s error answers are documented')
  const ajv = new Ajv({ strict: false, validateFormats: false, allErrors: true })
  const validate = ajv.compile(threshold.requestBody.content['application/json'].schema)
  const alert = { id: 7, name: 'AHU', kind: 'threshold', project_id: 1, dataPointID: 'ahu/t', attributes: { building: 'HQ' } }
  const bodies = [
    alertPayload(alert, { id: 1, kind: 'raise', level: 'warn', previous_level: null, value: 27, time: 1_711_958_460_000_000 }),
    alertPayload(alert, { id: 2, kind: 'raise', level: 'crit', previous_level: 'warn', value: 31.5, time: 1_711_958_520_000_001 }),
    alertPayload(alert, { id: 3, kind: 'reset', level: 'crit', previous_level: null, value: null, time: 1_711_958_580_000_000 }),
    alertPayload({ ...alert, kind: 'throughput' }, { id: 4, kind: 'raise', level: 'warn', previous_level: null, value: 0, time: 1_711_958_640_000_000 }),
  ]
  for (const b of bodies) t.ok(validate(JSON.parse(b)), `${b} matches${validate.errors ? ' ' + ajv.errorsText(validate.errors) : ''}`)
  const { event, ...noEvent } = JSON.parse(bodies[0])
  t.notOk(validate(noEvent), 'a body without its event does not match')
  t.notOk(validate({ ...JSON.parse(bodies[0]), event: { ...event, level: 'fatal' } }), 'nor one with an unknown level')
})
