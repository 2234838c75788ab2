import t from 'tap'
import { from, Observable } from 'rxjs'
import { aggregateWith } from '../../../engine/stream/aggregate-with.ts'
import type { Obs } from '../../../engine/stream/types.ts'

const o = (time: number, value: number): Obs => ({ time, value })

t.test('emits the aggregate stamped with the newest time of the window', async (t) => {
  const out: Obs[] = []
  from([[o(1, 5)], [o(1, 5), o(3, 2)], [o(1, 5), o(3, 2), o(4, 8)]]).pipe(aggregateWith('mean')).subscribe((x) => out.push(x))
  t.same(out, [o(1, 5), o(3, 3.5), o(4, 5)])
})

t.test('an empty window emits nothing', async (t) => {
  const out: Obs[] = []
  from([[], [o(2, 1)]]).pipe(aggregateWith('max')).subscribe((x) => out.push(x))
  t.same(out, [o(2, 1)])
})

t.test('integral of one observation is 0, emitted', async (t) => {
  const out: Obs[] = []
  from([[o(7, 100)]]).pipe(aggregateWith('integral')).subscribe((x) => out.push(x))
  t.same(out, [o(7, 0)])
})

t.test('completion and errors pass through', async (t) => {
  let completed = false
  let failed: unknown
  from([[o(1, 1)]]).pipe(aggregateWith('last')).subscribe({ complete: () => { completed = true } })
  t.ok(completed)
  const boom = new Error('boom')
  new Observable<Obs[]>((s) => s.error(boom)).pipe(aggregateWith('last')).subscribe({ error: (e) => { failed = e } })
  t.equal(failed, boom)
})
