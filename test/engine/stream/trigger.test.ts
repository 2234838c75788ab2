import t, { type Test } from 'tap'
import { from, Subject } from 'rxjs'
import { TestScheduler } from 'rxjs/testing'
import { triggerOn } from '../../../engine/stream/trigger.ts'
import type { Obs } from '../../../engine/stream/types.ts'

// Virtual time: one frame is one millisecond of scheduler.now(); times of Obs are µs.
const scheduler = (t: Test) => new TestScheduler((actual, expected) => t.same(actual, expected))

const o = (ms: number, value: number): Obs => ({ time: ms * 1000, value })

t.test('every_value passes everything through', async (t) => {
  const out: Obs[] = []
  from([o(1, 1), o(2, 2)]).pipe(triggerOn('every_value')).subscribe((x) => out.push(x))
  t.same(out, [o(1, 1), o(2, 2)])
})

t.test('every_minute: the latest value at each minute boundary, stamped with the boundary', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    // values at 10 s (1), 20 s (2), 70 s (3); source completes at 150 s
    const src = cold('10s a 9999ms b 49999ms c 79999ms |', { a: o(10_000, 1), b: o(20_000, 2), c: o(70_000, 3) })
    expectObservable(src.pipe(triggerOn('every_minute'))).toBe('60s x 59999ms y 29999ms |', { x: o(60_000, 2), y: o(120_000, 3) })
  })
})

t.test('every_minute: re-emits an unchanged value every minute; nothing before the first value', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const src = cold('90s a 219999ms |', { a: o(1, 7) }) // a at 90 s, completes at 310 s
    expectObservable(src.pipe(triggerOn('every_minute'))).toBe('120s x 59999ms y 59999ms z 59999ms w 9999ms |', {
      x: o(120_000, 7), y: o(180_000, 7), z: o(240_000, 7), w: o(300_000, 7),
    })
  })
})

t.test('every_minute: boundaries are wall-clock aligned, not relative to the subscription', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const src = cold('a 99s |', { a: o(0, 1) }) // completes 99.001 s after the subscription
    // subscribed at 45 s: the first boundary is 60 s, 15 s later
    expectObservable(src.pipe(triggerOn('every_minute')), '45s ^').toBe('60s x 59999ms y 24000ms |', {
      x: o(60_000, 1), y: o(120_000, 1),
    })
  })
})

t.test('every_hour: on whole UTC hours', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const src = cold('30m a 119m 59999ms |', { a: o(1, 5) }) // completes at 150 min
    expectObservable(src.pipe(triggerOn('every_hour'))).toBe('60m x 59m 59999ms y 29m 59999ms |', {
      x: o(3_600_000, 5), y: o(7_200_000, 5),
    })
  })
})

t.test('unsubscribing stops the timer; errors pass through', async (t) => {
  scheduler(t).run(({ cold, expectObservable }) => {
    const src = cold('a', { a: o(0, 1) }) // never completes
    expectObservable(src.pipe(triggerOn('every_minute')), '^ 150s !').toBe('60s x 59999ms y', { x: o(60_000, 1), y: o(120_000, 1) })
  })
  scheduler(t).run(({ cold, expectObservable }) => {
    const src = cold('a 70s #', { a: o(0, 1) })
    expectObservable(src.pipe(triggerOn('every_minute'))).toBe('60s x 10s #', { x: o(60_000, 1) })
  })
})

t.test('a late tick stamps the latest boundary passed and keeps the grid', async (t) => {
  // A scheduler whose clock jumps: the tick scheduled for 60 s runs when now() says 185 s.
  let now = 0
  const queue: { at: number; run: () => void }[] = []
  const fake = {
    now: () => now,
    schedule(work: (this: { schedule: (s: unknown, d: number) => void }) => void, delay = 0) {
      const action = {
        closed: false,
        schedule(_s: unknown, d: number) { queue.push({ at: now + d, run: () => work.call(action) }); return action },
        unsubscribe() { action.closed = true },
        add() {}, remove() {},
      }
      queue.push({ at: now + delay, run: () => work.call(action) })
      return action
    },
  }
  const out: Obs[] = []
  from([o(0, 4)]).pipe(triggerOn('every_minute', fake as never)).subscribe((x) => out.push(x))
  t.equal(out.length, 0, 'the source completed: completion stops the trigger')
  // with a source that stays open
  const s = new Subject<Obs>()
  s.pipe(triggerOn('every_minute', fake as never)).subscribe((x) => out.push(x))
  s.next(o(0, 4))
  const first = queue.pop()!
  t.equal(first.at, 60_000)
  now = 185_000
  first.run()
  t.same(out, [o(180_000, 4)], 'the missed 60 s and 120 s are skipped')
  t.equal(queue.at(-1)!.at, 240_000, 'the next tick is on the grid')
})
