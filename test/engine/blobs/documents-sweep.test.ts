// The documents sweep (objects of deleted companies and projects) runs at start and every
// period on the shared clock, until stopped: driven here by the virtual clock, no waiting.
import t from 'tap'
import { Documents } from '../../../engine/blobs/documents.ts'
import type { BlobStore } from '../../../engine/blobs/port.ts'
import type { FilesPort } from '../../../catalog/port.ts'
import { MINUTE_US } from '../../../core/clock/clock.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { waitFor } from '../../helpers/wait.ts'

t.test('sweepEvery: at once, then once per period on the clock, never after stop', async (t) => {
  const deleted: string[] = []
  let sweeps = 0
  const files = { orphans: async (prefixes: string[]) => { sweeps++; return prefixes.filter((p) => p.startsWith('c9')) } } as unknown as FilesPort
  const blobs = { listPrefixes: async () => ['c1', 'c9'], deletePrefix: async (k: string) => { deleted.push(k) } } as unknown as BlobStore
  const clock = new VirtualClock()
  const docs = new Documents(files, blobs, { clock })
  const stop = docs.sweepEvery(10 * 60_000)
  await waitFor(() => deleted.length === 1, { what: 'the sweep at start' })
  clock.advance(10 * MINUTE_US - 1)
  t.equal(sweeps, 1, 'not before the period')
  clock.advance(1)
  await waitFor(() => deleted.length === 2, { what: 'the sweep after 10 minutes' })
  clock.advance(60 * MINUTE_US)
  await waitFor(() => deleted.length === 8, { what: 'six more sweeps in the next hour' })
  t.same(new Set(deleted), new Set(['c9']), 'only the orphaned space')
  stop()
  t.equal(clock.pending, 0, 'stopped: no timer left')
})
