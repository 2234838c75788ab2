// Listenable hot streams (engine/stream/channel.ts) and the live path built on them: the
// observation bus, the lateness watch (tapValues) and the fused pipeline listen without a
// Subscriber per value, and must behave as the Observables they replace: nobody skipped when
// a listener leaves during delivery, errors of a stage reach the consumer instead of the
// publisher, unsubscribing stops delivery and frees the bus's entry.
import t from 'tap'
import { from, lastValueFrom, Observable, toArray } from 'rxjs'
import { Fanout, isListenable, Listeners, tapValues } from '../../../engine/stream/channel.ts'
import { ObservationBus } from '../../../engine/observation-bus.ts'
import { fusedCombine } from '../../../engine/vdp/fused-pipeline.ts'
import { formulaCalculator } from '../../../engine/vdp/calculators.ts'
import { compileFormula } from '../../../formulas/index.ts'
import type { Obs } from '../../../engine/stream/types.ts'

const o = (time: number, value: number): Obs => ({ time, value })

t.test('Listeners: one leaving during delivery skips no one; the same function added twice leaves once per stop', async (t) => {
  let emptied = 0
  const ls = new Listeners<number>(() => { emptied++ })
  const seen: string[] = []
  const stopA = ls.add((v) => { seen.push(`a${v}`); stopA() })
  ls.add((v) => seen.push(`b${v}`))
  ls.next(1)
  ls.next(2)
  t.same(seen, ['a1', 'b1', 'b2'], 'b got 1 although a left while 1 was delivered')
  const twice: number[] = []
  const f = (v: number) => twice.push(v)
  const s1 = ls.add(f)
  const s2 = ls.add(f)
  ls.next(3)
  s1()
  s1() // a second stop of the same registration changes nothing
  ls.next(4)
  t.same(twice, [3, 3, 4], 'f stays registered once after one of its two stops')
  t.equal(ls.size, 2)
  s2()
  t.equal(emptied, 0)
  ls.add(() => {})() // the last one of a fresh registration leaving
  t.equal(ls.size, 1)
})

t.test('Listeners: one removed by an earlier one during a delivery does not get that value', async (t) => {
  const ls = new Listeners<number>()
  const seen: string[] = []
  let stopB = () => {}
  ls.add((v) => { seen.push(`a${v}`); stopB() })
  stopB = ls.add((v) => seen.push(`b${v}`))
  ls.next(1)
  ls.next(2)
  t.same(seen, ['a1', 'a2'], 'b left before its turn: as a closed Subscriber, it gets nothing more')
})

t.test('Listeners: told when the last listener left', async (t) => {
  let emptied = 0
  const ls = new Listeners<number>(() => { emptied++ })
  const a = ls.add(() => {})
  const b = ls.add(() => {})
  a()
  t.equal(emptied, 0)
  b()
  t.equal(emptied, 1)
})

t.test('Fanout: listenable and subscribable alike, unsubscribe stops delivery', async (t) => {
  const f = new Fanout<number>()
  t.ok(isListenable(f.observable))
  const listened: number[] = []
  const subscribed: number[] = []
  const stop = f.observable.listen((v) => listened.push(v))
  const sub = f.observable.subscribe((v) => subscribed.push(v))
  f.next(1)
  stop()
  sub.unsubscribe()
  f.next(2)
  t.same(listened, [1])
  t.same(subscribed, [1])
})

t.test('ObservationBus: listeners per series, the entry freed when the last one leaves', async (t) => {
  const bus = new ObservationBus()
  const a: Obs[] = []
  const b: Obs[] = []
  const stopA = bus.series(1).listen((x) => a.push(x))
  const subB = bus.series(1).subscribe((x) => b.push(x))
  bus.publish([{ series: 1, time: 1, value: 10 }, { series: 2, time: 1, value: 20 }, { series: 1, time: 2, value: 11 }])
  t.same(a, [o(1, 10), o(2, 11)])
  t.same(b, [o(1, 10), o(2, 11)])
  stopA()
  subB.unsubscribe()
  t.equal((bus as unknown as { bySeries: Map<number, unknown> }).bySeries.size, 0, 'no entry for a series nobody listens to')
  bus.publish([{ series: 1, time: 3, value: 12 }])
  t.equal(a.length, 2)
  // A listener that comes back after the entry was freed gets a fresh one.
  const again: Obs[] = []
  const stop = bus.series(1).listen((x) => again.push(x))
  bus.publish([{ series: 1, time: 4, value: 13 }])
  stop()
  t.same(again, [o(4, 13)])
})

t.test('tapValues: calls f before passing on, on listenable and cold sources; a throwing f fails the stream, not the publisher', async (t) => {
  const seenCold: number[] = []
  t.same(await lastValueFrom(tapValues(from([1, 2]), (v) => seenCold.push(v)).pipe(toArray())), [1, 2])
  t.same(seenCold, [1, 2])

  const f = new Fanout<number>()
  const tapped = tapValues(f.observable, (v) => { if (v === 2) throw new Error('bad value') })
  if (!isListenable(tapped)) throw new Error('tapValues of a listenable source is listenable: no operator hop')
  const got: number[] = []
  const errors: unknown[] = []
  const stop = tapped.listen((v) => got.push(v), (err) => errors.push(err))
  f.next(1)
  t.doesNotThrow(() => f.next(2), 'the publisher does not see the error')
  f.next(3)
  stop()
  t.same(got, [1, 3], 'the failed value does not reach the listener')
  t.match(errors, [/bad value/])

  // Subscribed as an Observable, the error ends the subscription.
  const g = new Fanout<number>()
  const subscribedErrors: unknown[] = []
  tapValues(g.observable, () => { throw new Error('always') }).subscribe({ error: (err) => subscribedErrors.push(err) })
  g.next(1)
  t.match(subscribedErrors, [/always/])
})

t.test('fusedCombine: listens to listenable inputs, never completes on them, completes when only cold inputs end', async (t) => {
  const calc = formulaCalculator(compileFormula('P1+P2;', ['P1', 'P2']))
  const pin = (input: Observable<Obs>) => ({ input, range: { kind: 'none' } as const, aggregate: 'last' as const, required: true })
  const p1 = new Fanout<Obs>()
  const out: Obs[] = []
  let completed = false
  const sub = fusedCombine([pin(p1.observable), pin(from([o(1, 5)]))], calc).subscribe({ next: (x) => out.push(x), complete: () => { completed = true } })
  p1.next(o(2, 1))
  p1.next(o(3, 2))
  t.same(out, [o(2, 6), o(3, 7)])
  t.notOk(completed, 'a live input keeps it open although the cold one ended')
  sub.unsubscribe()
  p1.next(o(4, 3))
  t.equal(out.length, 2, 'nothing after unsubscribe')

  let coldDone = false
  const cold: Obs[] = []
  fusedCombine([pin(from([o(1, 1)])), pin(from([o(2, 2)]))], calc).subscribe({ next: (x) => cold.push(x), complete: () => { coldDone = true } })
  t.same(cold, [o(2, 3)], 'the second cold input is subscribed although the first completed within its subscribe')
  t.ok(coldDone)
})

t.test('fusedCombine: a step that throws on a listened value fails the stream and stops listening', async (t) => {
  const throwing = { calculate: () => { throw new Error('calculator bug') } }
  const p1 = new Fanout<Obs>()
  const errors: unknown[] = []
  fusedCombine([{ input: p1.observable, range: { kind: 'none' }, aggregate: 'last', required: true }], throwing).subscribe({ error: (err) => errors.push(err) })
  t.doesNotThrow(() => p1.next(o(1, 1)))
  t.match(errors, [/calculator bug/])
  p1.next(o(2, 2))
  t.equal(errors.length, 1, 'unsubscribed by the error: not called again')
})
