// The data lifecycle over HTTP (issue 34 item 2; endpoints 220-224): deleting a range of
// observations and a datapoint, the recorded deletions, and the retention of a project; each
// with its bad inputs (400, nothing changed), the TagAuths (404 unreadable, 403 unwritable),
// the grant (403 with the standard text) and another company (404).
import t, { type Test } from 'tap'
import { deniedText, endpoint } from '../../api/registry.ts'
import { addProject, addUser, platform, type Platform } from '../helpers/platform.ts'

const T = (h: number) => new Date(Date.UTC(2024, 0, 1, h)).toISOString().replace('.000', '')
const hours = (n: number, f: (h: number) => number) => Array.from({ length: n }, (_, h) => ({ time: T(h), value: f(h) }))

async function world(t: Test) {
  const p = await platform(t)
  const pid = (await addProject(p, p.admin, 'P')).id
  const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { a: hours(6, (h) => h), b: hours(6, (h) => 10 * h), secret: hours(2, () => 7) })
  if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  return { p, pid }
}

async function withRole(p: Platform, pid: number, name: string, endpoints: number[], tag: { value: string; write: boolean }) {
  const u = await addUser(p, name)
  const role = (await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name, authed_endpoints: endpoints, authed_tags: [{ key: 'dataPointID', value: tag.value, read: true, write: tag.write }] })).body.resource
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.id}/user/${u.id}`)
  return u
}

const values = async (p: Platform, pid: number, id: string) => (await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${id}`)).body.data?.map((d: any) => d.value)

t.test('a deleted range is gone, recorded with who and when, and listed newest first', async (t) => {
  const { p, pid } = await world(t)
  const res = await p.call(p.admin, 'DELETE', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=a&start=${T(1)}&end=${T(3)}`)
  t.match(res, { status: 200, body: { success: true, operation: 'delete', resource: { project_id: pid, dataPointID: 'a', kind: 'range', start: T(1), end: T(3), deleted_by: p.admin.email, time: /Z$/ } } })
  t.same(await values(p, pid, 'a'), [0, 3, 4, 5], '[start, end): the observation at end stays')
  t.same(await values(p, pid, 'b'), [0, 10, 20, 30, 40, 50], 'another datapoint untouched')
  await p.call(p.admin, 'DELETE', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=b&start=${T(5)}&end=${T(9)}`)
  const list = await p.call(p.admin, 'GET', `/v2/project/${pid}/deletions`)
  t.same(list.body.data.map((d: any) => [d.dataPointID, d.start]), [['b', T(5)], ['a', T(1)]], 'newest first')
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/deletions?limit=1&before=${list.body.data[0].id}`)).body.data.map((d: any) => d.dataPointID), ['a'], 'pages')
})

t.test('bad ranges and unknown datapoints: 400 or 404 with the reason, nothing deleted', async (t) => {
  const { p, pid } = await world(t)
  const del = (q: string) => p.call(p.admin, 'DELETE', `/v2/datapoint/timeseries?project_id=${pid}&${q}`)
  t.match(await del(`dataPointID=a&start=${T(4)}&end=${T(2)}`), { status: 400, body: { success: false, error: `start (${T(4)}) must be before end (${T(2)}): the range [start, end) is empty` } })
  t.match(await del(`dataPointID=a&start=${T(2)}&end=${T(2)}`), { status: 400, body: { error: /must be before end/ } })
  t.match(await del(`dataPointID=a&start=yesterday&end=${T(2)}`), { status: 400, body: { error: "Cannot parse start 'yesterday': use an RFC 3339 timestamp" } })
  t.match(await del(`dataPointID=a&start=${T(1)}`), { status: 400, body: { error: /end/ } })
  t.match(await del(`dataPointID=nope&start=${T(1)}&end=${T(2)}`), { status: 404, body: { error: `Datapoint 'nope' not found in project ${pid}` } })
  t.match(await p.call(p.admin, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=nope`), { status: 404, body: { error: `Datapoint 'nope' not found in project ${pid}` } })
  t.same(await values(p, pid, 'a'), [0, 1, 2, 3, 4, 5], 'nothing was deleted')
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/deletions`)).body.data, [], 'nor recorded')
})

t.test('TagAuths: an unreadable datapoint is not found, a read-only one refused with 403; the grant is needed', async (t) => {
  const { p, pid } = await world(t)
  const reader = await withRole(p, pid, 'reader', [52, 220, 221, 222], { value: 'a', write: false })
  const range = (id: string) => `project_id=${pid}&dataPointID=${id}&start=${T(0)}&end=${T(9)}`
  t.match(await p.call(reader, 'DELETE', `/v2/datapoint/timeseries?${range('a')}`), { status: 403, body: { error: "No write access to datapoint 'a'" } })
  t.match(await p.call(reader, 'DELETE', `/v2/datapoint/timeseries?${range('b')}`), { status: 404, body: { error: `Datapoint 'b' not found in project ${pid}` } })
  t.match(await p.call(reader, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=a`), { status: 403, body: { error: "No write access to datapoint 'a'" } })
  t.match(await p.call(reader, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=secret`), { status: 404 })
  const writer = await withRole(p, pid, 'writer', [52, 220, 221], { value: 'a', write: true })
  t.equal((await p.call(writer, 'DELETE', `/v2/datapoint/timeseries?${range('a')}`)).status, 200)
  await p.call(p.admin, 'DELETE', `/v2/datapoint/timeseries?${range('secret')}`)
  t.same((await p.call(writer, 'GET', `/v2/project/${pid}/deletions`)).body.data.map((d: any) => d.dataPointID), ['a'], 'the deletion of a datapoint it cannot read is not shown')
  t.same(await values(p, pid, 'b'), [0, 10, 20, 30, 40, 50])
  const noGrant = await withRole(p, pid, 'plain', [52], { value: '*', write: true })
  for (const [no, url] of [[220, `/v2/datapoint/timeseries?${range('b')}`], [222, `/v2/datapoint?project_id=${pid}&dataPointID=b`], [221, `/v2/project/${pid}/deletions`]] as const) {
    const res = await p.call(noGrant, endpoint(no).method, url)
    t.same([res.status, res.body.error], [403, deniedText(endpoint(no))], `${no} without its grant`)
  }
  t.same(await values(p, pid, 'b'), [0, 10, 20, 30, 40, 50], 'nothing deleted by the refused calls')
})

t.test('another company: the project does not exist for it', async (t) => {
  const { p, pid } = await world(t)
  const beta = { email: 'admin@beta.test', password: 'beta-admin-pass' }
  await p.catalog.createCompanyWithAdmin('Beta', beta)
  for (const [method, url] of [
    ['DELETE', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=a&start=${T(0)}&end=${T(9)}`], ['DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=a`],
    ['GET', `/v2/project/${pid}/deletions`], ['GET', `/v2/company/project/${pid}/retention`], ['PUT', `/v2/company/project/${pid}/retention`],
  ] as const) {
    const res = await p.call(beta, method, url, method === 'PUT' ? { raw: '1d' } : undefined)
    t.same([res.status, res.body.error], [404, `Project ${pid} not found`], `${method} ${url}`)
  }
  t.same(await values(p, pid, 'a'), [0, 1, 2, 3, 4, 5])
  t.same((await p.call(p.admin, 'GET', `/v2/company/project/${pid}/retention`)).body.resource.raw, null, 'retention unchanged')
})

t.test('deleting a datapoint: 409 naming the virtual datapoint using it; then its data, alerts and favorites go', async (t) => {
  const { p, pid } = await world(t)
  const vdp = await p.call(p.admin, 'POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=double&type=formula`, { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: '2 * P1' } })
  t.equal(vdp.status, 201)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/favorite`, { dataPointID: 'a' })
  const alert = await p.call(p.admin, 'POST', `/v2/alert/threshold?project_id=${pid}`, { name: 'High a', dataPointID: 'a', thresholds: { warn: { upper: 25, upper_reset: 23 } } })
  t.equal(alert.status, 201)
  t.match(await p.call(p.admin, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=a`), { status: 409, body: { error: "Datapoint 'a' is used by virtual datapoint 'double': delete or change them first" } })
  const output = await p.call(p.admin, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=double`)
  if (output.status !== 404) t.match(output, { status: 409, body: { error: "Datapoint 'double' is used by virtual datapoint 'double': delete or change them first" } }, 'nor its output')
  t.same(await values(p, pid, 'a'), [0, 1, 2, 3, 4, 5], 'refused: nothing changed')
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${pid}/virtual_datapoint?dataPointID=double`)).status, 200)
  const gone = await p.call(p.admin, 'DELETE', `/v2/datapoint?project_id=${pid}&dataPointID=a`)
  t.match(gone, { status: 200, body: { operation: 'delete', resource: { project_id: pid, dataPointID: 'a', deletion: { kind: 'datapoint', start: null, end: null, deleted_by: p.admin.email } } } })
  t.match(await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=a`), { status: 404 })
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/favorites`)).body.favorites, [], 'its favorite is gone')
  t.match(await p.call(p.admin, 'GET', `/v2/project/${pid}/alert/${alert.body.resource.id}`), { status: 404 }, 'its alert is gone')
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/deletions`)).body.data.map((d: any) => [d.kind, d.dataPointID]), [['datapoint', 'a']])
  // Stored again later, it is a new datapoint: a new id, nothing of the old data.
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { a: [{ time: T(9), value: 99 }] })
  t.same(await values(p, pid, 'a'), [99])
  t.not((await p.catalog.datapoints.get(pid, 'a')).id, gone.body.resource.id, 'ids are never reused')
})

t.test('retention: read, set, validated (at least a minute, coarser levels kept longer), company grant', async (t) => {
  const { p, pid } = await world(t)
  const url = `/v2/company/project/${pid}/retention`
  t.match(await p.call(p.admin, 'GET', url), { status: 200, body: { resource: { project_id: pid, raw: null, rollup_15m: null, rollup_1h: null, rollup_1d: null, raw_seconds: null } } }, 'the default keeps everything')
  const set = await p.call(p.admin, 'PUT', url, { raw: '90d', rollup_15m: '1y', rollup_1h: '1y' })
  t.match(set, { status: 200, body: { operation: 'update', resource: { raw: '90d', raw_seconds: 7_776_000, rollup_15m: '1y', rollup_1h: '1y', rollup_1d: null } } })
  for (const [body, error] of [
    [{ raw: '30s' }, 'Retention of raw must be at least 60 seconds (one minute), got 30 seconds'],
    [{ raw: '5x' }, "Retention of raw '5x': use a whole number followed by s, m, h, d, w or y (365 days), e.g. 90d, or null to keep everything"],
    [{ rollup_1d: '1d' }, 'Retention of rollup_1d (86400 seconds) must not be shorter than that of rollup_1h (31536000 seconds)'],
  ] as const) {
    t.match(await p.call(p.admin, 'PUT', url, body), { status: 400, body: { error } }, JSON.stringify(body))
  }
  t.match(await p.call(p.admin, 'PUT', url, { raw: 90 }), { status: 400 }, 'a number is not a duration')
  t.match(await p.call(p.admin, 'GET', url), { body: { resource: { raw: '90d', rollup_15m: '1y' } } }, 'refused changes change nothing')
  t.match(await p.call(p.admin, 'PUT', url, { raw: null, rollup_15m: 'forever', rollup_1h: null }), { status: 200, body: { resource: { raw: null, rollup_15m: null } } })
  const u = await addUser(p, 'manager')
  const role = (await p.call(p.admin, 'POST', '/v2/company/role', { name: 'readers', authed_endpoints: [223] })).body.resource
  await p.call(p.admin, 'POST', `/v2/company/role/${role.id}/user/${u.id}`)
  t.equal((await p.call(u, 'GET', url)).status, 200)
  t.same([(await p.call(u, 'PUT', url, { raw: '1d' })).body.error], [deniedText(endpoint(224))])
  t.match(await p.call(p.admin, 'GET', '/v2/company/project/999999/retention'), { status: 404 })
})
