// Bulk export (issue 34 item 1, endpoints 210-212) on the embedded store: a job writes a CSV or
// Parquet file into the project's document space; the Parquet file is read back with DuckDB
// (an independent reader) and the CSV line by line, and every row is compared with what was
// stored. Bad input, TagAuths, grants, another company, quota, empty range.
import t, { type Test } from 'tap'
import { DuckDBInstance } from '@duckdb/node-api'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { formatTimestamp } from '../../core/timestamp.ts'
import { EXPORT_CHUNK } from '../../engine/export/rows.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { download, duckRows, fill, finished, start, T0 } from '../helpers/export.ts'
import { addProject, addUser, basic, platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const proj = await addProject(p, p.admin, 'Export')
  const dir = mkdtempSync(join(tmpdir(), 'lintel-export-'))
  t.teardown(() => rmSync(dir, { recursive: true, force: true }))
  return { p, store, pid: proj.id, dir }
}

t.test('Parquet export: every row read back by DuckDB; timestamp and dictionary columns; progress', async (t) => {
  const { p, pid, dir } = await setup(t)
  const ids = ['zone/b', 'a "quoted", id', 'Ä-sensor', 'c']
  const expected = await fill(p, pid, ids, 2_503)
  await fill(p, pid, ['not-exported'], 10)
  const res = await start(p, pid, { format: 'parquet', start: formatTimestamp(T0), end: formatTimestamp(T0 + 10_000 * 61_000_003), dataPointIDs: ['zone/b', 'c', 'Ä-sensor', 'a "quoted", id'], path: 'out/all.parquet' })
  t.equal(res.status, 202)
  t.match(res.body, { success: true, operation: 'create', resource: { state: 'running', format: 'parquet', path: 'out/all.parquet', datapoints: 4, rows_estimate: expected.length } })
  const job = await finished(p, pid, res.body.resource.id)
  t.match(job, { state: 'done', rows_done: expected.length, rows_estimate: expected.length, progress: 1, error: null })
  const file = join(dir, 'all.parquet')
  const bytes = await download(p, pid, 'out/all.parquet')
  t.equal(bytes.length, job.bytes, 'the size recorded is the file\'s')
  writeFileSync(file, bytes)
  const rows = await duckRows(file)
  t.equal(rows.length, expected.length)
  let wrong = 0
  for (let i = 0; i < expected.length; i++) if (rows[i][0] !== expected[i][0] || rows[i][1] !== expected[i][1] || rows[i][2] !== expected[i][2]) wrong++
  t.equal(wrong, 0, 'every row equal, in file order: by datapoint, then time')
  const db = await DuckDBInstance.create(':memory:')
  const c = await db.connect()
  const schema = (await c.runAndReadAll(`SELECT name, type, converted_type, logical_type FROM parquet_schema('${file}') WHERE name <> 'duckdb_schema'`)).getRowObjectsJson()
  t.match(schema.slice(1), [
    { name: 'datapoint', type: 'BYTE_ARRAY', converted_type: 'UTF8' },
    { name: 'time', type: 'INT64', converted_type: 'TIMESTAMP_MICROS', logical_type: /isAdjustedToUTC=1.*MICROS=MicroSeconds/ },
    { name: 'value', type: 'DOUBLE' },
  ])
  const enc = (await c.runAndReadAll(`SELECT DISTINCT encodings FROM parquet_metadata('${file}') WHERE path_in_schema = 'datapoint'`)).getRowObjectsJson()
  t.same(enc.map((e) => e.encodings), ['PLAIN, RLE_DICTIONARY'], 'datapoint identifiers dictionary-encoded')
  const typ = (await c.runAndReadAll(`SELECT typeof(time) AS t FROM read_parquet('${file}') LIMIT 1`)).getRowObjectsJson()
  t.same(typ, [{ t: 'TIMESTAMP WITH TIME ZONE' }])
  c.closeSync()
  db.closeSync()
  const list = await p.call(p.admin, 'GET', `/v2/project/${pid}/exports`)
  t.same(list.body.items.map((x: { id: number }) => x.id), [job.id])
})

t.test('CSV export: every line; by tag filter; empty range gives the header only', async (t) => {
  const { p, pid } = await setup(t)
  const expected = await fill(p, pid, ['m1', 'm2', 'other'], 1_200)
  const dps = await p.catalog.datapoints.ensure(pid, ['m1', 'm2'])
  for (const id of dps.values()) await p.catalog.datapoints.setTag(id, 'kind', 'meter')
  const res = await start(p, pid, { format: 'CSV', start: formatTimestamp(T0), end: formatTimestamp(T0 + 1_000 * 61_000_003), tags: [{ key: 'kind', value: 'meter' }], path: 'meters.csv' })
  t.equal(res.status, 202)
  const job = await finished(p, pid, res.body.resource.id)
  const want = expected.filter((r) => r[0] !== 'other' && r[1] < T0 + 1_000 * 61_000_003)
  t.match(job, { state: 'done', rows_done: want.length, datapoints: 2, format: 'csv' })
  const lines = (await download(p, pid, 'meters.csv')).toString('utf8').split('\r\n')
  t.equal(lines[0], 'datapoint,value,time')
  t.equal(lines.length, want.length + 2)
  let wrong = 0
  for (let i = 0; i < want.length; i++) if (lines[i + 1] !== `${want[i][0]},${want[i][2]},${formatTimestamp(want[i][1])}`) wrong++
  t.equal(wrong, 0, 'every line equal')

  const empty = await start(p, pid, { format: 'csv', start: '2030-01-01T00:00:00Z', end: '2030-01-01T00:00:00Z', dataPointIDs: ['m1'], path: 'empty.csv' })
  t.match(await finished(p, pid, empty.body.resource.id), { state: 'done', rows_done: 0, rows_estimate: 0, progress: 1 })
  t.equal((await download(p, pid, 'empty.csv')).toString(), 'datapoint,value,time\r\n')
})

t.test('bad input, TagAuths, grants, another company: clear 4xx, no job, no file', async (t) => {
  const { p, pid } = await setup(t)
  await fill(p, pid, ['open', 'secret'], 3)
  const range = { start: '2024-01-01T00:00:00Z', end: '2024-02-01T00:00:00Z' }
  const err = (r: { status: number; body: any }) => [r.status, r.body.error]
  t.same(err(await start(p, pid, { format: 'parquet', start: range.end, end: range.start, dataPointIDs: ['open'] })), [400, 'start must not be after end'])
  t.same(err(await start(p, pid, { format: 'xlsx', ...range, dataPointIDs: ['open'] })), [400, "Unknown format 'xlsx': use csv or parquet"])
  t.same(err(await start(p, pid, { format: 'csv', start: 'yesterday', end: range.end, dataPointIDs: ['open'] })), [400, "Cannot parse start 'yesterday': use an RFC 3339 timestamp"])
  t.same(err(await start(p, pid, { format: 'csv', ...range })), [400, 'Name the datapoints to export: dataPointIDs, tags, or both'])
  t.same(err(await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['nope'] })), [404, `Datapoint 'nope' not found in project ${pid}`])
  t.equal((await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open'], extra: 1 })).status, 400, 'unknown body fields refused')

  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'narrow', authed_endpoints: [210, 211, 212, 93], authed_tags: [{ key: 'dataPointID', value: 'open', read: true, write: false }] })
  const u = await addUser(p, 'narrow')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.same(err(await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open', 'secret'] }, u)), [403, "No read access to datapoint 'secret'"], 'narrower TagAuth: refused naming it')
  const mine = await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open'], path: 'mine.csv' }, u)
  t.equal(mine.status, 202)
  t.match(await finished(p, pid, mine.body.resource.id, u), { state: 'done', rows_done: 3 })
  const both = await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open', 'secret'], path: 'both.csv' })
  await finished(p, pid, both.body.resource.id)
  t.same(err(await p.call(u, 'GET', `/v2/project/${pid}/export/${both.body.resource.id}`)), [404, `Export ${both.body.resource.id} not found in project ${pid}`], 'a job over an unreadable datapoint is not shown')
  t.same((await p.call(u, 'GET', `/v2/project/${pid}/exports`)).body.items.map((x: { id: number }) => x.id), [mine.body.resource.id])

  const nogrant = await addUser(p, 'nogrant')
  t.same(err(await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open'] }, nogrant)), [403, 'Unauthorized access to endpoint: 210 - POST /v2/project/{project_id}/export'])
  t.same(err(await p.call(nogrant, 'GET', `/v2/project/${pid}/export/${mine.body.resource.id}`)), [403, 'Unauthorized access to endpoint: 211 - GET /v2/project/{project_id}/export/{export_id}'])
  const other = { email: 'admin@other.test', password: 'other-pass-1' }
  await p.catalog.createCompanyWithAdmin('Other', other)
  t.same(err(await start(p, pid, { format: 'csv', ...range, dataPointIDs: ['open'] }, other)), [404, `Project ${pid} not found`], 'another company: not found')
  t.equal((await p.call(other, 'GET', `/v2/project/${pid}/export/${mine.body.resource.id}`)).status, 404)
  const files = await p.call(p.admin, 'GET', `/v2/project/${pid}/files`)
  t.same(files.body.items.map((f: { path: string }) => f.path).sort(), ['both.csv', 'mine.csv'], 'refused requests produced no file')
})

t.test('the company\'s concurrent uploads are all taken: 429 with Retry-After before a job exists; the next one runs', async (t) => {
  const { p, pid } = await setup(t)
  await fill(p, pid, ['a'], 3)
  const project = await p.catalog.projects.get(pid)
  const space = { kind: 'project' as const, companyId: project.company_id, projectId: pid }
  // Four uploads of the company running (LINTEL_UPLOADS_PER_COMPANY's default): the export's file would be the fifth.
  const held = Array.from({ length: 4 }, () => p.documents.admit(space))
  const body = { format: 'csv', start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z', dataPointIDs: ['a'], path: 'a.csv' }
  const res = await p.app.inject({ method: 'POST', url: `/v2/project/${pid}/export`, headers: { authorization: basic(p.admin) }, payload: body })
  t.equal(res.statusCode, 429)
  t.equal(res.headers['retry-after'], '5')
  t.match(JSON.parse(res.body), { success: false, error: `No export started: its file is written as a document upload. Too many uploads: company ${project.company_id} already has 4 uploads running, at most 4 at once (LINTEL_UPLOADS_PER_COMPANY); retry when one has finished` })
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/exports`)).body.items, [], 'no job')
  held.pop()!.release()
  const ok = await start(p, pid, body)
  t.equal(ok.status, 202)
  t.match(await finished(p, pid, ok.body.resource.id), { state: 'done', rows_done: 3 })
  t.equal(p.documents.gate.usage().running, 3, 'the export\'s admission was released when it ended')
  for (const h of held) h.release()
  // The node's uploads all taken (LINTEL_UPLOADS_PER_NODE, default 8; other companies' here): 503, no job.
  const others = Array.from({ length: 8 }, (_, i) => p.documents.admit({ kind: 'project', companyId: 1000 + i, projectId: 1 }))
  const full = await p.app.inject({ method: 'POST', url: `/v2/project/${pid}/export`, headers: { authorization: basic(p.admin) }, payload: { ...body, path: 'b.csv' } })
  t.equal(full.statusCode, 503)
  t.ok(full.headers['retry-after'], 'with Retry-After')
  t.match(JSON.parse(full.body).error, /Too many uploads on this server: 8 running, at most 8 at once \(LINTEL_UPLOADS_PER_NODE\)/)
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}/exports`)).body.items.length, 1, 'no second job')
  for (const h of others) h.release()
})

t.test('over the space quota: the job fails with the reason, nothing is left in the space', async (t) => {
  const { p, pid } = await setup(t)
  // ~3.4 MB of CSV in 4 chunks of the reader (EXPORT_CHUNK): while the upload refuses the first,
  // the reader may have produced the next (CI, PostgreSQL catalog, load: all 40,000 of an
  // earlier 2-chunk version), never more: the file is refused at ~20 kB.
  await fill(p, pid, ['big'], 4 * EXPORT_CHUNK)
  const project = await p.catalog.projects.get(pid)
  await p.catalog.files.setLimits({ kind: 'project', companyId: project.company_id, projectId: pid }, { space_bytes: 20_000 })
  const res = await start(p, pid, { format: 'csv', start: '2024-01-01T00:00:00Z', end: '2025-01-01T00:00:00Z', dataPointIDs: ['big'], path: 'big.csv' })
  t.equal(res.status, 202)
  const job = await finished(p, pid, res.body.resource.id)
  t.equal(job.state, 'failed')
  t.match(job.error, /quota|space/i, `the reason: ${job.error}`)
  t.ok(job.rows_done <= 2 * EXPORT_CHUNK, `stopped early: at most two chunks read (${job.rows_done} rows read of ${4 * EXPORT_CHUNK})`)
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}/files`)).body.items, [], 'no partial file')
})

t.test('a job left running by a stopped process ends as failed', async (t) => {
  const { p, pid } = await setup(t)
  const old = Date.now() - 10 * 60_000
  const stale = await p.catalog.exportJobs.create({ project_id: pid, user_id: p.admin.id, format: 'csv', path: 'x.csv', spec: { datapoints: [], start: 0, end: 1 }, rows_estimate: 10 }, old)
  const seen = await p.call(p.admin, 'GET', `/v2/project/${pid}/export/${stale.id}`)
  t.match(seen.body, { state: 'failed', error: /Interrupted: the server running the export stopped/ })
})
