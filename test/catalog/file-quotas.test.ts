// The quota rules of the document spaces (spec 1 "Documents and quotas"; catalog/files.ts and
// its SQLite repository): each limit refuses at one byte or one file past it and not at it, the
// refusal names its limit (413), a replace counts the space without the file it replaces, the
// operator's limits are whole numbers of at least 0 and a partial change keeps the others, and
// what is available never goes below 0. Fast (one in-memory catalog): the mutation group
// `quotas` (scripts/mutation-modules.json) runs it per mutant.
import t from 'tap'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { DEFAULT_QUOTA, assertCommit, assertLimits, likeEscaped, ownerOf, refusal, spaceKey, spaceName, toQuotaRecord, type Space } from '../../catalog/files.ts'

const cs: Space = { kind: 'company', companyId: 7 }
const ps: Space = { kind: 'project', companyId: 7, projectId: 12 }
const L = { file_size_bytes: 10, files: 2, space_bytes: 25 }
const file = (size: number, path = 'a.txt') => ({ path, object_key: `k-${path}`, size_bytes: size, sha256: 'h' })
const catching = (fn: () => void) => { try { fn(); return undefined } catch (err) { return err as Error & { status: number } } }

t.test('the defaults and the names of a space', async (t) => {
  t.same(DEFAULT_QUOTA, { file_size_bytes: 2 * 1024 ** 3, files: 10_000, space_bytes: 20 * 1024 ** 3 }, 'as the README documents them')
  t.equal(spaceKey(cs), 'c7')
  t.equal(spaceKey(ps), 'p12')
  t.equal(spaceName(cs), 'company 7')
  t.equal(spaceName(ps), 'project 12')
  t.equal(likeEscaped('a%b_c\\d'), 'a\\%b\\_c\\\\d', '%, _ and \\ escaped')
  t.same(ownerOf('c7'), { table: 'companies', id: 7 })
  t.same(ownerOf('p12'), { table: 'projects', id: 12 })
  for (const k of ['c0', 'p012', 'x7', 'c', 'c7a', 'ac7', 'other']) t.equal(ownerOf(k), undefined, `${k} is not a space of ours`)
})

t.test('the quota record: available is the limit minus the use, never below 0', async (t) => {
  t.same(toQuotaRecord(L, { files: 1, space_bytes: 20 }), { quota_limits: L, quota_used: { files: 1, space_bytes: 20 }, quota_available: { files: 1, space_bytes: 5 } })
  t.same(toQuotaRecord(L, { files: 3, space_bytes: 30 }).quota_available, { files: 0, space_bytes: 0 }, 'over the limit (lowered by the operator): 0, not negative')
})

t.test('a commit: each limit refuses one past it and admits it, naming the limit', async (t) => {
  const ok = (size: number, old: { size_bytes: number } | undefined, used: { files: number; space_bytes: number }, mode: 'create' | 'replace' = old ? 'replace' : 'create') =>
    catching(() => assertCommit(ps, mode, file(size), old, L, used))
  t.equal(ok(10, undefined, { files: 0, space_bytes: 0 }), undefined, 'a file of exactly file_size_bytes')
  const big = ok(11, undefined, { files: 0, space_bytes: 0 })
  t.equal(big?.status, 413)
  t.equal(big?.message, 'File too large: the file space of project 12 accepts files of at most 10 bytes (quota_limits.file_size_bytes)')
  t.match(ok(11, { size_bytes: 1 }, { files: 1, space_bytes: 1 }), { status: 413, message: /file_size_bytes/ }, 'a replace too')

  t.equal(ok(1, undefined, { files: 1, space_bytes: 0 }), undefined, 'the last free file')
  const full = ok(1, undefined, { files: 2, space_bytes: 0 })
  t.equal(full?.status, 413)
  t.equal(full?.message, 'Quota exceeded: the file space of project 12 holds at most 2 files (quota_limits.files)')
  t.equal(ok(1, { size_bytes: 1 }, { files: 2, space_bytes: 1 }), undefined, 'a replace adds no file')

  t.equal(ok(5, undefined, { files: 0, space_bytes: 20 }), undefined, 'the last free bytes')
  const space = ok(6, undefined, { files: 0, space_bytes: 20 })
  t.equal(space?.status, 413)
  t.equal(space?.message, 'Quota exceeded: the file space of project 12 holds at most 25 bytes (quota_limits.space_bytes); 20 are used by other files and this upload needs at least 6')
  t.equal(ok(10, { size_bytes: 5 }, { files: 2, space_bytes: 20 }), undefined, 'a replace counts the others only: 15 + 10 = 25')
  t.match(ok(10, { size_bytes: 4 }, { files: 2, space_bytes: 20 }), { status: 413, message: /; 16 are used by other files and this upload needs at least 10$/ }, '16 + 10 > 25')

  const exists = ok(1, { size_bytes: 1 }, { files: 1, space_bytes: 1 }, 'create')
  t.equal(exists?.status, 400)
  t.equal(exists?.message, "File 'a.txt' already exists in the file space of project 12")
  const missing = ok(1, undefined, { files: 0, space_bytes: 0 }, 'replace')
  t.equal(missing?.status, 404)
  t.equal(missing?.message, "File 'a.txt' not found in the file space of project 12")
})

t.test('mid-stream: refusal at one byte past a limit, none at it', async (t) => {
  t.equal(refusal(cs, L, 0, 10), undefined)
  t.equal(refusal(cs, L, 15, 10), undefined, 'exactly the space left')
  t.equal(refusal(cs, L, 0, 11)?.message, 'File too large: the file space of company 7 accepts files of at most 10 bytes (quota_limits.file_size_bytes)')
  const r = refusal(cs, L, 16, 10)
  t.equal((r as unknown as { status: number }).status, 413)
  t.equal(r?.message, 'Quota exceeded: the file space of company 7 holds at most 25 bytes (quota_limits.space_bytes); 16 are used by other files and this upload needs at least 10')
})

t.test('operator limits: whole numbers of at least 0', async (t) => {
  for (const v of [0, 1, Number.MAX_SAFE_INTEGER]) t.equal(catching(() => assertLimits({ files: v })), undefined, `${v}`)
  t.equal(catching(() => assertLimits({ files: undefined })), undefined, 'undefined: unchanged')
  for (const v of [-1, 1.5, Number.MAX_SAFE_INTEGER + 1, Number.NaN]) {
    const err = catching(() => assertLimits({ file_size_bytes: 1, space_bytes: v }))
    t.equal(err?.status, 400, `${v}`)
    t.equal(err?.message, `space_bytes must be a whole number of at least 0, got ${v}`)
  }
})

t.test('the SQLite repository: limits, use and the commit decide against the committed use', async (t) => {
  const c = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => c.close())
  const { company } = await c.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'acme-pass-1' })
  const project = (await c.projects.create(company.id, { name: 'one' }, null)).project
  const p: Space = { kind: 'project', companyId: company.id, projectId: project.id }
  const co: Space = { kind: 'company', companyId: company.id }
  t.same(await c.files.limits(p), DEFAULT_QUOTA, 'the defaults until the operator sets limits')
  t.same(await c.files.quota(p), toQuotaRecord(DEFAULT_QUOTA, { files: 0, space_bytes: 0 }))
  t.same(await c.files.setLimits(p, { files: 2 }), { ...DEFAULT_QUOTA, files: 2 }, 'a partial change keeps the others')
  t.same(await c.files.setLimits(p, { space_bytes: 25, files: undefined }), { ...DEFAULT_QUOTA, files: 2, space_bytes: 25 }, 'and the earlier change')
  t.same(await c.files.limits(p), { ...DEFAULT_QUOTA, files: 2, space_bytes: 25 })
  t.same(await c.files.limits(co), DEFAULT_QUOTA, 'the company space has its own limits')
  await t.rejects(c.files.setLimits(p, { files: -1 }), { status: 400, message: 'files must be a whole number of at least 0, got -1' })
  t.same(await c.files.limits(p), { ...DEFAULT_QUOTA, files: 2, space_bytes: 25 }, 'a refused change stores nothing')

  t.same(await c.files.commit(p, 'create', file(20, 'a'), 1000), { replacedKey: undefined })
  t.same(await c.files.usage(p), { files: 1, space_bytes: 20 })
  await t.rejects(c.files.commit(p, 'create', file(6, 'b'), 1001), { status: 413, message: /; 20 are used by other files and this upload needs at least 6$/ })
  t.same(await c.files.commit(p, 'create', file(5, 'b'), 1002), { replacedKey: undefined }, 'the last free bytes')
  t.same(await c.files.commit(p, 'replace', { ...file(10, 'a'), object_key: 'k2' }, 1003), { replacedKey: 'k-a' }, 'a replace counts the space without the old file')
  t.same(await c.files.get(p, 'a'), { path: 'a', object_key: 'k2', size_bytes: 10, sha256: 'h', last_modified: 1003 })
  t.same(await c.files.quota(p), { quota_limits: { ...DEFAULT_QUOTA, files: 2, space_bytes: 25 }, quota_used: { files: 2, space_bytes: 15 }, quota_available: { files: 0, space_bytes: 10 } })
  await t.rejects(c.files.commit(p, 'create', file(0, 'c'), 1004), { status: 413, message: /quota_limits\.files/ })
  t.same(await c.files.usage(p), { files: 2, space_bytes: 15 }, 'a refused commit stores nothing')
  t.same(await c.files.usage(co), { files: 0, space_bytes: 0 }, 'spaces are separate')
  t.same(await c.files.commit(co, 'create', file(20, 'a'), 1005), { replacedKey: undefined }, 'the same path in another space')
  t.same(await c.files.delete(p, 'a'), ['k2'])
  t.same(await c.files.usage(p), { files: 1, space_bytes: 5 }, 'a deleted file frees its bytes and its place')
  t.same(await c.files.commit(p, 'create', file(20, 'c'), 1006), { replacedKey: undefined })
  t.equal(c.files.key(p), `p${project.id}`)
  t.equal(c.files.refusal(p, L, 16, 10)?.message, refusal(p, L, 16, 10)?.message)
  t.equal(c.files.filesFull(p, L).message, `Quota exceeded: the file space of project ${project.id} holds at most 2 files (quota_limits.files)`)

  // Listing, folders and orphans (the rest of the repository).
  for (const path of ['d/x_1', 'd/y%', 'D/z', 'd0', 'd/sub/w']) await c.files.commit(co, 'create', file(1, path), 2000)
  t.same(await c.files.list(co, { page: 1, perPage: 2 }), { items: [{ ...file(1, 'D/z'), last_modified: 2000 }, { ...file(20, 'a'), last_modified: 1005 }], total: 6 })
  t.same((await c.files.list(co, { page: 2, perPage: 2 })).items.map((f) => f.path), ['d/sub/w', 'd/x_1'])
  t.same((await c.files.list(co, { page: 1, perPage: 9, search: 'Y%' })).items.map((f) => f.path), ['d/y%'], 'any case, % literally')
  t.same((await c.files.list(co, { page: 1, perPage: 9, search: 'x_' })).items.map((f) => f.path), ['d/x_1'], '_ literally')
  t.same((await c.files.delete(co, 'd')).sort(), ['k-d/sub/w', 'k-d/x_1', 'k-d/y%'], 'the folder, its exact case, not d0')
  await t.rejects(c.files.delete(co, 'd'), { status: 404, message: `File or folder 'd' not found in the file space of company ${company.id}` })
  t.same((await c.files.list(co, { page: 1, perPage: 9 })).items.map((f) => f.path), ['D/z', 'a', 'd0'])
  const gone = (await c.projects.create(company.id, { name: 'gone' }, null)).project
  const g: Space = { kind: 'project', companyId: company.id, projectId: gone.id }
  await c.files.setLimits(g, { files: 1 })
  await c.files.commit(g, 'create', file(3, 'x'), 3000)
  await c.projects.delete(gone.id)
  t.same(await c.files.usage(g), { files: 0, space_bytes: 0 }, 'a deleted project\'s files go with it')
  t.same(await c.files.limits(g), DEFAULT_QUOTA, 'and its limits')
  t.same((await c.files.list(co, { page: 1, perPage: 9 })).items.map((f) => f.path), ['D/z', 'a', 'd0'], 'not the company\'s')
  t.same(await c.files.limits(co), DEFAULT_QUOTA)
  t.same(await c.files.orphans([`c${company.id}`, `p${project.id}`, `p${gone.id}`, 'other', 'c999999']), [`p${gone.id}`, 'c999999'])
})
