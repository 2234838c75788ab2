// The shared decimal scanner (protocol/decimal.ts) on strings, as CSV fields use it: grammar,
// correct rounding against Number(), refusals (1e-400 included) and the decimal comma.
import t from 'tap'
import { scanDecimal } from '../../protocol/decimal.ts'

const f = (s: string, comma = false) => scanDecimal(s, 0, s.length, comma)

t.test('accepted numbers', async t => {
  const cases: [string, number][] = [
    ['0', 0], ['1', 1], ['-1', -1], ['+1', 1], ['23.5', 23.5], ['-0.25', -0.25], ['5.', 5], ['.5', 0.5],
    ['-.5', -0.5], ['1e3', 1000], ['1E3', 1000], ['1e+3', 1000], ['1.5e-3', 0.0015], ['-2.5E2', -250],
    ['007', 7], ['0.1', 0.1], ['0.3', 0.3], ['123456789012345', 123456789012345],
    ['1234567890123456789', 1234567890123456789], ['0.000000000000000000001', 1e-21],
    ['3.141592653589793238462643', Math.PI], ['1.7976931348623157e308', Number.MAX_VALUE],
    ['5e-324', 5e-324], ['0e99999999', 0], ['12345678901234567890e-5', 123456789012345.67890],
  ]
  for (const [s, v] of cases) t.equal(f(s), v, s)
  t.ok(Object.is(f('-0'), -0))
})

t.test('results equal Number() for many random decimals (correct rounding)', async t => {
  let bad = 0
  let seed = 12345
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  for (let i = 0; i < 20000; i++) {
    const digits = Math.floor(rnd() * 20) + 1
    let s = ''
    for (let k = 0; k < digits; k++) s += Math.floor(rnd() * 10)
    const dot = Math.floor(rnd() * (digits + 1))
    s = s.slice(0, dot) + '.' + s.slice(dot)
    if (rnd() < 0.3) s += 'e' + (Math.floor(rnd() * 60) - 30)
    if (rnd() < 0.5) s = '-' + s
    if (s.includes('.e') && s.startsWith('-.')) continue
    const want = Number(s)
    if (Number.isNaN(want)) continue
    if (!Object.is(f(s), want)) { bad++; if (bad < 5) t.comment(s, f(s), want) }
  }
  t.equal(bad, 0)
})

t.test('rejected', async t => {
  for (const s of ['', '+', '-', '.', 'e5', '.e5', '1e', '1e+', 'NaN', 'nan', 'Infinity', '-Infinity', 'inf',
    '0x10', '0b1', '1_000', '1 000', '1.2.3', '1,5', 'abc', '12a', '1e400', '-1e400', '1..2', '--1', '+-1',
    '1e-400', '-2.5E-999', '0.1e-330']) // issue 29: non-zero literals that underflow to 0
    t.ok(Number.isNaN(f(s)), JSON.stringify(s))
  t.equal(f('0e-400'), 0, 'zero with a large negative exponent is zero')
  t.equal(f('5e-324'), 5e-324, 'the smallest subnormal is read')
})

t.test('decimal comma only when enabled', async t => {
  t.equal(f('1,5', true), 1.5)
  t.equal(f('-0,25', true), -0.25)
  t.equal(f('1.5', true), 1.5, 'a point is still accepted')
  t.equal(f('1234567890,1234567890', true), 1234567890.123456789)
  t.ok(Number.isNaN(f('1,5', false)))
  t.ok(Number.isNaN(f('1,000,5', true)), 'no thousands separators')
  t.ok(Number.isNaN(f('1.000,5', true)))
})

t.test('parses a sub-range in place', async t => {
  const s = 'abc,23.25,xyz'
  t.equal(scanDecimal(s, 4, 9, false), 23.25)
})
