import t from 'tap'
import { from, throwError } from 'rxjs'
import type { Calculator } from '../../../engine/vdp/calculators.ts'
import { calculate } from '../../../engine/vdp/operators/calculate.ts'
import type { Combined, Obs } from '../../../engine/vdp/types.ts'

const c = (time: number, ...values: (number | null)[]): Combined => ({ time, values })
const sum: Calculator = { calculate: (v) => (v.some((x) => x === null) ? null : v.reduce<number>((a, b) => a + (b ?? 0), 0)) }

t.test('applies the calculator, keeps the time, drops null and non-finite results', async (t) => {
  const out: Obs[] = []
  const odd: Calculator = { calculate: ([x]) => (x === 2 ? Infinity : x === 3 ? NaN : sum.calculate([x])) }
  from([c(1, 1, 2), c(2, null, 2), c(3, 4, 4)]).pipe(calculate(sum)).subscribe((x) => out.push(x))
  t.same(out, [{ time: 1, value: 3 }, { time: 3, value: 8 }])
  const out2: Obs[] = []
  from([c(1, 2), c(2, 3), c(3, 4)]).pipe(calculate(odd)).subscribe((x) => out2.push(x))
  t.same(out2, [{ time: 3, value: 4 }])
})

t.test('a factory gives every subscription its own calculator', async (t) => {
  let made = 0
  const counting = () => {
    made++
    let total = 0
    return { calculate: ([x]: readonly (number | null)[]) => (total += x ?? 0) }
  }
  const src = from([c(1, 1), c(2, 1)])
  const op = calculate(counting)
  const a: number[] = []
  src.pipe(op).subscribe((x) => a.push(x.value))
  src.pipe(op).subscribe((x) => a.push(x.value))
  t.equal(made, 2)
  t.same(a, [1, 2, 1, 2])
})

t.test('a calculator that throws errors the stream; errors pass through', async (t) => {
  const boom = new Error('boom')
  let failed: unknown
  from([c(1, 1)]).pipe(calculate({ calculate: () => { throw boom } })).subscribe({ error: (e) => { failed = e } })
  t.equal(failed, boom)
  failed = undefined
  throwError(() => boom).pipe(calculate(sum)).subscribe({ error: (e) => { failed = e } })
  t.equal(failed, boom)
})
