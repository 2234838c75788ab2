// Documents (spec 1 "Documents", issue 10): the twelve endpoints on the embedded storage,
// quotas (exact under racing uploads), replace, delete, links (expiry 403 XML), SHA-256, and
// removal of the files with their project or company.
import { createHash, randomBytes } from 'node:crypto'
import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import t, { type Test } from 'tap'
import { basic, addProject, platform, type Login, type Platform } from '../helpers/platform.ts'
import { fileForm } from '../helpers/multipart.ts'
import { until } from '../helpers/live-platform.ts'
import { openFsBlobStore } from '../../engine/blobs/fs-store.ts'

/** A storage of the test's own, in a directory the test can count objects in. */
async function ownBlobs(t: Test) {
  const dir = mkdtempSync(join(tmpdir(), 'lintel-docs-'))
  const blobs = await openFsBlobStore({ dir, host: '127.0.0.1', port: 0 })
  t.teardown(async () => { await blobs.close(); rmSync(dir, { recursive: true, force: true }) })
  return { blobs, objects: (space: string) => readdirSync(join(dir, 'objects', space)) }
}

const sha = (b: Buffer) => createHash('sha256').update(b).digest('hex')

async function send(p: Platform, who: Login, method: 'POST' | 'PUT', url: string, name: string, data: Buffer) {
  const { payload, headers } = fileForm(name, data)
  const res = await p.app.inject({ method, url, payload, headers: { ...headers, authorization: basic(who) } })
  return { status: res.statusCode, body: res.json() }
}

for (const space of ['company', 'project'] as const) {
  t.test(`${space} space: upload, list, link, replace, delete`, async (t) => {
    const p = await platform(t)
    const base = space === 'company' ? '/v2/company' : `/v2/project/${(await addProject(p, p.admin, 'Docs')).id}`
    const quota0 = await p.call(p.admin, 'GET', `${base}/quota`)
    t.equal(quota0.status, 200)
    t.same(quota0.body.files.quota_used, { files: 0, space_bytes: 0 })
    t.same(quota0.body.files.quota_available, { files: quota0.body.files.quota_limits.files, space_bytes: quota0.body.files.quota_limits.space_bytes })

    const plan = randomBytes(300_000)
    const up = await send(p, p.admin, 'POST', `${base}/file?folder=plans/floor%201`, 'plan.pdf', plan)
    t.same(up, { status: 201, body: { success: true, operation: 'create', resource: { path: 'plans/floor 1/plan.pdf', size_bytes: plan.length, sha256: sha(plan) } } })
    const again = await send(p, p.admin, 'POST', `${base}/file?folder=/plans/floor 1/`, 'plan.pdf', Buffer.from('x'))
    t.equal(again.status, 400)
    t.match(again.body.error, "'plans/floor 1/plan.pdf' already exists")
    t.equal((await send(p, p.admin, 'POST', `${base}/file`, 'readme.txt', Buffer.from('hello'))).status, 201, 'no folder: the top of the space')

    const list = await p.call(p.admin, 'GET', `${base}/files`)
    t.equal(list.status, 200)
    t.same(list.body.meta, { current_page: 1, items_per_page: 50, total_items: 2, total_pages: 1 })
    t.same(list.body.items.map((f: { path: string }) => f.path), ['plans/floor 1/plan.pdf', 'readme.txt'])
    t.match(list.body.items[0], { size_bytes: plan.length, sha256: sha(plan), last_modified: /^\d{4}-\d\d-\d\dT.*Z$/ })
    const found = await p.call(p.admin, 'GET', `${base}/files?search=FLOOR&per_page=1&page=1`)
    t.same(found.body.items.map((f: { path: string }) => f.path), ['plans/floor 1/plan.pdf'], 'search in paths, any case')
    const page2 = await p.call(p.admin, 'GET', `${base}/files?per_page=1&page=2`)
    t.same(page2.body.meta, { current_page: 2, items_per_page: 1, total_items: 2, total_pages: 2 })
    t.same(page2.body.items.map((f: { path: string }) => f.path), ['readme.txt'])
    t.same((await p.call(p.admin, 'GET', `${base}/files?search=%25`)).body.items, [], 'a % in search is a literal')

    const link = await p.call(p.admin, 'GET', `${base}/file?path=plans/floor%201/plan.pdf&expiry=30m`)
    t.equal(link.status, 200)
    t.equal(link.body.path, 'plans/floor 1/plan.pdf')
    const validFor = Date.parse(link.body.valid_until) - Date.now()
    t.ok(validFor > 29 * 60_000 && validFor <= 30 * 60_000, 'valid_until is 30 minutes ahead')
    t.notMatch(link.body.download_link, /\/v2\//, 'served by the storage, not the API')
    const got = Buffer.from(await (await fetch(link.body.download_link)).arrayBuffer())
    t.equal(sha(got), sha(plan), 'byte-identical download')
    const dflt = await p.call(p.admin, 'GET', `${base}/file?path=readme.txt`)
    t.ok(Math.abs(Date.parse(dflt.body.valid_until) - Date.now() - 3600_000) < 5000, 'default expiry 60m')
    t.equal((await p.call(p.admin, 'GET', `${base}/file?path=readme.txt&expiry=8d`)).status, 400, 'more than the maximum of 7d')
    t.equal((await p.call(p.admin, 'GET', `${base}/file?path=readme.txt&expiry=soon`)).status, 400)
    const missing = await p.call(p.admin, 'GET', `${base}/file?path=nope.txt`)
    t.equal(missing.status, 404)

    const v2 = randomBytes(1000)
    const replaced = await send(p, p.admin, 'PUT', `${base}/file?folder=plans/floor 1`, 'plan.pdf', v2)
    t.same(replaced, { status: 201, body: { success: true, operation: 'update', resource: { path: 'plans/floor 1/plan.pdf', size_bytes: 1000, sha256: sha(v2) } } })
    const byPath = await send(p, p.admin, 'PUT', `${base}/file?path=plans/floor 1/plan.pdf`, 'plan.pdf', v2)
    t.equal(byPath.status, 201, 'the example\'s path naming the file itself')
    const old = await fetch(link.body.download_link)
    t.equal(old.status, 404, 'the replaced object is gone from the storage')
    await old.arrayBuffer()
    const fresh = await p.call(p.admin, 'GET', `${base}/file?path=plans/floor 1/plan.pdf`)
    t.same(Buffer.from(await (await fetch(fresh.body.download_link)).arrayBuffer()), v2)
    const notThere = await send(p, p.admin, 'PUT', `${base}/file?folder=plans`, 'plan.pdf', v2)
    t.equal(notThere.status, 404)
    t.match(notThere.body.error, "'plans/plan.pdf' not found")
    t.same((await p.call(p.admin, 'GET', `${base}/quota`)).body.files.quota_used, { files: 2, space_bytes: 1005 }, 'replacing counts the new size only')

    const del = await p.call(p.admin, 'DELETE', `${base}/file?path=readme.txt`)
    t.same(del, { status: 200, body: { success: true, operation: 'delete', resource: { path: 'readme.txt' } } })
    const delAgain = await p.call(p.admin, 'DELETE', `${base}/file?path=readme.txt`)
    t.equal(delAgain.status, 404)
    t.match(delAgain.body.error, "'readme.txt' not found")
    t.equal((await p.call(p.admin, 'DELETE', `${base}/file?path=plans`)).status, 200, 'a folder with its files')
    t.same((await p.call(p.admin, 'GET', `${base}/quota`)).body.files.quota_used, { files: 0, space_bytes: 0 })
    t.equal((await p.call(p.admin, 'GET', `${base}/files`)).body.items.length, 0)
  })
}

t.test('bad paths and forms are refused', async (t) => {
  const p = await platform(t)
  t.equal((await send(p, p.admin, 'POST', '/v2/company/file?folder=a/../../b', 'x.txt', Buffer.from('x'))).status, 400)
  t.equal((await send(p, p.admin, 'POST', '/v2/company/file', '..', Buffer.from('x'))).status, 400)
  t.equal((await p.call(p.admin, 'GET', '/v2/company/file?path=../x')).status, 400)
  const { payload, headers } = fileForm('x.txt', Buffer.from('x'), 'other')
  const wrongField = await p.app.inject({ method: 'POST', url: '/v2/company/file', payload, headers: { ...headers, authorization: basic(p.admin) } })
  t.equal(wrongField.statusCode, 400)
  t.match(wrongField.json().error, 'form field file')
})

t.test('quota limits: file size, number of files, total space; each refusal names its limit', async (t) => {
  const { blobs, objects } = await ownBlobs(t)
  const p = await platform(t, { blobs })
  const space = { kind: 'company', companyId: p.admin.companyId } as const
  await p.catalog.files.setLimits(space, { file_size_bytes: 1000, files: 2, space_bytes: 1500 })
  const big = await send(p, p.admin, 'POST', '/v2/company/file', 'big.bin', randomBytes(1001))
  t.equal(big.status, 413)
  t.match(big.body.error, 'at most 1000 bytes (quota_limits.file_size_bytes)')
  t.equal((await send(p, p.admin, 'POST', '/v2/company/file', 'a.bin', randomBytes(1000))).status, 201, 'exactly the limit fits')
  const over = await send(p, p.admin, 'POST', '/v2/company/file', 'b.bin', randomBytes(501))
  t.equal(over.status, 413)
  t.match(over.body.error, 'at most 1500 bytes (quota_limits.space_bytes)')
  t.equal((await send(p, p.admin, 'POST', '/v2/company/file', 'b.bin', randomBytes(500))).status, 201, 'the last free byte fits')
  const third = await send(p, p.admin, 'POST', '/v2/company/file', 'c.bin', Buffer.alloc(0))
  t.equal(third.status, 413)
  t.match(third.body.error, 'at most 2 files (quota_limits.files)')
  t.same((await p.call(p.admin, 'GET', '/v2/company/quota?service=files')).body.files, {
    quota_limits: { file_size_bytes: 1000, files: 2, space_bytes: 1500 },
    quota_used: { files: 2, space_bytes: 1500 }, quota_available: { files: 0, space_bytes: 0 },
  })
  t.equal((await send(p, p.admin, 'PUT', '/v2/company/file?folder=', 'b.bin', randomBytes(600))).status, 413, 'a replace may not grow past the space')
  t.equal((await send(p, p.admin, 'PUT', '/v2/company/file?folder=', 'b.bin', randomBytes(400))).status, 201, 'but may shrink')
  t.equal(objects(`c${p.admin.companyId}`).length, 2, 'refused uploads left no object in the storage')
})

t.test('two uploads racing for the last free bytes: one wins, the other gets 413', async (t) => {
  const { blobs, objects } = await ownBlobs(t)
  const p = await platform(t, { blobs })
  const space = { kind: 'company', companyId: p.admin.companyId } as const
  const size = 3 * 1024 * 1024
  for (let round = 0; round < 4; round++) {
    await p.catalog.files.setLimits(space, { space_bytes: (round + 1) * size + size / 2 })
    const results = await Promise.all(['a', 'b'].map((n) => send(p, p.admin, 'POST', '/v2/company/file', `${round}-${n}.bin`, randomBytes(size))))
    const statuses = results.map((r) => r.status).sort()
    t.same(statuses, [201, 413], `round ${round}: one wins`)
    t.match(results.find((r) => r.status === 413)!.body.error, '(quota_limits.space_bytes)')
  }
  const q = (await p.call(p.admin, 'GET', '/v2/company/quota')).body.files
  t.same(q.quota_used, { files: 4, space_bytes: 4 * size })
  t.equal(objects(`c${p.admin.companyId}`).length, 4, 'the losers left no object')

  const same = await Promise.all([0, 1].map(() => send(p, p.admin, 'POST', '/v2/company/file?folder=x', 'same.txt', Buffer.from('x'))))
  t.same(same.map((r) => r.status).sort(), [201, 400], 'the same path: one wins, the other is told it exists')
})

t.test('an expired link: the storage answers 403 with the S3 XML body', async (t) => {
  let clock = Date.now()
  const p = await platform(t, { now: () => clock })
  await send(p, p.admin, 'POST', '/v2/company/file', 'a.txt', Buffer.from('abc'))
  const link = (await p.call(p.admin, 'GET', '/v2/company/file?path=a.txt&expiry=1m')).body
  t.equal((await fetch(link.download_link)).status, 200)
  clock -= 3600_000
  const old = (await p.call(p.admin, 'GET', '/v2/company/file?path=a.txt&expiry=1m')).body
  t.ok(Date.parse(old.valid_until) < Date.now())
  const res = await fetch(old.download_link)
  t.equal(res.status, 403)
  t.equal(res.headers.get('content-type'), 'application/xml')
  const xml = await res.text()
  const key = /<Key>([^<]+)<\/Key>/.exec(xml)?.[1]
  t.match(key, new RegExp(`^c${p.admin.companyId}/[0-9a-f-]{36}$`))
  for (const field of ['Code', 'Message', 'Key', 'BucketName', 'Resource', 'RequestId', 'HostId']) t.match(xml, new RegExp(`<${field}>[^<]+</${field}>`), field)
  t.match(xml, '<Code>AccessDenied</Code><Message>Request has expired</Message>')
})

t.test('deleting a project or a company removes its files and their quota use', async (t) => {
  const { blobs } = await ownBlobs(t)
  const p = await platform(t, { blobs })
  const keep = await addProject(p, p.admin, 'Keep')
  const gone = await addProject(p, p.admin, 'Gone')
  for (const id of [keep.id, gone.id]) t.equal((await send(p, p.admin, 'POST', `/v2/project/${id}/file`, 'a.bin', randomBytes(1000))).status, 201)
  t.same((await blobs.listPrefixes()).sort(), [`p${keep.id}`, `p${gone.id}`].sort())
  t.equal((await p.call(p.admin, 'DELETE', `/v2/project/${gone.id}`)).status, 200)
  t.ok(await until(async () => !(await blobs.listPrefixes()).includes(`p${gone.id}`)), 'the objects of the deleted project are removed')
  t.same(await blobs.listPrefixes(), [`p${keep.id}`])
  t.same(await p.catalog.files.usage({ kind: 'project', companyId: p.admin.companyId, projectId: gone.id }), { files: 0, space_bytes: 0 })
  t.same(await p.catalog.files.usage({ kind: 'project', companyId: p.admin.companyId, projectId: keep.id }), { files: 1, space_bytes: 1000 })

  // Companies are deleted by the operator's CLI, which has no storage: the sweep (at start and
  // periodically) removes the spaces whose company or project no longer exists.
  const other = await p.catalog.createCompanyWithAdmin('Other', { email: 'admin@other.test', password: 'other-pass-1' })
  t.equal((await send(p, { email: 'admin@other.test', password: 'other-pass-1' }, 'POST', '/v2/company/file', 'x.bin', randomBytes(10))).status, 201)
  await p.catalog.companies.delete(other.company.id)
  t.same(await p.catalog.files.usage({ kind: 'company', companyId: other.company.id }), { files: 0, space_bytes: 0 })
  t.same(await p.documents.sweep(), [`c${other.company.id}`])
  t.same(await blobs.listPrefixes(), [`p${keep.id}`], 'other spaces are untouched')
})
