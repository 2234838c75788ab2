// Analysis through the API (issue 12 item 4), endpoints 150-161: functions per component, one
// instance per (function, component) with the spec's 409 text, manual runs giving results with
// unique ids, read in English and German, latest-per-instance views grouped by component; access
// through the grant, a narrower TagAuth and from another company.
import t, { type Test } from 'tap'
import { addProject, addUser, platform } from '../helpers/platform.ts'

const H = 3_600_000
const WEEK0 = Date.UTC(2024, 0, 1) // a Monday

async function setup(t: Test) {
  const p = await platform(t)
  const { id: pid } = await addProject(p, p.admin, 'HQ')
  const points = (f: (h: number) => number) => Array.from({ length: 7 * 24 }, (_, h) => ({ time: new Date(WEEK0 + h * H).toISOString(), value: Math.round(f(h) * 10) / 10 }))
  const outdoor = (h: number) => 5 + 6 * Math.sin((2 * Math.PI * h) / 24)
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, {
    'hc1/flow': points((h) => 55 - 1.2 * (outdoor(h) - 5)), 'hc1/return': points((h) => 42 - 1.0 * (outdoor(h) - 5)), 'weather/oat': points(outdoor),
  })
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  const cip = (await p.call(p.admin, 'POST', `/v2/project/${pid}/componentInProject`, { component_id: 5, display_name: 'HC 1' })).body.resource
  await p.call(p.admin, 'POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, { componentinproject_id: cip.id, pins: [
    { pin_alphanumeric_id: 'flow_temp', dataPointID: 'hc1/flow' }, { pin_alphanumeric_id: 'return_temp', dataPointID: 'hc1/return' }, { pin_alphanumeric_id: 'outdoor_temp', dataPointID: 'weather/oat' },
  ] })
  return { p, pid, cip, q: `project_id=${pid}` }
}

t.test('functions, instance, run, results in English and German, grouped views', async (t) => {
  const { p, pid, cip, q } = await setup(t)
  const fns = (await p.call(p.admin, 'GET', '/v2/analytics/functions?component_alphanumeric_id=heating_circuit')).body
  t.ok(fns.some((f: any) => f.alphanumeric_id === 'heating_curve'))
  t.notOk(fns.some((f: any) => f.alphanumeric_id === 'comfort'), 'only functions of the component')
  t.equal((await p.call(p.admin, 'GET', '/v2/analytics/functions?component_alphanumeric_id=spaceship')).status, 400)
  const curve = fns.find((f: any) => f.alphanumeric_id === 'heating_curve')
  const spread = fns.find((f: any) => f.alphanumeric_id === 'temperature_spread')

  const made = await p.call(p.admin, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: curve.id, componentinproject_id: cip.id, name: 'Curve HC 1', description: 'weekly check' })
  t.equal(made.status, 201, JSON.stringify(made.body))
  t.match(made.body, { success: true, operation: 'create', resource: { project_id: pid, config: { analysisfunction_id: curve.id, componentinproject_id: cip.id, name: 'Curve HC 1', description: 'weekly check', enabled: true } } })
  const id = made.body.resource.id
  const dup = await p.call(p.admin, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: curve.id, componentinproject_id: cip.id, name: 'again' })
  t.same([dup.status, dup.body.success, dup.body.error], [409, false, `Analysis instance for componentinproject_id ${cip.id} and analysisfunction_id ${curve.id} already exists`])
  const comfort = (await p.call(p.admin, 'GET', '/v2/analytics/functions')).body.find((f: any) => f.alphanumeric_id === 'comfort')
  t.match((await p.call(p.admin, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: comfort.id, componentinproject_id: cip.id, name: 'x' })).body.error, /does not apply to the component 'heating_circuit'/)
  const off = (await p.call(p.admin, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: spread.id, componentinproject_id: cip.id, name: 'Spread', enabled: false })).body.resource
  t.equal(off.config.enabled, false)

  const run = await p.call(p.admin, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=2024-01-01T00:00:00Z&end=2024-01-08T00:00:00Z`)
  t.equal(run.status, 201, JSON.stringify(run.body))
  const r = run.body.resource
  t.match(r, { instance_id: id, project_id: pid, function_name: curve.nameEN, start: '2024-01-01 00:00:00+00:00', end: '2024-01-08 00:00:00+00:00', status: 'success', trigger: 'manual' })
  // By hand: the design curve runs from (15 °C, 20 °C) to (-12 °C, 70 °C), slope 50/-27 =
  // -1.852 K/K; the flow is 55 - 1.2·(oat - 5) (slope -1.2, -1.202 from the values rounded to
  // 0.1) and the outdoor mean is 5 °C (whole days of a sine), where the design curve gives
  // 20 + 10·50/27 = 38.52 °C: 16.48 K above it, and the fit at -12 °C is 55 + 1.2·17 = 75.4 °C.
  t.same(r.kpi, [
    { name: 'Mean deviation from design curve', unit: 'K', value: 16.48 },
    { name: 'Measured curve slope', unit: 'K/K', value: -1.202 },
    { name: 'Design curve slope', unit: 'K/K', value: -1.852 },
    { name: 'Flow temperature at design outdoor temperature (fitted)', unit: '°C', value: 75.4 },
    { name: 'Coefficient of determination R²', unit: '', value: 1 },
    { name: 'Hours evaluated', unit: 'h', value: 168 },
  ], 'the KPIs of the heating curve, computed by hand')
  t.equal(r.signal_color, 'red', 'a curve 16.5 K too high is red')
  t.equal(r.interpretation, 'In 168 hours with heating demand the flow temperature was on average 16.5 K above the design curve.')
  t.same(r.recommendation, ['Lower the heating curve by about 16.5 K (parallel shift) and watch room comfort.'])
  const second = (await p.call(p.admin, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=2024-01-01 00:00:00%2B00:00&end=2024-01-04 00:00:00%2B00:00`)).body.resource
  t.not(second.result_id, r.result_id, 'each run one result with its own id')
  t.equal((await p.call(p.admin, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=2024-01-08&end=2024-01-01`)).status, 400)
  t.equal((await p.call(p.admin, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=monday&end=2024-01-01`)).body.error, "Cannot parse start 'monday': use an RFC 3339 timestamp or YYYY-MM-DD HH:MM:SS+00:00")

  const en = (await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}/result/${r.result_id}?${q}`)).body
  const de = (await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}/result/${r.result_id}?${q}&result_language=de`)).body
  t.same(en, r, 'English by default, as the run answered')
  t.equal(de.interpretation, 'In 168 Stunden mit Heizbedarf lag die Vorlauftemperatur im Mittel 16,5 K über der Auslegungskurve.', 'German texts')
  t.same(de.recommendation, ['Heizkurve um etwa 16,5 K absenken (Parallelverschiebung) und die Raumbehaglichkeit beobachten.'])
  t.same(de.kpi.map((k: any) => k.name), ['Mittlere Abweichung von der Auslegungskurve', 'Gemessene Steigung der Heizkurve', 'Steigung der Auslegungskurve', 'Vorlauftemperatur bei Auslegungs-Außentemperatur (angepasst)', 'Bestimmtheitsmaß R²', 'Ausgewertete Stunden'])
  t.equal(de.function_name, fns.find((f: any) => f.id === curve.id).nameDE)
  t.same(de.kpi.map((k: any) => [k.unit, k.value]), en.kpi.map((k: any) => [k.unit, k.value]), 'same values and units')
  t.equal((await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}/result/${r.result_id}?${q}&result_language=fr`)).status, 400)
  t.equal((await p.call(p.admin, 'GET', `/v2/analytics/instance/${off.id}/result/${r.result_id}?${q}`)).status, 404, 'not through another instance')

  t.same((await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}/results?${q}`)).body.map((x: any) => [x.result_id, x.input_parameters.end]), [[r.result_id, '2024-01-08 00:00:00+00:00'], [second.result_id, '2024-01-04 00:00:00+00:00']])
  t.same((await p.call(p.admin, 'GET', `/v2/analytics/instances?${q}`)).body.map((x: any) => x.id), [id, off.id])
  t.same((await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}?${q}`)).body, made.body.resource)
  const latest = (await p.call(p.admin, 'GET', `/v2/analytics/componentsInProject?${q}`)).body
  t.same(latest.items.map((g: any) => [g.componentinproject_id, g.instances.map((i: any) => [i.instance_id, i.result.result_id])]), [[cip.id, [[id, second.result_id]]]], 'latest per instance; an instance without results is left out')
  const full = (await p.call(p.admin, 'GET', `/v2/analytics/results?${q}&result_language=de`)).body
  t.same(full.items.map((g: any) => g.results.map((x: any) => x.result_id)), [[second.result_id]])
  t.equal(full.items[0].results[0].function_name, de.function_name)
  const perCip = (await p.call(p.admin, 'GET', `/v2/analytics/componentInProject/${cip.id}/results?${q}`)).body
  t.match(perCip, { componentinproject_id: cip.id, nameEN: 'Heating circuit', display_name: 'HC 1', instances: [{ instance_id: id, results: [{ result_id: r.result_id }, { result_id: second.result_id }] }, { instance_id: off.id, results: [] }] })

  t.match((await p.call(p.admin, 'PUT', `/v2/analytics/instance/${off.id}?${q}`, { enabled: true })).body.resource.config, { enabled: true })
  t.equal((await p.call(p.admin, 'DELETE', `/v2/analytics/instance/${off.id}?${q}`)).status, 200)
  t.equal((await p.call(p.admin, 'GET', `/v2/analytics/instance/${off.id}?${q}`)).status, 404)
  // Deleting the mapped component deletes its instances and results.
  await p.call(p.admin, 'DELETE', `/v2/project/${pid}/componentInProject/${cip.id}`)
  t.equal((await p.call(p.admin, 'GET', `/v2/analytics/instance/${id}?${q}`)).status, 404)
})

t.test('access: no grant, a narrower TagAuth hides instances on unreadable pins, another company', async (t) => {
  const { p, pid, cip, q } = await setup(t)
  const id = (await p.call(p.admin, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: 2, componentinproject_id: cip.id, name: 'Curve' })).body.resource.id
  const result = (await p.call(p.admin, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=2024-01-01&end=2024-01-08`)).body.resource.result_id
  const u = await addUser(p, 'flowonly')
  t.equal((await p.call(u, 'GET', `/v2/analytics/instances?${q}`)).body.error, 'Unauthorized access to endpoint: 153 - GET /v2/analytics/instances')
  t.equal((await p.call(u, 'POST', `/v2/analytics/instance?${q}`, {})).body.error, 'Unauthorized access to endpoint: 151 - POST /v2/analytics/instance')
  t.equal((await p.call(u, 'GET', '/v2/analytics/functions')).status, 200, 'the function list is global (User scope)')
  const all = Array.from({ length: 12 }, (_, i) => 150 + i).filter((n) => n !== 150)
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'hc1', authed_endpoints: all, authed_tags: [{ key: 'dataPointID', value: 'hc1/flow', read: true, write: false }, { key: 'dataPointID', value: 'hc1/return', read: true, write: false }] })
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.same((await p.call(u, 'GET', `/v2/analytics/instances?${q}`)).body, [], 'a pin on weather/oat is outside the TagAuth: hidden')
  t.equal((await p.call(u, 'GET', `/v2/analytics/instance/${id}?${q}`)).status, 404)
  t.equal((await p.call(u, 'POST', `/v2/analytics/instance/${id}/run?${q}&start=2024-01-01&end=2024-01-08`)).status, 404)
  t.equal((await p.call(u, 'GET', `/v2/analytics/instance/${id}/result/${result}?${q}`)).status, 404)
  t.same((await p.call(u, 'GET', `/v2/analytics/componentsInProject?${q}`)).body, { items: [] })
  t.same((await p.call(u, 'GET', `/v2/analytics/results?${q}`)).body, { items: [] })
  t.equal((await p.call(u, 'GET', `/v2/analytics/componentInProject/${cip.id}/results?${q}`)).status, 404)
  const refused = await p.call(u, 'POST', `/v2/analytics/instance?${q}`, { analysisfunction_id: 4, componentinproject_id: cip.id, name: 'Spread' })
  t.same([refused.status, refused.body.error], [403, `Component in project ${cip.id} maps datapoints you cannot read`])
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/tagauth`, { key: 'dataPointID', value: 'weather/oat', read: true, write: false })
  t.same((await p.call(u, 'GET', `/v2/analytics/instances?${q}`)).body.map((x: any) => x.id), [id], 'visible once every pin is readable')
  t.equal((await p.call(u, 'GET', `/v2/analytics/instance/${id}/result/${result}?${q}`)).status, 200)

  const other = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', other)
  t.equal((await p.call(other, 'GET', `/v2/analytics/instance/${id}?${q}`)).status, 404, 'another company does not see the project')
  const { id: theirs } = await addProject(p, other, 'Theirs')
  t.equal((await p.call(other, 'GET', `/v2/analytics/instance/${id}?project_id=${theirs}`)).status, 404, 'nor the instance through its own project')
  t.equal((await p.call(other, 'POST', `/v2/analytics/instance?project_id=${theirs}`, { analysisfunction_id: 2, componentinproject_id: cip.id, name: 'x' })).status, 404)
})
