// Storage-first replay (engine/stream/replay.ts) against the real SQLite store and observation
// bus: history across inputs in event-time order, live observations that arrive during the
// reads buffered (none lost, none twice, none early), and outputs already stored flagged only
// while replaying.
import t, { type Test } from 'tap'
import { tap } from 'rxjs'
import { openReplay } from '../../../engine/stream/replay.ts'
import type { Obs } from '../../../engine/stream/types.ts'
import { ObservationBus, observedStore } from '../../../engine/observation-bus.ts'
import type { RangeQuery } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'

const S = 1_000_000
const M = 60 * S
const o = (time: number, value: number): Obs => ({ time, value })

async function setup(t: Test) {
  const raw = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => raw.close())
  const bus = new ObservationBus()
  const store = observedStore(raw, bus)
  const put = (series: number, ...obs: Obs[]) => store.append(obs.map((x) => ({ series, ...x })))
  return { raw, bus, store, put }
}

t.test('openReplay: history in event-time order across inputs, then live buffered during the reads', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, o(1 * M, 10), o(3 * M, 30))
  await put(2, o(2 * M, 20))
  await put(9, o(3 * M, 99)) // the last stored output
  let reads = 0
  const read = async (s: number, q: RangeQuery) => {
    const points = await raw.read(s, q)
    if (reads++ === 0) await put(2, o(4 * M, 40)) // arrives live while the history is being read
    return points
  }
  const replay = await openReplay({ read, live: (s) => bus.series(s) },
    [{ key: 'a', series: 1, range: { kind: 'count', n: 5 } }, { key: 'b', series: 2, range: { kind: 'count', n: 5 } }], 9)
  t.same(replay.last, o(3 * M, 99))
  const seen: { key: string; obs: Obs; stored: boolean }[] = []
  for (const key of ['a', 'b']) replay.input(key).subscribe((obs) => seen.push({ key, obs, stored: replay.alreadyStored(obs.time) }))
  t.same(seen, [], 'nothing flows before feed()')
  await replay.feed()
  t.same(seen, [
    { key: 'a', obs: o(1 * M, 10), stored: true },
    { key: 'b', obs: o(2 * M, 20), stored: true },
    { key: 'a', obs: o(3 * M, 30), stored: true },
    { key: 'b', obs: o(4 * M, 40), stored: false },
  ], 'history by event time (40 was stored before b was read back: its buffered copy is not fed again); only times up to the last output count as stored')
  t.notOk(replay.alreadyStored(0), 'after feed() nothing counts as stored')
  await put(1, o(2 * M, 50))
  t.same(seen.at(-1), { key: 'a', obs: o(2 * M, 50), stored: false }, 'then live observations flow straight through')
  replay.close()
  await put(1, o(5 * M, 60))
  t.equal(seen.length, 5, 'close() ends the live inputs')
})

t.test('openReplay: an observation stored during the reads but not read back is fed once, from the buffer', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, o(1 * M, 10))
  let reads = 0
  const read = async (s: number, q: RangeQuery) => {
    const points = await raw.read(s, q)
    if (++reads === 2) await put(1, o(2 * M, 20)) // after a's history was read
    return points
  }
  const replay = await openReplay({ read, live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'count', n: 5 } }], 9)
  const seen: Obs[] = []
  replay.input('a').subscribe((x) => seen.push(x))
  await replay.feed()
  t.same(seen, [o(1 * M, 10), o(2 * M, 20)])
  t.throws(() => replay.input('c'), /no input 'c'/)
})

t.test('openReplay: a failed read releases the live subscriptions', async (t) => {
  const { bus, put } = await setup(t)
  let delivered = 0
  const live = (s: number) => bus.series(s).pipe(tap(() => { delivered++ }))
  await t.rejects(openReplay({ read: async () => { throw new Error('store down') }, live }, [{ key: 'a', series: 1, range: { kind: 'none' } }], 9), /store down/)
  await put(1, o(1, 1))
  t.equal(delivered, 0, 'no subscriber is left on the bus')
})
