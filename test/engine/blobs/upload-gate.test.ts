// The upload gate's bookkeeping (engine/blobs/upload-gate.ts, issue 29) on its own, without a
// storage: admission per company and per node (at the cap, not one before), reservations that
// only grow and count against the node's temporary space, what each upload sees of the other
// uploads and commits of its space, and every count given back however often release is
// called. Fast: the mutation group `quotas` runs it per mutant (test/engine/blobs/
// upload-limits.test.ts covers the same through Documents and a storage).
import t from 'tap'
import type { Space } from '../../../catalog/files.ts'
import { DEFAULT_UPLOAD_LIMITS, UploadGate } from '../../../engine/blobs/upload-gate.ts'

const limits = { ...DEFAULT_UPLOAD_LIMITS, perCompany: 2, perNode: 3, tempBytes: 100 }
const a: Space = { kind: 'company', companyId: 1 }
const a2: Space = { kind: 'project', companyId: 1, projectId: 5 }
const b: Space = { kind: 'company', companyId: 2 }
const c: Space = { kind: 'company', companyId: 3 }
const refused = (fn: () => unknown) => { try { fn(); return undefined } catch (err) { return err as Error & { status: number; retryAfterSeconds?: number } } }

t.test('the defaults', async (t) => {
  t.same(DEFAULT_UPLOAD_LIMITS, { perCompany: 4, perNode: 8, tempBytes: 8 * 1024 ** 3, minBytesPerSecond: 16 * 1024, rateWindowMs: 30_000 })
  t.same(new UploadGate().limits, DEFAULT_UPLOAD_LIMITS)
})

t.test('admission: per company (429) and per node (503), at the cap and not before', async (t) => {
  const g = new UploadGate(limits)
  const t1 = g.admit(a, 'c1')
  const t2 = g.admit(a2, 'p5')
  const full = refused(() => g.admit(a, 'c1'))
  t.equal(full?.status, 429)
  t.equal(full?.retryAfterSeconds, 5)
  t.equal(full?.message, 'Too many uploads: company 1 already has 2 uploads running, at most 2 at once (LINTEL_UPLOADS_PER_COMPANY); retry when one has finished')
  const t3 = g.admit(b, 'c2')
  t.same(g.usage(), { running: 3, heldBytes: 0 })
  const node = refused(() => g.admit(c, 'c3'))
  t.equal(node?.status, 503)
  t.equal(node?.retryAfterSeconds, 5)
  t.equal(node?.message, 'Too many uploads on this server: 3 running, at most 3 at once (LINTEL_UPLOADS_PER_NODE); retry later')
  t.same(g.usage(), { running: 3, heldBytes: 0 }, 'a refused upload holds nothing')
  t1.release()
  t1.release() // twice: counted once
  t.same(g.usage(), { running: 2, heldBytes: 0 })
  const t4 = g.admit(a, 'c1')
  t.equal(refused(() => g.admit(a, 'c1'))?.status, 429, 'company 1 is at its cap again')
  t2.release()
  t4.release()
  t3.release()
  t.same(g.usage(), { running: 0, heldBytes: 0 })
  const again = [g.admit(a, 'c1'), g.admit(a, 'c1')]
  t.equal(refused(() => g.admit(a, 'c1'))?.status, 429, 'the company count starts from 0 again, not below')
  for (const x of again) x.release()
})

t.test('reservations: grow only, count against the temporary space, and are given back', async (t) => {
  const g = new UploadGate(limits)
  const x = g.admit(a, 'c1')
  const y = g.admit(a, 'c1')
  const z = g.admit(b, 'c2')
  x.reserve(40)
  t.equal(x.reserved, 40)
  x.reserve(30)
  t.equal(x.reserved, 40, 'never shrinks')
  x.reserve(40)
  t.same(g.usage(), { running: 3, heldBytes: 40 })
  y.reserve(25)
  t.equal(x.othersReserved(), 25, 'the other upload of the space')
  t.equal(y.othersReserved(), 40)
  z.reserve(35)
  t.equal(z.othersReserved(), 0, 'another space is not counted')
  t.same(g.usage(), { running: 3, heldBytes: 100 }, 'exactly the temporary space')
  const full = refused(() => y.reserve(26))
  t.equal(full?.status, 503)
  t.equal(full?.retryAfterSeconds, 5)
  t.equal(full?.message, 'Upload space of this server is full: running uploads hold 100 bytes, at most 100 (LINTEL_UPLOAD_TEMP_MB); nothing was stored, retry later')
  t.equal(y.reserved, 25, 'a refused growth reserves nothing')
  t.equal(x.othersReserved(), 25)
  x.release()
  t.equal(x.reserved, 0)
  t.same(g.usage(), { running: 2, heldBytes: 60 }, 'its bytes given back')
  t.equal(y.othersReserved(), 0)
  y.reserve(65)
  t.same(g.usage(), { running: 2, heldBytes: 100 })
  y.release()
  z.release()
  t.same(g.usage(), { running: 0, heldBytes: 0 })
})

t.test('commits seen by an upload: only those of its space since it began', async (t) => {
  const g = new UploadGate(limits)
  g.committed('c1', 50) // nothing running there: not kept
  const x = g.admit(a, 'c1')
  t.equal(x.committedAtStart, 0)
  t.equal(x.committedSince(), 0)
  g.committed('c1', 30)
  g.committed('c2', 99)
  t.equal(x.committedSince(), 30)
  const y = g.admit(a, 'c1')
  t.equal(y.committedAtStart, 30)
  g.committed('c1', -10) // a replace that shrank a file
  t.equal(x.committedSince(), 20)
  t.equal(y.committedSince(), -10)
  t.equal(x.company, 1)
  t.equal(x.space, 'c1')
  x.release()
  t.equal(y.committedSince(), -10, 'kept while an upload runs in the space')
  y.release()
  const w = g.admit(a, 'c1')
  t.equal(w.committedAtStart, 0, 'forgotten once none runs there')
  w.reserve(10)
  t.equal(w.othersReserved(), 0)
  w.release()
})
