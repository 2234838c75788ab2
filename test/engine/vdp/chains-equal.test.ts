// The two evaluation chains of a virtual datapoint compute the same outputs (issue 30 item 7):
// the operator chain (pipeline.ts operatorChain: rangeWindow → aggregateWith → triggerOn →
// combinePins → calculate, RxJS operators) and the fused pipeline (fused-pipeline.ts, the same
// stages as plain calls) that buildPipeline uses whenever every pin triggers on every value.
// A seeded property: random configurations over every type, every window kind (time, count,
// cron, none) and every aggregate, random inputs with duplicates, late and out-of-order
// observations and zeros, the same interleaving fed to both; with and without a restart's
// alreadyStored and a counter's initial total. A failure prints the seed and the case.
import t from 'tap'
import { filter, Subject } from 'rxjs'
import { buildPipeline, operatorChain, type PipelineOptions } from '../../../engine/vdp/pipeline.ts'
import { AGGREGATES, type DataRange, type Obs, type PinConfig, type VdpConfig } from '../../../engine/vdp/types.ts'

const SEED = Number(process.env.CHAINS_SEED ?? 30_007)
const CASES = Number(process.env.CHAINS_CASES ?? 400)
const S = 1_000_000
const T0 = Date.UTC(2024, 0, 1) * 1000

function rng(seed: number) {
  let s = seed >>> 0
  const next = () => { s = (s + 0x6d2b79f5) >>> 0; let x = s; x = Math.imul(x ^ (x >>> 15), x | 1); x ^= x + Math.imul(x ^ (x >>> 7), x | 61); return ((x ^ (x >>> 14)) >>> 0) / 2 ** 32 }
  return { next, int: (n: number) => Math.floor(next() * n), pick: <T>(xs: readonly T[]): T => xs[Math.floor(next() * xs.length)] }
}
type Rng = ReturnType<typeof rng>

const CRONS: DataRange[] = [{ kind: 'cron', start: '*/10 * * * *', end: '5-59/10 * * * *' }, { kind: 'cron', start: '0 * * * *', end: '30 * * * *' }]
function range(r: Rng): DataRange {
  switch (r.int(4)) {
    case 0: return { kind: 'time', us: (1 + r.int(600)) * S }
    case 1: return { kind: 'count', n: 1 + r.int(6) }
    case 2: return r.pick(CRONS)
    default: return { kind: 'none' }
  }
}
const pin = (r: Rng, name: string): PinConfig => ({ name, dataPointID: `dp-${name}`, range: range(r), aggregate: r.pick(AGGREGATES), trigger: 'every_value' })

function config(r: Rng): VdpConfig {
  switch (r.int(4)) {
    case 0: {
      const n = 1 + r.int(3)
      const names = ['P1', 'P2', 'P3'].slice(0, n)
      // Sometimes a pin the formula does not use (not required for a vector).
      const formula = r.pick([names.join(' + '), `${names[0]} * 2 - ${names.at(-1)}`, `${names.at(-1)} / ${names[0]}`, names[0]])
      return { type: 'formula', pins: names.map((x) => pin(r, x)), parameters: { formula } }
    }
    case 1: return { type: 'gradient', pins: [pin(r, 'input')], parameters: { factorization: r.pick([1, 60, 3600]) } }
    case 2: {
      const names = r.next() < 0.5 ? ['relative_humidity', 'temperature'] : ['relative_humidity', 'temperature', 'pressure']
      return { type: 'absolute_humidity', pins: names.map((x) => pin(r, x)), parameters: { relative_humidity_unit: 'percent', temperature_unit: 'celsius', pressure_unit: 'hPa' } }
    }
    default: {
      const names = ['a', 'b'].slice(0, 1 + r.int(2))
      return { type: 'counter', pins: names.map((x) => pin(r, x)), parameters: { formula: names.length === 1 ? 'a' : 'a - b', default_init_value: r.int(100) } }
    }
  }
}

/** Interleaved input events: mostly forward in time, with duplicates, late ones and zeros. */
function events(r: Rng, pins: readonly string[]): { pin: string; o: Obs }[] {
  const out: { pin: string; o: Obs }[] = []
  const newest = new Map(pins.map((p) => [p, T0 + r.int(600) * S]))
  for (let i = 0, n = 5 + r.int(60); i < n; i++) {
    const p = r.pick(pins)
    const last = newest.get(p)!
    const kind = r.next()
    const time = kind < 0.1 ? last : kind < 0.2 ? last - r.int(900) * S : last + r.int(240) * S + r.int(1000)
    newest.set(p, Math.max(last, time))
    const value = r.next() < 0.1 ? 0 : Math.round((r.next() * 100 - 20) * 100) / 100
    out.push({ pin: p, o: { time, value } })
  }
  return out
}

function run(build: typeof operatorChain, cfg: VdpConfig, evs: readonly { pin: string; o: Obs }[], opts: PipelineOptions): { out: Obs[]; err?: string } {
  const subjects = new Map(cfg.pins.map((p) => [p.name, new Subject<Obs>()]))
  const out: Obs[] = []
  let err: string | undefined
  const sub = build(cfg, (name) => subjects.get(name)!, opts).subscribe({ next: (x) => out.push(x), error: (e) => { err = String(e) } })
  for (const e of evs) subjects.get(e.pin)!.next(e.o)
  for (const s of subjects.values()) s.complete()
  sub.unsubscribe()
  return { out, err }
}

t.test(`operator chain and fused pipeline agree on ${CASES} seeded cases (seed ${SEED})`, async (t) => {
  const r = rng(SEED)
  const seen = { types: new Set<string>(), ranges: new Set<string>(), aggregates: new Set<string>(), outputs: 0 }
  let failures = 0
  for (let i = 0; i < CASES && failures < 3; i++) {
    const cfg = config(r)
    const evs = events(r, cfg.pins.map((p) => p.name))
    const skip = r.int(3) === 0 ? new Set(evs.filter(() => r.next() < 0.3).map((e) => e.o.time)) : undefined
    const opts: PipelineOptions = { alreadyStored: skip && ((time) => skip.has(time)), initialCounter: r.next() < 0.5 ? r.int(1000) : undefined }
    const fused = run(buildPipeline, cfg, evs, opts)
    const chain = run(operatorChain, cfg, evs, opts)
    seen.types.add(cfg.type)
    for (const p of cfg.pins) { seen.ranges.add(p.range.kind); seen.aggregates.add(p.aggregate) }
    seen.outputs += chain.out.length
    if (JSON.stringify(fused) !== JSON.stringify(chain)) {
      failures++
      t.same(fused, chain, `case ${i} (seed ${SEED}): ${JSON.stringify({ cfg, evs, skip: skip && [...skip], initialCounter: opts.initialCounter })}`)
    }
  }
  t.equal(failures, 0, 'no case differs')
  // The property covered what it claims to cover.
  t.same([...seen.types].sort(), ['absolute_humidity', 'counter', 'formula', 'gradient'])
  t.same([...seen.ranges].sort(), ['count', 'cron', 'none', 'time'])
  t.same([...seen.aggregates].sort(), [...AGGREGATES].sort())
  t.ok(seen.outputs > CASES, `${seen.outputs} outputs compared`)
})

t.test('the property can fail: a chain that drops a late observation differs', async (t) => {
  const cfg: VdpConfig = { type: 'formula', pins: [{ name: 'P1', dataPointID: 'a', range: { kind: 'count', n: 3 }, aggregate: 'sum', trigger: 'every_value' }], parameters: { formula: 'P1' } }
  const evs = [{ pin: 'P1', o: { time: T0 + 10 * S, value: 1 } }, { pin: 'P1', o: { time: T0 + 20 * S, value: 2 } }, { pin: 'P1', o: { time: T0 + 15 * S, value: 4 } }]
  const dropLate: typeof operatorChain = (c, inputs, o) => operatorChain(c, (n) => {
    let newest = -Infinity
    return inputs(n).pipe(filter((x) => { const inOrder = x.time >= newest; newest = Math.max(newest, x.time); return inOrder }))
  }, o)
  t.not(JSON.stringify(run(dropLate, cfg, evs, {})), JSON.stringify(run(buildPipeline, cfg, evs, {})))
})
