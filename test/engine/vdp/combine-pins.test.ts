import t, { type Test } from 'tap'
import { of, Subject } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { combinePins } from '../../../engine/vdp/operators/combine-pins.ts'
import type { Combined, Obs } from '../../../engine/vdp/types.ts'

const scheduler = (t: Test) => new TestScheduler((actual, expected) => t.same(actual, expected))
const o = (time: number, value: number): Obs => ({ time, value })
const c = (time: number, ...values: (number | null)[]): Combined => ({ time, values })

t.test('waits for every required pin, then emits on each emission with the emitting time', async (t) => {
  const a = new Subject<Obs>()
  const b = new Subject<Obs>()
  const out: Combined[] = []
  combinePins([{ source: a }, { source: b }]).subscribe((x) => out.push(x))
  a.next(o(1, 10))
  a.next(o(2, 11))
  t.same(out, [], 'b has no value yet')
  b.next(o(3, 20))
  a.next(o(4, 12))
  b.next(o(2, 21)) // an older time from b: the vector takes b's time
  t.same(out, [c(3, 11, 20), c(4, 12, 20), c(2, 12, 21)])
})

t.test('optional pins use their default until they have a value', async (t) => {
  const a = new Subject<Obs>()
  const p = new Subject<Obs>()
  const out: Combined[] = []
  combinePins([{ source: a }, { source: p, required: false, default: 5 }, { source: of(), required: false }]).subscribe((x) => out.push(x))
  a.next(o(1, 1))
  p.next(o(2, 7))
  a.next(o(3, 2))
  t.same(out, [c(1, 1, 5, null), c(2, 1, 7, null), c(3, 2, 7, null)])
})

t.test('an optional pin alone can emit once required pins have values, and before if none is required', async (t) => {
  const out: Combined[] = []
  combinePins([{ source: of(o(1, 3)), required: false }]).subscribe((x) => out.push(x))
  t.same(out, [c(1, 3)])
})

t.test('completes when all pins complete; errors pass through; no pins completes at once', async (t) => {
  const a = new Subject<Obs>()
  const b = new Subject<Obs>()
  let done = false
  combinePins([{ source: a }, { source: b }]).subscribe({ complete: () => { done = true } })
  a.complete()
  t.notOk(done)
  b.complete()
  t.ok(done)
  const boom = new Error('boom')
  let failed: unknown
  const x = new Subject<Obs>()
  combinePins([{ source: x }]).subscribe({ error: (e) => { failed = e } })
  x.error(boom)
  t.equal(failed, boom)
  let empty = false
  combinePins([]).subscribe({ complete: () => { empty = true } })
  t.ok(empty)
})

t.test('coalesced pins emitting at one instant give one vector', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    // two minute-triggered pins emit at the same frames; an every_value pin in between
    const p1 = cold('1s a 999ms b', { a: o(1000, 1), b: o(2000, 2) })
    const p2 = cold('1s a 999ms b', { a: o(1000, 10), b: o(2000, 20) })
    const p3 = cold('1500ms a', { a: o(1500, 100) })
    const result = combinePins([{ source: p1, coalesce: true }, { source: p2, coalesce: true }, { source: p3, required: false }])
    expectObservable(result, '^ 3s !').toBe('1s x 499ms y 499ms z', {
      x: c(1000, 1, 10, null), y: c(1500, 1, 10, 100), z: c(2000, 2, 20, 100),
    })
  })
})

t.test('a pending coalesced vector is emitted before completion', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const p1 = cold('(a|)', { a: o(0, 1) }) // completes before the scheduled emission
    expectObservable(combinePins([{ source: p1, coalesce: true }])).toBe('(x|)', { x: c(0, 1) })
  })
})
