// GET /v2/datapoint/timeseries as CSV (issue 34 item 1): `format=csv` or `Accept: text/csv`,
// raw (streamed in chunks) and sampled, unit conversion, the same TagAuth checks and errors.
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, addUser, basic, platform, type Login, type Platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const proj = await addProject(p, p.admin, 'CSV')
  return { p, pid: proj.id }
}

async function get(p: Platform, pid: number, q: Record<string, string | number>, opts: { accept?: string; who?: Login } = {}) {
  const qs = new URLSearchParams({ project_id: String(pid), ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) })
  const headers: Record<string, string> = { authorization: basic(opts.who ?? p.admin) }
  if (opts.accept) headers.accept = opts.accept
  const res = await p.app.inject({ method: 'GET', url: `/v2/datapoint/timeseries?${qs}`, headers })
  return { status: res.statusCode, type: String(res.headers['content-type']), text: res.body }
}

const at = (i: number, stepS = 60) => new Date(Date.UTC(2024, 0, 1) + i * stepS * 1000).toISOString().replace('.000Z', 'Z')

t.test('raw read as CSV: header, one line per observation, RFC 3339 times; format=csv and Accept alike', async (t) => {
  const { p, pid } = await setup(t)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { temp: [{ time: '2024-01-01T00:00:00Z', value: 20.5 }, { time: '2024-01-01T00:00:01.250Z', value: -0.125 }, { time: '2024-01-01T00:01:00Z', value: 1e21 }] })
  const expected = 'datapoint,value,time\r\ntemp,20.5,2024-01-01T00:00:00Z\r\ntemp,-0.125,2024-01-01T00:00:01.250Z\r\ntemp,1e+21,2024-01-01T00:01:00Z\r\n'
  const byParam = await get(p, pid, { dataPointID: 'temp', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z', format: 'csv' })
  t.same(byParam, { status: 200, type: 'text/csv; charset=utf-8', text: expected })
  t.same(await get(p, pid, { dataPointID: 'temp', start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z' }, { accept: 'text/csv' }), byParam, 'Accept: text/csv')
  t.same((await get(p, pid, { dataPointID: 'temp', max: 1 }, { accept: 'text/csv' })).text, 'datapoint,value,time\r\ntemp,1e+21,2024-01-01T00:01:00Z\r\n', 'max: the last one')
  const json = await get(p, pid, { dataPointID: 'temp', max: 1 }, { accept: 'application/json, text/csv;q=0.5' })
  t.equal(json.type, 'application/json; charset=utf-8', 'JSON ranked higher: JSON')
  t.same(JSON.parse(json.text).data, [{ time: '2024-01-01T00:01:00Z', value: 1e21 }])
  t.equal((await get(p, pid, { dataPointID: 'temp', max: 1 }, { accept: 'text/csv;q=0.9, application/json;q=0.1' })).type, 'text/csv; charset=utf-8')
  t.same((await get(p, pid, { dataPointID: 'temp', start: '2025-01-01T00:00:00Z', end: '2025-01-02T00:00:00Z', format: 'csv' })).text, 'datapoint,value,time\r\n', 'empty range: the header only')
})

t.test('a long raw read is streamed chunk by chunk: every line in order', async (t) => {
  const { p, pid } = await setup(t)
  const n = 7_003 // more than three store chunks (engine/chunked-read.ts READ_CHUNK)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { 'Raum 1, "Süd"': Array.from({ length: n }, (_, i) => ({ time: at(i), value: i / 4 })) })
  // start without end: raw, no limit (with both bounds automatic sampling would apply)
  const res = await get(p, pid, { dataPointID: 'Raum 1, "Süd"', start: at(0), format: 'csv' })
  const lines = res.text.split('\r\n')
  t.equal(lines.length, n + 2, 'header, n lines, and the empty rest after the last CRLF')
  t.equal(lines[0], 'datapoint,value,time')
  let wrong = 0
  for (let i = 0; i < n; i++) if (lines[i + 1] !== `"Raum 1, ""Süd""",${i / 4},${at(i)}`) wrong++
  t.equal(wrong, 0, 'every line: the identifier quoted (RFC 4180), value, time')
})

t.test('sampled reads as CSV: the column is named after the aggregate; unit conversion', async (t) => {
  const { p, pid } = await setup(t)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { t: Array.from({ length: 120 }, (_, i) => ({ time: at(i), value: i < 60 ? 10 : 20 })) })
  const ids = await p.catalog.datapoints.ensure(pid, ['t'])
  await p.catalog.datapoints.setTag(ids.get('t')!, 'unit', '°C')
  const q = { dataPointID: 't', start: at(0), end: at(120), samplerate: '1h' }
  t.equal((await get(p, pid, { ...q, format: 'csv' })).text, 'datapoint,mean,time\r\nt,10,2024-01-01T00:00:00Z\r\nt,20,2024-01-01T01:00:00Z\r\n')
  t.equal((await get(p, pid, { ...q, aggregate: 'count' }, { accept: 'text/csv' })).text, 'datapoint,count,time\r\nt,60,2024-01-01T00:00:00Z\r\nt,60,2024-01-01T01:00:00Z\r\n')
  t.equal((await get(p, pid, { ...q, units_system: 'imperial', format: 'csv' })).text, 'datapoint,mean,time\r\nt,50,2024-01-01T00:00:00Z\r\nt,68,2024-01-01T01:00:00Z\r\n', '°F')
  t.equal((await get(p, pid, { dataPointID: 't', start: at(0), end: at(2), units: 'K', format: 'csv' })).text, 'datapoint,value,time\r\nt,283.15,2024-01-01T00:00:00Z\r\nt,283.15,2024-01-01T00:01:00Z\r\n', 'raw, converted')
})

t.test('CSV reads keep the checks: bad input, TagAuths, grants, another company', async (t) => {
  const { p, pid } = await setup(t)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { open: [{ time: at(0), value: 1 }], secret: [{ time: at(0), value: 2 }] })
  const err = (r: { text: string }) => JSON.parse(r.text)
  const bad = await get(p, pid, { dataPointID: 'open', format: 'xml' })
  t.same([bad.status, err(bad)], [400, { success: false, error: "Unknown format 'xml': only csv is accepted (or leave it out for JSON)", operation: '' }])
  const order = await get(p, pid, { dataPointID: 'open', start: at(5), end: at(1), format: 'csv' })
  t.same([order.status, err(order).error], [400, 'start must not be after end'])
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'narrow', authed_endpoints: [52], authed_tags: [{ key: 'dataPointID', value: 'open', read: true, write: false }] })
  const u = await addUser(p, 'narrow')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.equal((await get(p, pid, { dataPointID: 'open', format: 'csv' }, { who: u })).text, `datapoint,value,time\r\nopen,1,${at(0)}\r\n`)
  const hidden = await get(p, pid, { dataPointID: 'secret', format: 'csv' }, { who: u })
  t.same([hidden.status, err(hidden).error], [404, `Datapoint 'secret' not found in project ${pid}`], 'narrower TagAuth: not found, no CSV')
  const nogrant = await addUser(p, 'nogrant')
  const r = await get(p, pid, { dataPointID: 'open', format: 'csv' }, { who: nogrant })
  t.same([r.status, err(r).error], [403, 'Unauthorized access to endpoint: 52 - GET /v2/datapoint/timeseries'])
  const other = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', other)
  const cross = await get(p, pid, { dataPointID: 'open', format: 'csv' }, { who: other })
  t.same([cross.status, err(cross).error], [404, `Project ${pid} not found`], 'a project of another company is not found')
})
