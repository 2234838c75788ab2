// Bounds of running uploads (issue 29; engine/blobs/upload-gate.ts): the bytes that parallel
// uploads of one company hold never exceed what its quota leaves free, a declared size that
// cannot fit is refused before the first byte is read, uploads per company and per node are
// capped (and one company at its cap does not block another), the node's temporary space is
// bounded, a trickling body is cut off (408), a full disk is a 507, and every reservation is
// released however its upload ends.
import { randomBytes } from 'node:crypto'
import { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import type { Space } from '../../../catalog/files.ts'
import { Documents, type DocumentsOptions } from '../../../engine/blobs/documents.ts'
import type { BlobStore } from '../../../engine/blobs/port.ts'
import { chunked } from './contract.ts'
import { VirtualClock } from '../../../core/clock/index.ts'

const MiB = 1024 * 1024

/**
 * A storage that reads each body to its end and then holds it until every upload of the round
 * has either reached its end or been refused: so all of them overlap, and `maxHeld` is the most
 * bytes the storage held at once (what a disk would have held in temporary files).
 */
function heldStorage(n: number) {
  let held = 0
  let maxHeld = 0
  let settled = 0
  let release!: () => void
  const all = new Promise<void>((r) => { release = r })
  const settle = () => { if (++settled === n) release() }
  const stored = new Set<string>()
  const put = async (key: string, body: Readable) => {
    let mine = 0
    try {
      for await (const c of body) { mine += (c as Buffer).length; held += (c as Buffer).length; maxHeld = Math.max(maxHeld, held) }
    } catch (err) {
      held -= mine
      throw err // counted by the caller's rejection
    }
    settle()
    await all
    held -= mine
    stored.add(key)
  }
  const store: BlobStore = {
    kind: 'held', put, link: async () => ({ url: '', validUntil: new Date() }), size: async () => undefined,
    delete: async (k) => { stored.delete(k) }, deletePrefix: async () => {}, listPrefixes: async () => [], close: async () => {},
  }
  return { store, settle, maxHeld: () => maxHeld, stored }
}

async function setup(t: Test) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  t.teardown(() => catalog.close())
  const space = async (name: string): Promise<Space> => {
    const { company } = await catalog.createCompanyWithAdmin(name, { email: `a@${name}.test`, password: `${name}-pass-1` })
    return { kind: 'company', companyId: company.id }
  }
  return { catalog, a: await space('a'), b: await space('b') }
}

/** Runs uploads; an upload refused anywhere counts as settled for the storage's round. */
function run(docs: Documents, settle: () => void, jobs: { space: Space; name: string; body: Readable; declared?: number }[]) {
  return Promise.allSettled(jobs.map((j) => docs.upload(j.space, 'create', j.name, j.body, j.declared).catch((err) => { settle(); throw err })))
}
const statusOf = (r: PromiseSettledResult<unknown>) => (r.status === 'fulfilled' ? 201 : (r.reason as { status?: number }).status)

t.test('company B floods parallel uploads: they never hold more than its free quota, and A is not blocked', async (t) => {
  const { catalog, a, b } = await setup(t)
  await catalog.files.setLimits(b, { space_bytes: 10 * MiB })
  const size = 4 * MiB
  const h = heldStorage(7)
  const docs = new Documents(catalog.files, h.store, { uploads: { perCompany: 4, perNode: 8 } })
  const jobs = [...Array(6).keys()].map((i) => ({ space: b, name: `b${i}.bin`, body: chunked(randomBytes(size), 256 * 1024) }))
  const results = await run(docs, h.settle, [...jobs, { space: a, name: 'a.bin', body: chunked(randomBytes(size)) }])
  const bStatus = results.slice(0, 6).map(statusOf)
  t.equal(bStatus.filter((s) => s === 429).length, 2, 'two over the cap of 4 uploads per company: 429 at once')
  t.ok(bStatus.filter((s) => s === 201).length <= 2, 'at most two 4 MiB files fit in 10 MiB')
  t.same(bStatus.filter((s) => s !== 201 && s !== 429 && s !== 413), [], 'the others: 413')
  t.equal(statusOf(results[6]), 201, 'company A\'s upload went through meanwhile')
  t.ok(h.maxHeld() <= 10 * MiB + size, `the storage held at most B's free quota plus A's file at once (held ${h.maxHeld()})`)
  t.ok((await catalog.files.usage(b)).space_bytes <= 10 * MiB)
  t.same(docs.gate.usage(), { running: 0, heldBytes: 0 }, 'every reservation released')
})

t.test('a declared size that cannot fit beside running uploads is refused before its first byte is read', async (t) => {
  const { catalog, b } = await setup(t)
  await catalog.files.setLimits(b, { space_bytes: 10 * MiB })
  const size = 4 * MiB
  const h = heldStorage(4)
  const docs = new Documents(catalog.files, h.store)
  const bodies = [...Array(4).keys()].map(() => chunked(randomBytes(size), 256 * 1024))
  const results = await run(docs, h.settle, bodies.map((body, i) => ({ space: b, name: `${i}.bin`, body, declared: size + 300 })))
  t.same(results.map(statusOf), [201, 201, 413, 413], 'the first two reserved their declared size, the others were refused at once')
  t.match((results[2] as PromiseRejectedResult).reason.message, '(quota_limits.space_bytes)')
  t.same(bodies.map((body) => body.readableFlowing !== null), [true, true, false, false], 'the refused bodies were never read')
  t.equal(h.maxHeld(), 2 * size)
  const huge = await docs.upload(b, 'create', 'huge.bin', chunked(Buffer.alloc(10)), 10 * 1024 ** 3).catch((e) => e)
  t.match(huge, { status: 413, message: /file space of company \d+ accepts files of at most/ }, '10 GB declared: refused at once by the file-size limit')
  t.same(docs.gate.usage(), { running: 0, heldBytes: 0 })
})

t.test('uploads per node: 503 with Retry-After beyond the cap; the node\'s temporary space is bounded', async (t) => {
  const { catalog, a, b } = await setup(t)
  const h = heldStorage(3)
  const docs = new Documents(catalog.files, h.store, { uploads: { perNode: 2, perCompany: 2 } })
  const results = await run(docs, h.settle, [a, b, a].map((space, i) => ({ space, name: `${i}.bin`, body: chunked(randomBytes(1000)) })))
  t.same(results.map(statusOf), [201, 201, 503])
  t.match((results[2] as PromiseRejectedResult).reason, { retryAfterSeconds: 5, message: /at most 2 at once \(LINTEL_UPLOADS_PER_NODE\)/ })

  const small = new Documents(catalog.files, heldStorage(1).store, { uploads: { tempBytes: MiB } })
  const body = chunked(randomBytes(10))
  const full = await small.upload(a, 'create', 'big.bin', body, 2 * MiB).catch((e) => e)
  t.match(full, { status: 503, retryAfterSeconds: 5, message: /at most 1048576 \(LINTEL_UPLOAD_TEMP_MB\)/ })
  t.equal(body.readableFlowing, null, 'refused before reading')
  t.same(small.gate.usage(), { running: 0, heldBytes: 0 })
})

t.test('a trickling body is cut off with 408; a full disk is 507; reservations are released', async (t) => {
  const { catalog, a } = await setup(t)
  const real = heldStorage(1)
  // The rate window runs on a virtual clock: with the system clock's timers (unref'd, as a
  // runtime's must be) nothing would keep this test's process alive while the body trickles.
  const clock = new VirtualClock()
  const docs = new Documents(catalog.files, real.store, { clock, uploads: { minBytesPerSecond: 1024 * 1024, rateWindowMs: 100 } })
  const trickle = new Readable({ read() {} })
  trickle.push(Buffer.alloc(100)) // and then nothing more, never an end
  const upload = docs.upload(a, 'create', 'slow.bin', trickle, 10 * 1024 ** 3 / 1024).catch((e) => e)
  await clock.settle(100_000) // one rate window
  const slow = await upload
  t.match(slow, { status: 408, message: /Upload too slow: \d+ bytes arrived in the last 0.1 s, at least 1048576 bytes per second/ })
  t.same(docs.gate.usage(), { running: 0, heldBytes: 0 })
  t.same(await catalog.files.usage(a), { files: 0, space_bytes: 0 }, 'nothing stored')

  const fullDisk: BlobStore = {
    ...real.store,
    put: async (_k, body) => {
      body.resume() // a disk that takes nothing
      throw Object.assign(new Error('ENOSPC: no space left on device, write'), { code: 'ENOSPC' })
    },
  }
  const onFull = new Documents(catalog.files, fullDisk)
  const res = await onFull.upload(a, 'create', 'x.bin', chunked(randomBytes(1000))).catch((e) => e)
  t.match(res, { status: 507, message: /The document storage is full: the upload was not stored/ })
  t.same(onFull.gate.usage(), { running: 0, heldBytes: 0 })
  t.same(await catalog.files.usage(a), { files: 0, space_bytes: 0 })
})

t.test('limits are the documented defaults unless set', async (t) => {
  const { catalog } = await setup(t)
  const o: DocumentsOptions = {}
  t.same(new Documents(catalog.files, heldStorage(1).store, o).gate.limits, { perCompany: 4, perNode: 8, tempBytes: 8 * 1024 ** 3, minBytesPerSecond: 16 * 1024, rateWindowMs: 30_000 })
})
