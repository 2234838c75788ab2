// The upload service's exactness does not rest on the meter's early stop: two uploads that
// both stream to the end before either commits (held at a barrier) still yield one file, and
// the loser's object is removed. Also: a client that goes away mid-upload leaves nothing.
import { randomBytes } from 'node:crypto'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import type { Readable } from 'node:stream'
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { Documents } from '../../../engine/blobs/documents.ts'
import { openFsBlobStore } from '../../../engine/blobs/fs-store.ts'
import type { BlobStore } from '../../../engine/blobs/port.ts'
import { chunked } from './contract.ts'
import { nowMs, VirtualClock } from '../../../core/clock/index.ts'

async function setup(t: Test) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'acme-pass-1' })
  const dir = t.testdir()
  const inner = await openFsBlobStore({ dir, host: '127.0.0.1', port: 0 })
  t.teardown(async () => { await inner.close(); catalog.close() })
  return { catalog, inner, objects: (space: string) => readdirSync(join(dir, 'objects', space)), space: { kind: 'company', companyId: company.id } as const }
}

t.test('both uploads fully stored before either commits: the commit lets one in', async (t) => {
  const { catalog, inner, space, objects } = await setup(t)
  let arrived = 0
  let release!: () => void
  const barrier = new Promise<void>((r) => { release = r })
  const held: BlobStore = {
    ...inner,
    put: async (key: string, body: Readable) => {
      await inner.put(key, body)
      if (++arrived === 2) release()
      await barrier
    },
  }
  // Two nodes (two services): neither sees the other's reservation, so both stream to the end.
  const nodes = [new Documents(catalog.files, held), new Documents(catalog.files, held)]
  await catalog.files.setLimits(space, { space_bytes: 150_000 })
  const results = await Promise.allSettled(['a', 'b'].map((n, i) => nodes[i].upload(space, 'create', `${n}.bin`, chunked(randomBytes(100_000)))))
  t.same(results.map((r) => r.status).sort(), ['fulfilled', 'rejected'])
  const refused = results.find((r) => r.status === 'rejected') as PromiseRejectedResult
  t.match(refused.reason, { status: 413, message: /holds at most 150000 bytes \(quota_limits.space_bytes\)/ })
  t.same(await catalog.files.usage(space), { files: 1, space_bytes: 100_000 })
  t.equal((await catalog.files.list(space, { page: 1, perPage: 10 })).items.length, 1)
  const kept = (await catalog.files.list(space, { page: 1, perPage: 10 })).items[0].object_key
  t.equal(await inner.size(kept), 100_000)
  t.same(objects(`c${space.companyId}`), [kept.split('/')[1]], 'the refused upload\'s object is removed')
})

t.test('a client gone mid-upload: no file, no object, no use', async (t) => {
  const { catalog, inner, space } = await setup(t)
  const docs = new Documents(catalog.files, inner)
  await t.rejects(docs.upload(space, 'create', 'x.bin', chunked(randomBytes(500_000), 10_000, 200_000)), { message: 'client went away' })
  t.same(await catalog.files.usage(space), { files: 0, space_bytes: 0 })
  t.same(await inner.listPrefixes(), [], 'no object was written')
})

t.test('a download link works until the millisecond before valid_until and not at it (one clock for the link and the storage)', async (t) => {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const { company } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'acme-pass-1' })
  const space = { kind: 'company', companyId: company.id } as const
  // The time source the link check uses, moved by the test (not by waiting).
  const clock = new VirtualClock(Date.UTC(2026, 0, 1, 12, 0, 0, 250) * 1000)
  const inner = await openFsBlobStore({ dir: t.testdir(), host: '127.0.0.1', port: 0, now: () => nowMs(clock) })
  t.teardown(async () => { await inner.close(); catalog.close() })
  const docs = new Documents(catalog.files, inner, { clock })
  await docs.upload(space, 'create', 'plan.pdf', chunked(Buffer.from('the plan')))
  const asked = nowMs(clock)
  const link = await docs.link(space, 'plan.pdf', 60)
  const validUntil = Date.parse(link.valid_until)
  t.ok(validUntil > asked + 59_000 && validUntil <= asked + 60_000, `valid_until ${link.valid_until} is 60 s after the request, at most`)
  clock.advanceTo((validUntil - 1) * 1000)
  const before = await fetch(link.download_link)
  t.equal(before.status, 200, 'the link works 1 ms before valid_until')
  t.equal(await before.text(), 'the plan')
  clock.advanceTo(validUntil * 1000)
  const at = await fetch(link.download_link)
  t.equal(at.status, 403, 'the link stops working at valid_until, not later')
  t.match(await at.text(), /Request has expired/)
})
