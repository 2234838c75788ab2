// The rxjs scheduler of the shared clock: time triggers (trigger.ts) and coalescing run on the
// virtual clock in tests, minute by minute, without waiting; the system clock is rxjs's own.
import t from 'tap'
import { asyncScheduler, Subject } from 'rxjs'
import { MINUTE_US, SECOND_US, systemClock } from '../../../core/clock/clock.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { schedulerOf } from '../../../engine/stream/clock-scheduler.ts'
import { triggerOn } from '../../../engine/stream/trigger.ts'
import type { Obs } from '../../../engine/stream/types.ts'

t.test('every_minute on the virtual clock: one output per whole minute with the latest value', async (t) => {
  const minute = 28_333_334 * MINUTE_US // a whole minute (2023-11-14T22:14:00Z)
  const clock = new VirtualClock(minute + 30 * SECOND_US)
  const input = new Subject<Obs>()
  const out: Obs[] = []
  const sub = input.pipe(triggerOn('every_minute', schedulerOf(clock))).subscribe((o) => out.push(o))
  clock.advance(29 * SECOND_US)
  input.next({ time: 1, value: 5 })
  t.same(out, [], 'not before the boundary')
  clock.advance(SECOND_US)
  t.same(out, [{ time: minute + MINUTE_US, value: 5 }], 'at the next whole minute, stamped with it')
  input.next({ time: 2, value: 7 })
  clock.advance(3 * MINUTE_US)
  t.same(out.map((o) => o.value), [5, 7, 7, 7])
  t.same(out.map((o) => (o.time / MINUTE_US) % 1), [0, 0, 0, 0], 'every one on a whole minute')
  sub.unsubscribe()
  t.equal(clock.pending, 0, 'unsubscribing cancels the timer')
  clock.advance(MINUTE_US)
  t.equal(out.length, 4)
})

t.test('the system clock is rxjs asyncScheduler (no extra hop on the hot path)', async (t) => {
  t.equal(schedulerOf(systemClock), asyncScheduler)
  const clock = new VirtualClock()
  t.equal(schedulerOf(clock).now(), clock.now() / 1000, 'rxjs counts in ms')
})
