// CSV import over HTTP (spec 1 "Time series import and export" rules 1-6).
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, addUser, basic, platform, type Login, type Platform } from '../helpers/platform.ts'

const BOUNDARY = '----lintel-test-boundary'
function multipart(csv: string | Buffer, field = 'import_file'): Buffer {
  return Buffer.concat([
    Buffer.from(`--${BOUNDARY}\r\nContent-Disposition: form-data; name="${field}"; filename="data.csv"\r\nContent-Type: text/csv\r\n\r\n`),
    Buffer.isBuffer(csv) ? csv : Buffer.from(csv),
    Buffer.from(`\r\n--${BOUNDARY}--\r\n`),
  ])
}

async function upload(p: Platform, pid: number, csv: string | Buffer, query: string, who: Login = p.admin, field?: string, format?: string) {
  const res = await p.app.inject({
    method: 'POST', url: `/v2/project/${pid}/importTimeseries${format === undefined ? '' : `/${format}`}?${query}`, payload: multipart(csv, field),
    headers: { authorization: basic(who), 'content-type': `multipart/form-data; boundary=${BOUNDARY}` },
  })
  return { status: res.statusCode, body: res.json() }
}

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const { id: pid } = await addProject(p, p.admin, 'Import')
  const values = async (id: string) => {
    const r = await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${encodeURIComponent(id)}`)
    return r.status === 200 ? r.body.data : r.body
  }
  return { p, pid, values }
}

const BAD = [
  'temp,20.5,2024-01-01T00:00:00Z',
  'a\\b,1,2024-01-01T00:00:00Z',
  'temp,21,not a date',
  'temp,warm,2024-01-01T00:02:00Z',
  ',1,2024-01-01T00:03:00Z',
  'temp,22,2024-01-01T00:04:00Z',
].join('\n')

t.test('continue: HTTP 200 with counts and every line error', async (t) => {
  const { p, pid, values } = await setup(t)
  const r = await upload(p, pid, BAD, 'format=csv&on_error=continue')
  t.same(r, {
    status: 200,
    body: {
      success: true, operation: '',
      resource: {
        total_lines_success: 2, total_lines_error: 4, project_id: pid,
        errors: [
          { line_no: 2, error: 'Identifier contains a backslash' },
          { line_no: 3, error: "Cannot parse datetime: 'not a date'" },
          { line_no: 4, error: "Cannot parse float: 'warm'" },
          { line_no: 5, error: 'Identifier is empty' },
        ],
      },
    },
  })
  t.same(await values('temp'), [{ time: '2024-01-01T00:00:00Z', value: 20.5 }, { time: '2024-01-01T00:04:00Z', value: 22 }])
  const none = await upload(p, pid, 'x,y,z\n', 'format=csv&on_error=continue')
  t.equal(none.status, 200, 'always 200, even with no valid line')
  t.equal(none.body.success, true)
})

t.test('abort: the first error ends the import and nothing is stored', async (t) => {
  const { p, pid, values } = await setup(t)
  const r = await upload(p, pid, BAD, 'format=csv&on_error=abort')
  t.same(r, { status: 400, body: { success: false, error: 'Error in line 2: Identifier contains a backslash', operation: '' } })
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.datapoints, [], 'not even the datapoint of line 1')
  const good = await upload(p, pid, 'temp,1,2024-01-01\ntemp,2,2024-01-02\n', 'format=csv&on_error=abort')
  t.same(good.body, { success: true, operation: '', resource: { total_lines_success: 2, total_lines_error: 0, errors: [], project_id: pid } })
  t.same(await values('temp'), [{ time: '2024-01-01T00:00:00Z', value: 1 }, { time: '2024-01-02T00:00:00Z', value: 2 }])
  const tooMany = await upload(p, pid, 'temp,1,2024-01-03\ntemp,x,2,2024-01-04\n', 'format=csv&on_error=abort')
  t.equal(tooMany.body.error, "Error in line 2: Cannot parse float: 'x'", 'too many fields: the second field is text')
  t.equal((await values('temp')).length, 2, 'line 1 of the aborted file was not stored')
})

t.test('dialects: semicolons, header, BOM, CRLF, quotes, offsets, epoch', async (t) => {
  const { p, pid, values } = await setup(t)
  const csv = '\uFEFFdatapoint;value;time\r\n"Raum 1; Süd";20,5;2024-03-31 03:30:00+02:00\r\n"Raum 1; Süd";21;2024-03-31T01:31:00.000001Z\r\n'
  const r = await upload(p, pid, csv, 'format=csv&on_error=abort')
  t.equal(r.status, 200, JSON.stringify(r.body))
  t.same(await values('Raum 1; Süd'), [{ time: '2024-03-31T01:30:00Z', value: 20.5 }, { time: '2024-03-31T01:31:00.000001Z', value: 21 }])
  const tabs = await upload(p, pid, 'x\t1\t2024-01-01\nx\t2\t2024-01-02T10:00+01\n', 'format=csv&on_error=abort')
  t.equal(tabs.body.resource.total_lines_success, 2)
  t.same(await values('x'), [{ time: '2024-01-01T00:00:00Z', value: 1 }, { time: '2024-01-02T09:00:00Z', value: 2 }])
})

t.test('bad requests', async (t) => {
  const { p, pid } = await setup(t)
  t.equal((await upload(p, pid, 'a,1,2024-01-01', 'format=json&on_error=abort')).body.error, "Unsupported format 'json': only csv is accepted")
  t.equal((await upload(p, pid, 'a,1,2024-01-01', 'format=csv')).status, 400, 'on_error is required')
  t.equal((await upload(p, pid, 'a,1,2024-01-01', 'format=csv&on_error=ignore')).status, 400)
  t.equal((await upload(p, pid, 'a,1,2024-01-01', 'format=csv&on_error=abort', p.admin, 'file')).body.error, 'The CSV file must be sent in the form field import_file')
  const notMultipart = await p.call(p.admin, 'POST', `/v2/project/${pid}/importTimeseries?format=csv&on_error=abort`, { a: 1 })
  t.equal(notMultipart.body.error, 'The upload must be multipart/form-data with the CSV file in the form field import_file')
})

t.test('write access per datapoint', async (t) => {
  const { p, pid } = await setup(t)
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, {
    name: 'importer', authed_endpoints: [51], authed_tags: [{ key: 'dataPointID', value: 'mine', read: true, write: true }],
  })
  const u = await addUser(p, 'importer')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  const csv = 'mine,1,2024-01-01\ntheirs,2,2024-01-01\n'
  t.same((await upload(p, pid, csv, 'format=csv&on_error=abort', u)).body.error, "Error in line 2: No write access to datapoint 'theirs'")
  const cont = await upload(p, pid, csv, 'format=csv&on_error=continue', u)
  t.same(cont.body.resource, { total_lines_success: 1, total_lines_error: 1, errors: [{ line_no: 2, error: "No write access to datapoint 'theirs'" }], project_id: pid })
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.datapoints.map((d: { dataPointID: string }) => d.dataPointID), ['mine'])
})

t.test('format as a path parameter (spec 1 parameter table): endpoint 53, same behaviour as 51', async (t) => {
  const { p, pid, values } = await setup(t)
  const ok = await upload(p, pid, 'a,1,2024-01-01\nb,x,2024-01-01\n', 'on_error=continue', p.admin, undefined, 'csv')
  t.same(ok, { status: 200, body: { success: true, operation: '', resource: { total_lines_success: 1, total_lines_error: 1, errors: [{ line_no: 2, error: "Cannot parse float: 'x'" }], project_id: pid } } })
  t.same(await values('a'), [{ time: '2024-01-01T00:00:00Z', value: 1 }])
  t.same((await upload(p, pid, 'a,1,2024-01-01', 'on_error=abort', p.admin, undefined, 'json')).body.error, "Unsupported format 'json': only csv is accepted")
  t.equal((await upload(p, pid, 'a,1,2024-01-01', 'format=csv&on_error=abort', p.admin, undefined, 'csv')).status, 400, 'not both: the path names the format')
  t.equal((await upload(p, pid, 'a,1,2024-01-01', '', p.admin, undefined, 'csv')).status, 400, 'on_error is still required')
  t.equal((await upload(p, pid, 'c,3,2024-01-01', 'format=csv&on_error=abort')).status, 200, 'the query form still works')

  // Its own endpoint number: a role granting only 51 is refused on the path form, and the reverse.
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'query-only', authed_endpoints: [51], authed_tags: [{ key: 'dataPointID', value: '*', read: true, write: true }] })
  const u = await addUser(p, 'query-only')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.equal((await upload(p, pid, 'd,4,2024-01-01', 'format=csv&on_error=abort', u)).status, 200)
  t.same((await upload(p, pid, 'd,4,2024-01-01', 'on_error=abort', u, undefined, 'csv')).body.error, 'Unauthorized access to endpoint: 53 - POST /v2/project/{project_id}/importTimeseries/{format}')
})

t.test('endpoint 53 (format in the path) keeps the trust boundary: narrower TagAuth, another company', async (t) => {
  const { p, pid } = await setup(t)
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'mine-only', authed_endpoints: [53], authed_tags: [{ key: 'dataPointID', value: 'mine', read: true, write: true }] })
  const u = await addUser(p, 'mine-only')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.same((await upload(p, pid, 'mine,1,2024-01-01\ntheirs,2,2024-01-01\n', 'on_error=abort', u, undefined, 'csv')).body.error, "Error in line 2: No write access to datapoint 'theirs'")
  const otherAdmin = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', otherAdmin)
  const { id: otherPid } = await addProject(p, otherAdmin, 'Theirs')
  t.equal((await upload(p, otherPid, 'mine,1,2024-01-01', 'on_error=abort', p.admin, undefined, 'csv')).status, 404, 'another company\'s project is not found')
})
