// Server-side progress of a CSV import (issue 33 item 3; api/import-progress.ts): with
// `Accept: application/x-ndjson` the answer streams a progress line per stored batch once the
// upload has been read (abort: the second pass, counted against the lines the check found),
// then the usual envelope as its last line; failures found while reading the upload keep their
// status and JSON envelope; without the Accept the answer is what it always was. The access
// rules are those of the import: grant, TagAuth per line, another company's project.
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, addUser, basic, platform, type Login, type Platform } from '../helpers/platform.ts'
import { fileForm } from '../helpers/multipart.ts'

const NDJSON = 'application/x-ndjson'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const { id: pid } = await addProject(p, p.admin, 'Import progress')
  return { p, pid }
}

async function upload(p: Platform, pid: number, csv: string, onError: 'abort' | 'continue', accept?: string, who: Login = p.admin) {
  const form = fileForm('data.csv', Buffer.from(csv), 'import_file')
  const res = await p.app.inject({
    method: 'POST', url: `/v2/project/${pid}/importTimeseries?format=csv&on_error=${onError}`, payload: form.payload,
    headers: { ...form.headers, authorization: basic(who), ...(accept ? { accept } : {}) },
  })
  return { status: res.statusCode, type: String(res.headers['content-type']), body: res.body, lines: () => res.body.trim().split('\n').map((l) => JSON.parse(l)) }
}

/** `n` good lines over three datapoints, one a minute. */
const csv = (n: number, from = 0) => Array.from({ length: n }, (_, i) => `dp${(from + i) % 3},${i},${new Date(Date.UTC(2024, 0, 1) + (from + i) * 60e3).toISOString()}`).join('\n') + '\n'

t.test('abort: a progress line per stored batch of the second pass, out of the lines checked, then the envelope', async (t) => {
  const { p, pid } = await setup(t)
  const n = 120_001 // three batches of up to 50,000 lines
  const r = await upload(p, pid, csv(n), 'abort', NDJSON)
  t.equal(r.status, 200)
  t.equal(r.type, `${NDJSON}; charset=utf-8`)
  const lines = r.lines()
  const progress = lines.slice(0, -1)
  t.same(progress.map((l) => l.total_lines_success), [0, 50_000, 100_000, 120_001], 'before the first batch, then after each')
  t.ok(progress.every((l) => l.type === 'progress' && l.phase === 'store' && l.lines_total === n && l.total_lines_error === 0), JSON.stringify(progress[0]))
  t.same(lines.at(-1), { success: true, operation: '', resource: { total_lines_success: n, total_lines_error: 0, errors: [], project_id: pid } }, 'the usual envelope, last')
  const read = await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=dp0&max=0`)
  t.equal(read.body.data.length, 40_001, 'stored')
})

t.test('continue: progress counts stored and refused lines; the envelope lists the errors', async (t) => {
  const { p, pid } = await setup(t)
  const r = await upload(p, pid, `${csv(60_000)}dp0,warm,2025-01-01T00:00:00Z\n`, 'continue', `${NDJSON}, application/json;q=0.5`)
  t.equal(r.status, 200)
  const lines = r.lines()
  t.ok(lines.length >= 2, `at least one progress line after the upload ended: ${r.body.slice(0, 300)}`)
  const last = lines.at(-2)
  t.match(last, { type: 'progress', phase: 'store', total_lines_success: 60_000, total_lines_error: 1 }, 'the last batch stored')
  t.notOk('lines_total' in last, 'continue reads the file once: the total is not known before its end')
  t.same(lines.at(-1), { success: true, operation: '', resource: { total_lines_success: 60_000, total_lines_error: 1, errors: [{ line_no: 60_001, error: "Cannot parse float: 'warm'" }], project_id: pid } })
})

t.test('without the Accept, or when the upload is refused, the answer is the usual JSON with its status', async (t) => {
  const { p, pid } = await setup(t)
  const plain = await upload(p, pid, csv(3), 'abort')
  t.match(plain.type, /^application\/json/)
  t.same(JSON.parse(plain.body), { success: true, operation: '', resource: { total_lines_success: 3, total_lines_error: 0, errors: [], project_id: pid } })
  const bad = await upload(p, pid, `${csv(70_000)}dp1,x,2024-06-01T00:00:00Z\n`, 'abort', NDJSON)
  t.same([bad.status, bad.type.split(';')[0], JSON.parse(bad.body)], [400, 'application/json', { success: false, error: "Error in line 70001: Cannot parse float: 'x'", operation: '' }], 'a line error of the check: 400, nothing streamed')
  const read = await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=dp1&max=0`)
  t.equal(read.body.data.length, 1, 'only the plain import\'s line of dp1 is stored')
})

t.test('access: the grant, a narrower TagAuth, another company\'s project', async (t) => {
  const { p, pid } = await setup(t)
  const none = await addUser(p, 'no-grant')
  const noRole = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'reader', authed_endpoints: [52], authed_tags: [{ key: 'dataPointID', value: '*', read: true, write: true }] })
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${noRole.body.resource.id}/user/${none.id}`)
  const denied = await upload(p, pid, csv(3), 'abort', NDJSON, none)
  t.same([denied.status, JSON.parse(denied.body).error], [403, 'Unauthorized access to endpoint: 51 - POST /v2/project/{project_id}/importTimeseries'])

  const narrow = await addUser(p, 'dp0-only')
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'dp0', authed_endpoints: [51], authed_tags: [{ key: 'dataPointID', value: 'dp0', read: true, write: true }] })
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${narrow.id}`)
  const abort = await upload(p, pid, csv(3), 'abort', NDJSON, narrow)
  t.same([abort.status, JSON.parse(abort.body).error], [400, "Error in line 2: No write access to datapoint 'dp1'"], 'abort: refused before anything streams')
  const cont = await upload(p, pid, csv(3), 'continue', NDJSON, narrow)
  t.equal(cont.status, 200)
  t.match(cont.lines().at(-2), { type: 'progress', total_lines_success: 1, total_lines_error: 2 }, 'continue: the lines it may not write count as refused')
  t.match(cont.lines().at(-1).resource, { total_lines_success: 1, total_lines_error: 2 })

  const otherAdmin = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', otherAdmin)
  const { id: otherPid } = await addProject(p, otherAdmin, 'Theirs')
  const other = await upload(p, otherPid, csv(3), 'continue', NDJSON)
  t.same([other.status, JSON.parse(other.body).success], [404, false], 'another company\'s project is not found, as JSON')
})
