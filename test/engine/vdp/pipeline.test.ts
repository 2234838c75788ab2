import t, { type Test } from 'tap'
import { from, NEVER, type Observable, Subject } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { parseVdpConfig } from '../../../engine/vdp/config.ts'
import { buildPipeline, type PipelineOptions } from '../../../engine/vdp/pipeline.ts'
import type { Obs } from '../../../engine/vdp/types.ts'

const S = 1_000_000
const M = 60 * S
const H = 60 * M
const o = (time: number, value: number): Obs => ({ time, value })
const iso = (s: string) => Date.parse(s) * 1000
const scheduler = (t: Test) => new TestScheduler((actual, expected) => t.same(actual, expected))

/** Subjects for the named pins and the pipeline's collected output. */
function harness(type: string, body: unknown, opts: PipelineOptions = {}) {
  const config = parseVdpConfig(type, body)
  const subjects = new Map(config.pins.map((p) => [p.name, new Subject<Obs>()]))
  const out: Obs[] = []
  const sub = buildPipeline(config, (name) => subjects.get(name)!, opts).subscribe((x) => out.push(x))
  const send = (name: string, ...obs: Obs[]) => { for (const x of obs) subjects.get(name)!.next(x) }
  return { out, send, sub, subjects }
}

/** Output of a pipeline over finished inputs. */
function collect(type: string, body: unknown, inputs: Record<string, Obs[]>, opts: PipelineOptions = {}): Obs[] {
  const out: Obs[] = []
  buildPipeline(parseVdpConfig(type, body), (name) => (inputs[name] ? from(inputs[name]) : NEVER), opts).subscribe((x) => out.push(x))
  return out
}

t.test('formula: each value of any pin computes, once every used pin has a value', async (t) => {
  const h = harness('formula', { pins: { P1: { dataPointID: 'a' }, P2: { dataPointID: 'b' } }, parameters: { formula: 'P1 / P2' } })
  h.send('P1', o(1, 6))
  t.same(h.out, [])
  h.send('P2', o(2, 3))
  h.send('P1', o(3, 9))
  h.send('P2', o(4, 0)) // division by zero: nothing
  h.send('P2', o(5, 2))
  t.same(h.out, [o(2, 2), o(3, 3), o(5, 4.5)])
})

t.test('formula: a declared pin the formula does not use does not hold it back', async (t) => {
  const h = harness('formula', { pins: { P1: { dataPointID: 'a' }, P3: { dataPointID: 'c' } }, parameters: { formula: 'P1 * 2' } })
  h.send('P1', o(1, 4))
  h.send('P3', o(2, 100))
  t.same(h.out, [o(1, 8), o(2, 8)], 'its values still cause a calculation')
})

t.test('formula: null emits nothing; constant formulas emit on every value', async (t) => {
  const h = harness('formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'if(P1 > 0, P1, null)' } })
  h.send('P1', o(1, -1), o(2, 5))
  t.same(h.out, [o(2, 5)])
  const k = harness('formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'a=P1+1;0;' } })
  k.send('P1', o(1, 1), o(2, 2))
  t.same(k.out, [o(1, 0), o(2, 0)])
})

t.test('aggregates through the pipeline (hand-computed)', async (t) => {
  const input = [o(0, 10), o(10 * S, 20), o(30 * S, 40)]
  const run = (aggregate: string) => collect('formula', { pins: { P1: { dataPointID: 'a', data_range: { count: 3 }, aggregate } }, parameters: { formula: 'P1' } }, { P1: input })
  t.same(run('last'), [o(0, 10), o(10 * S, 20), o(30 * S, 40)])
  t.same(run('first'), [o(0, 10), o(10 * S, 10), o(30 * S, 10)])
  t.same(run('sum'), [o(0, 10), o(10 * S, 30), o(30 * S, 70)])
  t.same(run('mean'), [o(0, 10), o(10 * S, 15), o(30 * S, 70 / 3)])
  t.same(run('median'), [o(0, 10), o(10 * S, 15), o(30 * S, 20)])
  t.same(run('max'), [o(0, 10), o(10 * S, 20), o(30 * S, 40)])
  t.same(run('min'), [o(0, 10), o(10 * S, 10), o(30 * S, 10)])
  t.same(run('timeweighted_mean'), [o(0, 10), o(10 * S, 10), o(30 * S, 500 / 30)])
  t.same(run('integral'), [o(0, 0), o(10 * S, 100), o(30 * S, 500)])
})

t.test('default pin: the newest value (count 1, max)', async (t) => {
  const out = collect('formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } }, { P1: [o(5, 1), o(3, 2), o(7, 3)] })
  t.same(out, [o(5, 1), o(7, 3)], 'the late observation is dropped by the window')
})

t.test('out-of-order and duplicate observations recompute the newest time', async (t) => {
  const body = { pins: { P1: { dataPointID: 'a', data_range: { time: '1m' }, aggregate: 'sum' } }, parameters: { formula: 'P1' } }
  const out = collect('formula', body, { P1: [o(10 * S, 1), o(30 * S, 2), o(20 * S, 4), o(30 * S, 8), o(5 * S, 100), o(75 * S, 16)] })
  t.same(out, [o(10 * S, 1), o(30 * S, 3), o(30 * S, 7), o(30 * S, 13), o(30 * S, 113), o(75 * S, 28)],
    '20 s inserted, 30 s replaced, 5 s still inside the minute; at 75 s the window (15 s, 75 s] holds 20 s, 30 s and 75 s')
})

t.test('a 1h window across the 2024 DST change date keeps exactly one hour (UTC)', async (t) => {
  const start = iso('2024-03-31T00:00:00Z')
  const input = Array.from({ length: 13 }, (_, i) => o(start + i * 15 * M, 1)) // 00:00 .. 03:00Z, value 1
  const out = collect('formula', { pins: { P1: { dataPointID: 'a', data_range: { time: '1h' }, aggregate: 'sum' } }, parameters: { formula: 'P1' } }, { P1: input })
  t.same(out.map((x) => x.value), [1, 2, 3, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4], 'four quarter hours in (t − 1h, t], also around 01:00Z')
  t.equal(out[4].time, iso('2024-03-31T01:00:00Z'))
  const integral = collect('formula', { pins: { P1: { dataPointID: 'a', data_range: { time: '1h' }, aggregate: 'integral' } }, parameters: { formula: 'P1' } }, { P1: input })
  t.equal(integral.at(-1)!.value, 45 * 60, 'value 1 held from 02:15 to 03:00Z: 45 min in seconds')
})

t.test('minute triggers: one calculation per boundary for pins sharing it', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const config = parseVdpConfig('formula', {
      pins: {
        P1: { dataPointID: 'a', trigger: 'every_minute', data_range: { count: 10 }, aggregate: 'mean' },
        P2: { dataPointID: 'b', trigger: 'every_minute' },
      },
      parameters: { formula: 'P1 + P2' },
    })
    const inputs: Record<string, Observable<Obs>> = {
      P1: cold('10s a 9999ms b 49999ms c', { a: o(10 * S, 1), b: o(20 * S, 3), c: o(70 * S, 5) }),
      P2: cold('30s a', { a: o(30 * S, 100) }),
    }
    const result = buildPipeline(config, (n) => inputs[n])
    expectObservable(result, '^ 150s !').toBe('60s x 59999ms y', { x: o(60 * S, 102), y: o(120 * S, 103) })
  })
})

t.test('mixed triggers: an every_value pin computes at once, a minute pin at its boundaries', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const config = parseVdpConfig('formula', {
      pins: { P1: { dataPointID: 'a' }, P2: { dataPointID: 'b', trigger: 'every_minute' } },
      parameters: { formula: 'P1 * P2' },
    })
    const inputs: Record<string, Observable<Obs>> = {
      P1: cold('10s a 79999ms b', { a: o(10 * S, 2), b: o(90 * S, 3) }),
      P2: cold('20s a', { a: o(20 * S, 10) }),
    }
    expectObservable(buildPipeline(config, (n) => inputs[n]), '^ 150s !').toBe('60s x 29999ms y 29999ms z', {
      x: o(60 * S, 20), y: o(90 * S, 30), z: o(120 * S, 30),
    })
  })
})

t.test('gradient: the last two raw observations, whatever data_range and aggregate say', async (t) => {
  const body = { pins: { input: { dataPointID: 'meter', data_range: { count: 10 }, aggregate: 'sum' } }, parameters: { factorization: 3600 } }
  // a kWh meter: +0.5 kWh per 15 min is 2 kW; then +1 kWh in 15 min is 4 kW
  const out = collect('gradient', body, { input: [o(0, 100), o(900 * S, 100.5), o(1800 * S, 101.5)] })
  t.same(out, [o(900 * S, 2), o(1800 * S, 4)])
})

t.test('gradient: first output after two observations; equal times give nothing; late ones recompute', async (t) => {
  const body = { pins: { input: { dataPointID: 'x' } }, parameters: {} }
  t.same(collect('gradient', body, { input: [o(10 * S, 5)] }), [])
  t.same(collect('gradient', body, { input: [o(0, 0), o(10 * S, 10), o(10 * S, 20)] }), [o(10 * S, 1), o(10 * S, 2)], 'a duplicate replaces the newest value')
  t.same(collect('gradient', body, { input: [o(0, 0), o(10 * S, 10), o(5 * S, 0)] }), [o(10 * S, 1), o(10 * S, 2)], 'a late observation between the two newest')
  t.same(collect('gradient', body, { input: [o(10 * S, 10), o(20 * S, 30), o(5 * S, 0)] }), [o(20 * S, 2)], 'older than both: dropped')
})

t.test('gradient: a minute trigger writes the latest gradient each minute', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const config = parseVdpConfig('gradient', { pins: { input: { dataPointID: 'x', trigger: 'every_minute' } }, parameters: { factorization: 60 } })
    const input = cold('10s a 9999ms b 29999ms c', { a: o(10 * S, 0), b: o(20 * S, 1), c: o(50 * S, 2) })
    expectObservable(buildPipeline(config, () => input), '^ 130s !').toBe('60s x 59999ms y', { x: o(60 * S, 2), y: o(120 * S, 2) })
  })
})

t.test('absolute humidity: waits for humidity and temperature, pressure optional', async (t) => {
  const h = harness('absolute_humidity', {
    pins: { relative_humidity: { dataPointID: 'rh' }, temperature: { dataPointID: 't' }, pressure: { dataPointID: 'p' } },
    parameters: { relative_humidity_unit: 'percent', pressure_unit: 'hPa' },
  })
  h.send('relative_humidity', o(1, 50))
  t.same(h.out, [])
  h.send('temperature', o(2, 20))
  t.equal(h.out.length, 1)
  t.equal(h.out[0].time, 2)
  t.ok(Math.abs(h.out[0].value - 8.6611) < 1e-4, 'standard pressure until the pressure pin has a value')
  h.send('pressure', o(3, 800))
  t.equal(h.out.length, 2)
  t.ok(h.out[1].value < h.out[0].value, 'then the measured pressure')
})

t.test('absolute humidity without a pressure pin', async (t) => {
  const out = collect('absolute_humidity', { pins: { temperature: { dataPointID: 't' }, relative_humidity: { dataPointID: 'rh' } } }, {
    relative_humidity: [o(1, 0.5)], temperature: [o(2, 293.15 - 273.15)],
  })
  t.equal(out.length, 1)
  t.ok(Math.abs(out[0].value - 8.6611) < 1e-4)
})

t.test('counter: accumulates from default_init_value; a restart continues from the stored total', async (t) => {
  const body = { pins: { energy: { dataPointID: 'e' } }, parameters: { formula: 'if(energy > 0, energy, null)', default_init_value: 10 } }
  t.same(collect('counter', body, { energy: [o(1, 1), o(2, -5), o(3, 2), o(4, 3)] }), [o(1, 11), o(3, 13), o(4, 16)])
  t.same(collect('counter', body, { energy: [o(5, 4)] }, { initialCounter: 16 }), [o(5, 20)])
})

t.test('counter: each subscription has its own total', async (t) => {
  const config = parseVdpConfig('counter', { pins: { a: { dataPointID: 'a' } }, parameters: { formula: 'a' } })
  const p = buildPipeline(config, () => from([o(1, 1), o(2, 1)]))
  const out: number[] = []
  p.subscribe((x) => out.push(x.value))
  p.subscribe((x) => out.push(x.value))
  t.same(out, [1, 2, 1, 2])
})

t.test('completes when the inputs complete; unsubscribing releases the inputs', async (t) => {
  let done = false
  buildPipeline(parseVdpConfig('formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } }), () => from([o(1, 1)]))
    .subscribe({ complete: () => { done = true } })
  t.ok(done)
  const h = harness('formula', { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1' } })
  t.ok(h.subjects.get('P1')!.observed)
  h.sub.unsubscribe()
  t.notOk(h.subjects.get('P1')!.observed)
})

t.test('restart: vectors whose output is already stored are not calculated, so a counter counts nothing twice', async (t) => {
  const body = { pins: { flow: { dataPointID: 'f', data_range: { count: 2 }, aggregate: 'sum' } }, parameters: { formula: 'flow' } }
  // The previous run stored outputs up to time 2 with the total 13 (10 + 1 + (1 + 2)).
  let replaying = true
  const input = new Subject<Obs>()
  const out: Obs[] = []
  buildPipeline(parseVdpConfig('counter', body), () => input, { initialCounter: 13, alreadyStored: (time) => replaying && time <= 2 }).subscribe((x) => out.push(x))
  input.next(o(1, 1))
  input.next(o(2, 2))
  replaying = false
  input.next(o(3, 4))
  t.same(out, [o(3, 19)], 'the rebuilt window (2, 4) adds 6 to the stored 13')
  const gradient = parseVdpConfig('gradient', { pins: { input: { dataPointID: 'x' } } })
  const g: Obs[] = []
  buildPipeline(gradient, () => from([o(0, 0), o(S, 1), o(2 * S, 3)]), { alreadyStored: (time) => time <= S }).subscribe((x) => g.push(x))
  t.same(g, [o(2 * S, 2)], 'the gradient drops its stored outputs too')
})
