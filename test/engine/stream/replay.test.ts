// Storage-first replay (engine/stream/replay.ts) against the real SQLite store and observation
// bus: history across inputs in event-time order, live observations that arrive during the
// reads buffered (none lost, none twice, none early), and outputs already stored flagged only
// while replaying.
import t, { type Test } from 'tap'
import { from, tap, VirtualTimeScheduler } from 'rxjs'
import { aggregateWith } from '../../../engine/stream/aggregate-with.ts'
import { rangeWindow } from '../../../engine/stream/range-window.ts'
import { triggerOn } from '../../../engine/stream/trigger.ts'
import { openReplay } from '../../../engine/stream/replay.ts'
import type { Obs, WindowRange } from '../../../engine/stream/types.ts'
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

// Catch-up (issue 16 item 8): inputs stored after the last stored output were never computed
// (a kill -9 between storing them and their outputs); feed() replays them after the windows.
const feedAll = async (replay: Awaited<ReturnType<typeof openReplay>>, keys: string[]) => {
  const seen: { key: string; time: number; stored: boolean }[] = []
  for (const key of keys) replay.input(key).subscribe((x) => seen.push({ key, time: x.time / M, stored: replay.alreadyStored(x.time) }))
  await replay.feed()
  return seen
}

t.test('catch-up: last output at 10, inputs at 1..20: the window as of 10, then every input 11..20', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, ...Array.from({ length: 20 }, (_, i) => o((i + 1) * M, i + 1)))
  await put(9, o(10 * M, 100))
  const read = (s: number, q: RangeQuery) => raw.read(s, q)
  const replay = await openReplay({ read, live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'count', n: 3 } }], 9, { chunk: 4 })
  const seen = await feedAll(replay, ['a'])
  t.same(seen, [
    ...[8, 9, 10].map((time) => ({ key: 'a', time, stored: true })),
    ...[11, 12, 13, 14, 15, 16, 17, 18, 19, 20].map((time) => ({ key: 'a', time, stored: false })),
  ], 'the count-3 window as of 10 (outputs stored), then 11..20 in pages of 4 (outputs to compute)')
})

t.test('catch-up: several inputs merged in event-time order, read in pages, paced', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, ...[1, 3, 5, 7, 9, 11, 13].map((m) => o(m * M, m)))
  await put(2, ...[2, 4, 6, 8, 10, 11, 12].map((m) => o(m * M, m)))
  await put(9, o(4 * M, 0))
  const reads: RangeQuery[] = []
  const read = (s: number, q: RangeQuery) => { reads.push(q); return raw.read(s, q) }
  const replay = await openReplay({ read, live: (s) => bus.series(s) },
    [{ key: 'a', series: 1, range: { kind: 'time', us: 2 * M } }, { key: 'b', series: 2, range: { kind: 'none' } }], 9, { chunk: 3 })
  const seen: string[] = []
  for (const key of ['a', 'b']) replay.input(key).subscribe((x) => seen.push(`${key}${x.time / M}${replay.alreadyStored(x.time) ? '*' : ''}`))
  const paces: number[] = []
  await replay.feed(async () => { paces.push(seen.length) })
  t.same(seen, ['a1*', 'a3*', 'b4*', 'a5', 'b6', 'a7', 'b8', 'a9', 'b10', 'a11', 'b11', 'b12', 'a13'],
    'a\'s 2-minute window (from 3 − 2 on: the window drops 1 again) and b\'s newest as of 4 (stored), then both inputs after 4 by event time; equal times in input order')
  t.same(paces, [6, 9, 12, 13], 'pace awaited after each page of 3 (the window history is not paged)')
  t.ok(reads.filter((q) => q.from === 'first').every((q) => q.limit === 3), 'every catch-up read is bounded by the page size')
})

t.test('catch-up: with no output yet, every stored input is replayed', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, o(1 * M, 1), o(2 * M, 2))
  const replay = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'count', n: 1 } }], 9)
  t.equal(replay.last, undefined)
  t.same(await feedAll(replay, ['a']), [{ key: 'a', time: 1, stored: false }, { key: 'a', time: 2, stored: false }])
})

t.test('catch-up: beyond the horizon the oldest are skipped, and the caller is told', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, ...Array.from({ length: 20 }, (_, i) => o((i + 1) * M, i + 1)))
  await put(9, o(5 * M, 0))
  const told: object[] = []
  const replay = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s), onHorizon: (h) => told.push(h) },
    [{ key: 'a', series: 1, range: { kind: 'count', n: 2 } }], 9, { maxCatchUp: 6, chunk: 4 })
  t.same(told, [{ lastOutput: 5 * M, catchUpAfter: 15 * M - 1 }], 'only the six newest inputs after the last output are replayed: from 15 on')
  t.same(await feedAll(replay, ['a']), [
    { key: 'a', time: 13, stored: true }, { key: 'a', time: 14, stored: true }, // the window as of 14: skipped, not computed
    ...[15, 16, 17, 18, 19, 20].map((time) => ({ key: 'a', time, stored: false })),
  ])
})

t.test('catch-up: live observations during the catch-up come after it, once; close() ends a feed under way', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, o(1 * M, 1), o(2 * M, 2), o(3 * M, 3))
  await put(9, o(1 * M, 0))
  const replay = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'none' } }], 9, { chunk: 1 })
  const seen: number[] = []
  replay.input('a').subscribe((x) => seen.push(x.time / M))
  let pages = 0
  await replay.feed(async () => {
    if (++pages === 1) await put(1, o(4 * M, 4), o(0.5 * M, 5)) // stored during the catch-up: one read back (4), one late (0.5)
  })
  t.same(seen, [1, 2, 3, 4, 0.5], 'the stored 4 is read back by the catch-up and not fed again; the late 0.5 comes from the buffer')

  const stopped = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'none' } }], 9, { chunk: 1 })
  const fed: number[] = []
  stopped.input('a').subscribe((x) => fed.push(x.time / M))
  await stopped.feed(async () => { stopped.close() })
  t.same(fed, [1, 2], 'the page under way is fed, then nothing more')
})

t.test('catch-up equals an uninterrupted run for every window shape (time, count, cron, none)', async (t) => {
  const inputs = Array.from({ length: 180 }, (_, m) => o(m * M, (m * 7) % 13 + 1))
  const ranges: [string, WindowRange][] = [
    ['time 10 min', { kind: 'time', us: 10 * M }], ['count 4', { kind: 'count', n: 4 }],
    ['cron, first half of each hour', { kind: 'cron', start: '0 * * * *', end: '30 * * * *' }], ['none', { kind: 'none' }],
  ]
  for (const [name, range] of ranges) {
    const uninterrupted: Obs[] = []
    from(inputs).pipe(rangeWindow(range), aggregateWith('sum')).subscribe((x) => uninterrupted.push(x))
    const { raw, bus, put } = await setup(t)
    await put(1, ...inputs)
    const lastOutput = uninterrupted.filter((x) => x.time <= 47 * M).at(-1)! // the kill came after this output was stored
    await put(9, lastOutput)
    const replay = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range }], 9, { chunk: 7 })
    const restarted: Obs[] = []
    replay.input('a').pipe(rangeWindow(range), aggregateWith('sum')).subscribe((x) => { if (!replay.alreadyStored(x.time)) restarted.push(x) })
    await replay.feed()
    t.same(restarted, uninterrupted.filter((x) => x.time > lastOutput.time), `${name}: the outputs after the last stored one, as uninterrupted`)
  }
})

t.test('catch-up with a time trigger: nothing during the replay, the latest value at the next wall-clock boundary', async (t) => {
  const { raw, bus, put } = await setup(t)
  await put(1, o(1 * M, 1), o(2 * M, 2), o(3 * M, 3), o(4 * M, 4))
  await put(9, o(2 * M, 0))
  const clock = new VirtualTimeScheduler(undefined, 120_000) // wall clock in ms, up to 2 minutes after the start
  const replay = await openReplay({ read: (s, q) => raw.read(s, q), live: (s) => bus.series(s) }, [{ key: 'a', series: 1, range: { kind: 'count', n: 2 } }], 9)
  const out: Obs[] = []
  replay.input('a').pipe(rangeWindow({ kind: 'count', n: 2 }), aggregateWith('sum'), triggerOn('every_minute', clock)).subscribe((x) => out.push(x))
  await replay.feed()
  t.same(out, [], 'a time trigger emits nothing while the inputs are replayed (their event times are not wall-clock boundaries)')
  clock.flush()
  t.same(out, [o(60_000 * 1000, 7), o(120_000 * 1000, 7)], 'the sum of the caught-up window (3 + 4) at each boundary after the start')
})
