// Replay of a virtual datapoint over a range (issue 14 item 2, engine/vdp/range-replay.ts):
// the live pipeline fed from the store. Through the real runtime, SQLite store and bus: run
// live over a stream, then replay (whole range, a middle range) and compare whole series;
// late and corrected inputs within the lateness horizon are recomputed by themselves, older
// ones are not.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import type { VdpRecord } from '../../../catalog/virtual-datapoints.ts'
import { ObservationBus, observedStore } from '../../../engine/observation-bus.ts'
import type { Observation, Point } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { ReplayRefused } from '../../../engine/vdp/range-replay.ts'
import { VdpRuntime } from '../../../engine/vdp/runtime.ts'
import { waitFor } from '../../helpers/wait.ts'

const M = 60_000_000 // a minute in µs

async function setup(t: Test, latenessUs = 0) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const { company, user } = await catalog.createCompanyWithAdmin('A', { email: 'a@a.test', password: 'password-1' })
  const pid = (await catalog.projects.create(company.id, { name: 'one' }, user.id)).project.id
  const raw = await openSqliteStore({ dir: t.testdir() })
  const bus = new ObservationBus()
  const store = observedStore(raw, bus)
  const recomputed: { id: number; from: number }[] = []
  const runtime = new VdpRuntime({
    catalog, store: raw, bus, ingest: (_p, batch) => store.append(batch), log: { info: () => {}, error: () => {} },
    latenessUs, onRecompute: (r) => { recomputed.push(r) },
  })
  t.teardown(async () => { runtime.stopAll(); await raw.close(); catalog.close() })
  const ids = new Map<string, number>()
  const series = async (id: string) => {
    if (!ids.has(id)) ids.set(id, (await catalog.datapoints.ensure(pid, [id])).get(id)!)
    return ids.get(id)!
  }
  const vdp = (dataPointID: string, type: string, body: { pins: object; parameters: object }): Promise<VdpRecord> =>
    catalog.virtualDatapoints.create(pid, { dataPointID, type, description: '', ...body, status_code: 202 }, 'test')
  const put = async (id: string, points: Point[]) => store.append(await Promise.all(points.map(async (p): Promise<Observation> => ({ series: await series(id), ...p }))))
  const read = async (id: string) => raw.read(await series(id), {})
  return { runtime, raw, vdp, put, read, series, recomputed }
}

// Two inputs, in event-time order, arriving in batches: a at every minute, b every 3 minutes.
function stream(n: number): { id: string; points: Point[] }[] {
  const batches: { id: string; points: Point[] }[] = []
  for (let i = 0; i < n; i++) {
    batches.push({ id: 'a', points: [{ time: i * M, value: Math.sin(i) * 10 + 20 }] })
    if (i % 3 === 1) batches.push({ id: 'b', points: [{ time: i * M + 1, value: (i * 7) % 11 }] })
  }
  return batches
}

const CONFIGS = {
  sum: { type: 'formula', body: { pins: { P1: { dataPointID: 'a' }, P2: { dataPointID: 'b', data_range: { count: 2 }, aggregate: 'mean' } }, parameters: { formula: 'P1 + P2' } } },
  avg: { type: 'formula', body: { pins: { P1: { dataPointID: 'a', data_range: { time: '10m' }, aggregate: 'timeweighted_mean' } }, parameters: { formula: 'P1' } } },
  cnt: { type: 'counter', body: { pins: { flow: { dataPointID: 'b' } }, parameters: { formula: 'flow', default_init_value: 5 } } },
  grad: { type: 'gradient', body: { pins: { input: { dataPointID: 'a' } }, parameters: { factorization: 60 } } },
} as const

t.test('replay gives exactly the live outputs: the whole range, a middle range, after the outputs were damaged', async (t) => {
  const { runtime, raw, vdp, put, read, series } = await setup(t)
  const records = new Map<string, VdpRecord>()
  for (const [id, c] of Object.entries(CONFIGS)) {
    const v = await vdp(id, c.type, c.body)
    records.set(id, v)
    await runtime.start(v)
  }
  const N = 600
  for (const b of stream(N)) await put(b.id, b.points)
  const last = (N - 1) * M
  await waitFor(async () => {
    for (const id of records.keys()) if ((await read(id)).at(-1)?.time !== (id === 'cnt' ? (N - 2) * M + 1 : last)) return false
    return true
  }, { what: 'every live output' })
  const live = new Map<string, Point[]>()
  for (const id of records.keys()) live.set(id, await read(id))
  runtime.stopAll()
  t.ok(live.get('sum')!.length > N - 5, `live outputs (sum: ${live.get('sum')!.length})`)

  for (const [id, v] of records) {
    // Damage the outputs: drop some, change others, add one that live never wrote.
    const out = await series(id)
    await raw.replaceRange(out, 100 * M, 200 * M, [{ time: 150 * M + 7, value: -1 }])
    await raw.append([{ series: out, time: 300 * M, value: 1e9 }])
    const whole = await runtime.replay(v, 0, last + 1)
    t.same(await read(id), live.get(id), `${id}: replaying the whole range gives the live series`)
    t.equal(whole.outputs, live.get(id)!.length)
    t.equal(whole.inputs, { sum: N + N / 3, avg: N, cnt: N / 3, grad: N }[id], `${id}: every input observation of the range replayed`)

    await raw.replaceRange(out, 250 * M, 400 * M, [])
    const middle = await runtime.replay(v, 250 * M, 400 * M)
    t.same(await read(id), live.get(id), `${id}: replaying a middle range continues from the windows and the total before it`)
    t.equal(middle.outputs, live.get(id)!.filter((p) => p.time >= 250 * M && p.time < 400 * M).length)
  }
})

t.test('a running virtual datapoint is replayed and runs on from the replayed outputs', async (t) => {
  const { runtime, vdp, put, read } = await setup(t)
  const v = await vdp('cnt', 'counter', { pins: { flow: { dataPointID: 'x' } }, parameters: { formula: 'flow' } })
  await runtime.start(v)
  await put('x', [{ time: 1 * M, value: 1 }, { time: 2 * M, value: 2 }])
  await waitFor(async () => (await read('cnt')).length === 2, { what: 'two outputs' })
  const r = await runtime.replay(v, 0, 10 * M)
  t.same(r, { inputs: 2, outputs: 2 })
  t.ok(runtime.isRunning(v.id), 'running again after the replay')
  await put('x', [{ time: 3 * M, value: 4 }])
  await waitFor(async () => (await read('cnt')).length === 3, { what: 'the next output' })
  t.same((await read('cnt')).map((p) => p.value), [1, 3, 7], 'the counter continues from its replayed total')
})

t.test('time triggers cannot be replayed', async (t) => {
  const { runtime, vdp } = await setup(t)
  const v = await vdp('m', 'formula', { pins: { P1: { dataPointID: 'x', trigger: 'every_minute' } }, parameters: { formula: 'P1' } })
  const err = await runtime.replay(v, 0, M).catch((e: unknown) => e)
  t.ok(err instanceof ReplayRefused && err.kind === 'trigger', 'refused')
  t.match((err as Error).message, "its pin 'P1' has the time trigger 'every_minute'")
})

t.test('late and corrected inputs within the lateness horizon are recomputed; the result equals a replay', async (t) => {
  const { runtime, vdp, put, read, recomputed } = await setup(t, 60 * M)
  const body = { pins: { P1: { dataPointID: 'x', data_range: { count: 3 }, aggregate: 'mean' } }, parameters: { formula: 'P1' } }
  const live = await vdp('live', 'formula', body)
  const ref = await vdp('ref', 'formula', body)
  await runtime.start(live)
  for (let i = 0; i < 10; i++) await put('x', [{ time: i * M, value: i }])
  await waitFor(async () => (await read('live')).length === 10, { what: 'ten outputs' })
  await put('x', [{ time: 4 * M + 30_000_000, value: 100 }]) // late: behind the window (count 3 holds 7, 8, 9)
  await waitFor(() => recomputed.length === 1, { what: 'the recompute of the late input' })
  t.match(recomputed[0], { id: live.id, from: 4 * M + 30_000_000, result: { inputs: 6 } })
  await runtime.replay(ref, 0, 100 * M)
  t.same(await read('live'), await read('ref'), 'the live outputs equal a replay over everything')
  t.ok((await read('live')).some((p) => p.time === 4 * M + 30_000_000 && p.value === (3 + 4 + 100) / 3), 'the late input has its output')
  t.equal((await read('live')).find((p) => p.time === 6 * M)!.value, (100 + 5 + 6) / 3, 'and the outputs after it include it')

  await put('x', [{ time: 9 * M, value: 90 }]) // a correction of the newest value
  await waitFor(() => recomputed.length === 2, { what: 'the recompute of the correction' })
  t.equal((await read('live')).at(-1)!.value, (7 + 8 + 90) / 3)
  t.ok(runtime.isRunning(live.id), 'still running')
})

t.test('late data beyond the lateness horizon is not recomputed; at the horizon it is', async (t) => {
  // docs/virtual-datapoints.md "Late data": an input at most the horizon behind the newest of
  // its pin is recomputed; older ones are left to the live windows alone.
  const { runtime, vdp, put, read, recomputed } = await setup(t, 60 * M)
  const live = await vdp('live', 'formula', { pins: { P1: { dataPointID: 'x' } }, parameters: { formula: 'P1 * 2' } })
  await runtime.start(live)
  for (const i of [0, 1, 2, 100]) await put('x', [{ time: i * M, value: i }])
  await waitFor(async () => (await read('live')).length === 4, { what: 'four outputs' })
  const before = await read('live')
  await put('x', [{ time: 40 * M - 1, value: 7 }]) // 60 min + 1 µs behind the newest (100 min): beyond
  await put('x', [{ time: 101 * M, value: 101 }])
  await waitFor(async () => (await read('live')).at(-1)?.time === 101 * M, { what: 'the output of the next input' })
  t.same((await read('live')).filter((p) => p.time !== 40 * M - 1 && p.time !== 101 * M), before, 'the outputs before it are left as they were')

  // Recomputes start about 0.2 s after the late input, from the earliest late time pending:
  // had the input beyond the horizon been taken as late, the first recompute would start
  // there (merged with this one, or before it).
  await put('x', [{ time: 41 * M, value: 41 }]) // exactly 60 min behind the newest (101 min): within
  await waitFor(() => recomputed.length >= 1, { what: 'the recompute of an input exactly at the horizon' })
  t.same(recomputed.map((r) => [r.id, r.from]), [[live.id, 41 * M]], 'only the input at the horizon is recomputed; the one beyond it is not')
  t.equal((await read('live')).find((p) => p.time === 41 * M)?.value, 82, 'the input at the horizon has its output')
})

t.test('a replay cascades into the running virtual datapoints fed by the replayed one, and on from them', async (t) => {
  // Replayed outputs go to the store only (not the bus): without the cascade, `twice` and
  // `plus` would keep the values they computed from the old outputs of `src`.
  const { runtime, raw, vdp, put, read, series } = await setup(t)
  const src = await vdp('src', 'formula', { pins: { P1: { dataPointID: 'x' } }, parameters: { formula: 'P1 + 1' } })
  const twice = await vdp('twice', 'formula', { pins: { P1: { dataPointID: 'src' } }, parameters: { formula: 'P1 * 2' } })
  const plus = await vdp('plus', 'formula', { pins: { P1: { dataPointID: 'twice' }, P2: { dataPointID: 'y' } }, parameters: { formula: 'P1 + P2' } })
  const idle = await vdp('idle', 'formula', { pins: { P1: { dataPointID: 'src' } }, parameters: { formula: 'P1' } }) // not running: left alone
  for (const v of [src, twice, plus]) await runtime.start(v)
  await put('y', [{ time: 0, value: 1000 }])
  for (let i = 1; i <= 20; i++) await put('x', [{ time: i * M, value: i }])
  await put('y', [{ time: 25 * M, value: 2000 }]) // after the replayed range: uses twice's newest value
  await waitFor(async () => (await read('plus')).at(-1)?.time === 25 * M, { what: 'the live outputs of the chain' })
  // Inputs of src corrected behind the pipelines' backs (store only), then src replayed over [5, 10) minutes.
  const x = await series('x')
  await raw.append([5, 6, 7, 8, 9].map((i) => ({ series: x, time: i * M, value: 100 * i })))
  await runtime.replay(src, 5 * M, 10 * M)
  const srcOut = await read('src')
  t.equal(srcOut.find((p) => p.time === 7 * M)!.value, 701, 'src replayed')
  t.same(await read('twice'), srcOut.map((p) => ({ time: p.time, value: p.value * 2 })), 'twice follows the replayed src')
  const twiceOut = await read('twice')
  t.same((await read('plus')).filter((p) => p.time >= 5 * M),
    [...twiceOut.filter((p) => p.time >= 5 * M).map((p) => ({ time: p.time, value: p.value + 1000 })), { time: 25 * M, value: 2 * 21 + 2000 }],
    'plus, fed by twice, follows too')
  t.same(await read('idle'), [], 'a virtual datapoint that does not run is not replayed')
  for (const v of [src, twice, plus]) t.ok(runtime.isRunning(v.id), `${v.dataPointID} runs again`)
})
