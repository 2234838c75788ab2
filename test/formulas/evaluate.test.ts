import t from 'tap'
import { compileFormula } from '../../formulas/index.ts'

const PINS = ['P1', 'P2', 'P3', 'P4', 'P5']

/** Evaluates `source` with P1..P5 = values. */
function ev(source: string, ...values: (number | null)[]): number | null {
  return compileFormula(source, PINS).evaluate(values)
}

t.test('spec example: only the last equation yields the result', async t => {
  t.equal(ev('a=P1+P2;0;', 3, 4), 0)
  t.equal(ev('a=P1+P2;0;', null, null), 0)
  const f = compileFormula('a=P1+P2;0;', PINS)
  t.same(f.inputs, ['P1', 'P2'], 'inputs are the pins the text refers to')
  t.equal(f.constant, true)
})

t.test('final semicolon is optional', async t => {
  t.equal(ev('P1 + 1', 1), 2)
  t.equal(ev('P1 + 1;', 1), 2)
  t.equal(ev('a = P1; a * 3', 2), 6)
})

t.test('precedence and associativity', async t => {
  t.equal(ev('2+3*4'), 14)
  t.equal(ev('2+3x4'), 14)
  t.equal(ev('2 + 3 x 4'), 14)
  t.equal(ev('(2+3)*4'), 20)
  t.equal(ev('(2+3)x(4)'), 20)
  t.equal(ev('10%4'), 2)
  t.equal(ev('-7 % 3'), -1, '% keeps the sign of the dividend')
  t.equal(ev('10-4-3'), 3, 'left-associative')
  t.equal(ev('24/4/3'), 2)
  t.equal(ev('2*3%4'), 2, '* and % at one level, left to right')
  t.equal(ev('-2*3'), -6)
  t.equal(ev('2*-3'), -6)
  t.equal(ev('--2'), 2)
  t.equal(ev('- - -2'), -2)
  t.equal(ev('2--3'), 5)
  t.equal(ev('-(2+3)'), -5)
  t.equal(ev('1 + 2 < 4'), 1, 'comparison binds looser than +')
  t.equal(ev('1 < 2 AND 3 < 2 OR 1'), 1, 'AND binds tighter than OR')
  t.equal(ev('0 OR 1 AND 0'), 0)
  t.equal(ev('(0 OR 1) AND 1'), 1)
})

t.test('x as multiplication', async t => {
  t.equal(ev('2x3'), 6)
  t.equal(ev('2X3'), 6)
  t.equal(ev('P1 x P2', 3, 4), 12)
  t.equal(ev('P1 x2', 3), 6)
  t.equal(ev('2 x P1', 3), 6)
  t.equal(ev('(P1)x(P2)', 3, 4), 12)
  t.equal(ev('2x-3'), -6)
  t.equal(ev('1.5x.5'), 0.75)
  t.equal(ev('P1\nx\nP2', 3, 4), 12)
})

t.test('numbers', async t => {
  t.equal(ev('12'), 12)
  t.equal(ev('1.25'), 1.25)
  t.equal(ev('.5'), 0.5)
  t.equal(ev('5.'), 5)
  t.equal(ev('1e-3'), 0.001)
  t.equal(ev('2.5E6'), 2500000)
  t.equal(ev('1e+2'), 100)
  t.equal(ev('2e3x2'), 4000)
})

t.test('comparisons give 1 or 0', async t => {
  const cases: [string, number][] = [
    ['1 < 2', 1], ['2 < 1', 0], ['2 > 1', 1], ['1 > 1', 0], ['1 <= 1', 1], ['2 <= 1', 0],
    ['1 >= 1', 1], ['0 >= 1', 0], ['1 == 1', 1], ['1 == 2', 0], ['1 != 2', 1], ['1 != 1', 0],
    ['0.1 + 0.2 == 0.3', 0], ['-0 == 0', 1],
  ]
  for (const [src, want] of cases) t.equal(ev(src), want, src)
  t.equal(ev('P1 > 10', 11), 1)
  t.equal(ev('P1 > P2', 1, 2), 0)
  t.equal(ev('P1 <= P2', 2, 2), 1)
})

t.test('AND and OR', async t => {
  t.equal(ev('1 AND 1'), 1)
  t.equal(ev('1 AND 0'), 0)
  t.equal(ev('2 AND -1'), 1, 'nonzero is true')
  t.equal(ev('0 OR 0'), 0)
  t.equal(ev('0 OR 5'), 1)
  t.equal(ev('P1 > 0 and P2 > 0', 1, 1), 1, 'keywords in any case')
  t.equal(ev('P1 > 0 Or P2 > 0', 0, 1), 1)
  t.equal(ev('P1 AND P2 AND P3', 1, 1, 0), 0)
  t.equal(ev('P1 OR P2 OR P3', 0, 0, 3), 1)
  t.equal(ev('P1 AND 1', null), 0, 'null is false')
  t.equal(ev('P1 OR 0', null), 0)
  t.equal(ev('P1 OR 1', null), 1)
  t.equal(ev('P1 AND 0', 1), 0, 'constant false operand')
  t.equal(ev('P1 OR 1', 0), 1, 'constant true operand')
  t.equal(ev('P1 AND P2', 1, 2), 1)
})

t.test('if', async t => {
  t.equal(ev('if(P1 > 10, 1, 2)', 11), 1)
  t.equal(ev('if(P1 > 10, 1, 2)', 10), 2)
  t.equal(ev('if(P1, P2, P3)', null, 1, 2), 2, 'null condition is false')
  t.equal(ev('if(P1 > 10, 1, 2)', null), 2, 'comparison with null is null, hence false')
  t.equal(ev('if(1, P1, P2)', 5, 6), 5)
  t.equal(ev('if(0, P1, P2)', 5, 6), 6)
  t.equal(ev('IF(P1, 1, null)', 0), null)
  t.equal(ev('if(P1, if(P2, 1, 2), 3)', 1, 0), 2)
  t.equal(ev('if(P1, 1/0, 2)', 0), 2, 'only the chosen branch counts')
})

t.test('elif', async t => {
  const f = compileFormula('elif(P1 < 0, -1, P1 < 10, 1, P1 < 100, 2, else, 3)', PINS)
  t.equal(f.evaluate([-5]), -1)
  t.equal(f.evaluate([5]), 1)
  t.equal(f.evaluate([50]), 2)
  t.equal(f.evaluate([500]), 3)
  t.equal(f.evaluate([null]), 3, 'null conditions are false')
  t.equal(ev('elif(P1, 10, else, 20)', 1), 10)
  t.equal(ev('elif(P1, 10, else, 20)', 0), 20)
  t.equal(ev('elif(P1, 10, ELSE, null)', 0), null)
  t.equal(ev('elif(0, 1, P1, 2, 1, 3, P2, 4, else, 5)', 0, 1), 3, 'constant conditions')
  // Many pairs (the loop form).
  const pairs = Array.from({ length: 12 }, (_, i) => `P1 == ${i}, ${i * 10}`).join(', ')
  const g = compileFormula(`elif(${pairs}, else, -1)`, PINS)
  for (let i = 0; i < 12; i++) t.equal(g.evaluate([i]), i * 10)
  t.equal(g.evaluate([99]), -1)
})

t.test('functions', async t => {
  t.equal(ev('min(3, 1, 2)'), 1)
  t.equal(ev('max(3, 1, 2)'), 3)
  t.equal(ev('min(P1)', 4), 4)
  t.equal(ev('max(P1, P2)', 4, 5), 5)
  t.equal(ev('min(P1, P2)', 4, 5), 4)
  t.equal(ev('max(P1, P2, P3, P4, P5)', 4, 5, 9, 1, 2), 9)
  t.equal(ev('MAX(1, 2)'), 2, 'function names in any case')
  t.equal(ev('mean(1, 2, 3, 4)'), 2.5)
  t.equal(ev('mean(P1, P2)', 1, 2), 1.5)
  t.equal(ev('median(3, 1, 2)'), 2)
  t.equal(ev('median(4, 1, 3, 2)'), 2.5, 'even count: mean of the two middle values')
  t.equal(ev('median(P1, P2, P3, P4)', 10, -1, 7, 3), 5)
  t.equal(ev('median(P1)', 7), 7)
  t.equal(ev('abs(-3.5)'), 3.5)
  t.equal(ev('abs(P1)', -2), 2)
  t.equal(ev('sin(0)'), 0)
  t.equal(ev('cos(0)'), 1)
  t.ok(Math.abs((ev('tan(P1)', Math.PI / 4) as number) - 1) < 1e-12)
  t.ok(Math.abs((ev('sin(P1)', Math.PI / 2) as number) - 1) < 1e-12, 'radians')
})

t.test('round', async t => {
  t.equal(ev('round(2.4)'), 2)
  t.equal(ev('round(2.5)'), 3, 'half away from zero')
  t.equal(ev('round(-2.5)'), -3)
  t.equal(ev('round(-0.4)'), 0)
  t.ok(!Object.is(ev('round(-0.4)'), -0), 'no negative zero')
  t.equal(ev('round(3.14159, 2)'), 3.14)
  t.equal(ev('round(1.005, 2)'), 1.01)
  t.equal(ev('round(2.675, 2)'), 2.68)
  t.equal(ev('round(-1.005, 2)'), -1.01)
  t.equal(ev('round(1234.5, 0)'), 1235)
  t.equal(ev('round(1234, -2)'), 1200)
  t.equal(ev('round(1250, -2)'), 1300)
  t.equal(ev('round(P1, P2)', 1.23456, 3), 1.235, 'computed digits')
  t.equal(ev('round(P1, P2)', 1.23456, 1.5), null, 'computed digits not whole: null')
  t.equal(ev('round(P1, P2)', 1.23456, 16), null, 'computed digits out of range: null')
  t.equal(ev('round(P1, 2)', 1e300), 1e300)
  t.equal(ev('round(P1, P2)', 1, null), null)
})

t.test('null', async t => {
  t.equal(ev('null'), null)
  t.equal(ev('NULL'), null)
  t.equal(ev('null + 1'), null)
  t.equal(ev('P1 + 1', null), null, 'a missing pin value')
  t.equal(ev('P1 + 1'), null, 'undefined counts as null')
  t.equal(ev('P1 + 1', NaN), null, 'NaN input counts as null')
  t.equal(ev('P1 + 1', Infinity), null, 'infinite input counts as null')
  t.equal(ev('P1 * 0', null), null)
  t.equal(ev('-P1', null), null)
  t.equal(ev('P1 < 1', null), null)
  t.equal(ev('P1 == null', null), 1, '== treats null as a value')
  t.equal(ev('P1 == null', 0), 0)
  t.equal(ev('P1 != null', 0), 1)
  t.equal(ev('P1 == P2', null, null), 1)
  for (const fn of ['min', 'max', 'mean', 'median']) {
    t.equal(ev(`${fn}(P1, P2, 3)`, 1, null), null, fn)
    t.equal(ev(`${fn}(1, null)`), null, fn + ' constant')
  }
  for (const fn of ['abs', 'sin', 'cos', 'tan', 'round']) t.equal(ev(`${fn}(P1)`, null), null, fn)
  t.equal(ev('a = P1; b = a * 2; b + 1', null), null)
  t.equal(ev('a = null; if(a == null, 7, a)'), 7)
  t.equal(ev('if(P1 > 10, P1, null)', 5), null)
})

t.test('division and modulo by zero, overflow', async t => {
  t.equal(ev('1/0'), null)
  t.equal(ev('0/0'), null)
  t.equal(ev('P1/0', 5), null)
  t.equal(ev('P1/P2', 5, 0), null)
  t.equal(ev('5 % 0'), null)
  t.equal(ev('P1 % P2', 5, 0), null)
  t.equal(ev('P1 % 0', 5), null)
  t.equal(ev('1e308 * 10'), null, 'overflow')
  t.equal(ev('P1 * P1', 1e200), null)
  t.equal(ev('P1 + P1', 1.7e308), null)
  t.equal(ev('P1 / 0.1', 1.7e308), null)
  t.equal(ev('mean(P1, P1)', 1.7e308), null)
  t.equal(ev('1 / (P1 * 10)', 1e308), null, 'null propagates from the overflow, no 1/Infinity = 0')
  t.equal(ev('P1 / P2', 6, 3), 2)
})

t.test('variables over several equations', async t => {
  t.equal(ev('a = P1 + P2; b = a * 2; c = b - P3; c', 1, 2, 3), 3)
  t.equal(ev('a = P1; a = a * 2; a = a + 1; a', 5), 11, 'reassignment')
  t.equal(ev('a = 2; b = a * 3; b', 0), 6, 'constants fold')
  t.equal(ev('a = P1 + 1', 4), 5, 'a last assignment yields its value')
  t.equal(ev('a = P1; P2 + 1; a', 4, 9), 4, 'an expression before the last has no effect')
  t.equal(ev('min = P1; min(min, P2)', 4, 3), 3, 'function names are not reserved')
  t.equal(ev('temp_1 = P1; _x2 = temp_1 x 2; _x2', 4), 8)
  // Dead assignments are skipped without breaking later ones.
  t.equal(ev('a = P1; b = P2; c = P3; a + c', 1, 2, 3), 4)
  const f = compileFormula('s = P1 + P2; d = s / 2; if(d > 10, d, null)', PINS)
  t.equal(f.evaluate([30, 2]), 16)
  t.equal(f.evaluate([1, 2]), null)
  t.equal(f.evaluate([30, 2]), 16, 'no state carried between evaluations')
})

t.test('whitespace and line breaks', async t => {
  t.equal(ev('  \n\t a\n=\nP1\r\n+\t1 ;\n\n a * 2 ;\n ', 1), 4)
  t.equal(ev('max( 1 ,\n 2 )'), 2)
  t.equal(ev('if (P1, 1, 2)', 1), 1, 'space before the parenthesis of a call')
})

t.test('calling conventions', async t => {
  const f = compileFormula('Out = speed x factor; Out + offset', ['offset', 'speed', 'factor', 'unused'])
  t.same(f.pins, ['offset', 'speed', 'factor', 'unused'])
  t.same(f.inputs, ['offset', 'speed', 'factor'])
  t.equal(f.constant, false)
  t.equal(f.evaluate([1, 2, 3, 4]), 7)
  t.equal(f.evaluateRecord({ offset: 1, speed: 2, factor: 3 }), 7)
  t.equal(f.evaluateRecord({ offset: 1, speed: 2 }), null)
  const evaluate = f.evaluate
  t.equal(evaluate(Float64Array.of(1, 2, 3, 0)), 7, 'detached, typed array input')
  t.equal(compileFormula('-0', PINS).evaluate([]), 0)
  t.ok(!Object.is(compileFormula('-P1', PINS).evaluate([0]), -0), 'no negative zero')
  t.ok(!Object.is(compileFormula('sin(P1)', PINS).evaluate([-0]), -0))
})
