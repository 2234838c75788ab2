import t from 'tap'
import { compileFormula, FormulaError, MAX_FORMULA_LENGTH, MAX_NESTING_DEPTH } from '../../formulas/index.ts'

const PINS = ['P1', 'P2', 'P3', 'P4', 'P5']

function error(source: string): FormulaError {
  try { compileFormula(source, PINS) } catch (e) { if (e instanceof FormulaError) return e; throw e }
  throw new Error('no error')
}

t.test('length', async t => {
  t.equal(MAX_FORMULA_LENGTH, 10_000)
  const ok = '1' + ' '.repeat(MAX_FORMULA_LENGTH - 1)
  t.equal(compileFormula(ok, PINS).evaluate([]), 1, 'exactly at the limit')
  const e = error(ok + ' ')
  t.equal(e.code, 'FORMULA_TOO_LONG')
  t.equal(e.message, 'Formula is too long: 10001 characters, at most 10000 are allowed')
})

t.test('nesting depth', async t => {
  t.equal(MAX_NESTING_DEPTH, 100)
  const nest = (n: number) => '('.repeat(n) + 'P1' + ')'.repeat(n)
  t.equal(compileFormula(nest(MAX_NESTING_DEPTH), PINS).evaluate([3]), 3)
  const e = error(nest(MAX_NESTING_DEPTH + 1))
  t.equal(e.code, 'FORMULA_TOO_DEEP')
  t.same(e.position, { offset: 100, line: 1, column: 101 })
  t.equal(e.message, 'Parentheses are nested more than 100 levels deep at line 1, column 101')
  t.equal(error('abs('.repeat(1000) + '1' + ')'.repeat(1000)).code, 'FORMULA_TOO_DEEP', 'calls count too')
  t.equal(error('('.repeat(9000)).code, 'FORMULA_TOO_DEEP', 'unbalanced, no crash')
  // Deep nesting where every level also has operator chains and calls.
  let src = 'P1'
  for (let i = 0; i < MAX_NESTING_DEPTH / 2; i++) src = `max(${src} + 1 - 1 + 1 - 1 x 1 x 1, P2) x 1 x 1 + 0 + 0 + 0`
  t.equal(compileFormula(src, PINS).evaluate([5, 0]), 5)
})

t.test('long flat chains do not nest', async t => {
  const n = 3000
  const sum = Array.from({ length: n }, () => 'P1').join('+')
  t.equal(compileFormula(sum, PINS).evaluate([1]), n)
  t.equal(compileFormula(sum, PINS).evaluate([null]), null)
  t.equal(compileFormula(Array.from({ length: 4000 }, () => '1').join('*'), PINS).evaluate([]), 1)
  t.equal(compileFormula(Array.from({ length: 1200 }, () => 'P1').join(' AND '), PINS).evaluate([2]), 1)
  t.equal(compileFormula(Array.from({ length: 1500 }, () => 'P1').join(' OR '), PINS).evaluate([0]), 0)
  t.equal(compileFormula('-'.repeat(5000) + 'P1', PINS).evaluate([2]), 2, 'repeated signs')
  t.equal(compileFormula('-'.repeat(4999) + 'P1', PINS).evaluate([2]), -2)
  const div = '1000000' + '/P1'.repeat(2000)
  t.equal(compileFormula(div, PINS).evaluate([1]), 1000000)
  t.equal(compileFormula(div, PINS).evaluate([0]), null)
  const args = Array.from({ length: 3000 }, (_, i) => (i % 2 ? 'P1' : 'P2')).join(',')
  t.equal(compileFormula(`median(${args})`, PINS).evaluate([1, 3]), 2)
  const pairs = Array.from({ length: 400 }, (_, i) => `P1==${i},${i}`).join(',')
  t.equal(compileFormula(`elif(${pairs},else,-1)`, PINS).evaluate([399]), 399)
})

t.test('a big formula compiles and runs quickly', async t => {
  const chain = (n: number) => {
    const eqs: string[] = []
    for (let i = 0; i < n; i++) {
      const prev = i === 0 ? 'P1' : `v${i - 1}`
      eqs.push(`v${i} = if(${prev} > P2, ${prev} - P3 x 0.5, max(${prev}, P4) + round(P5 / 3, 2))`)
    }
    eqs.push(`v${n - 1}`)
    return eqs.join(';\n')
  }
  const src = chain(140)
  t.ok(src.length <= MAX_FORMULA_LENGTH, `${src.length} characters`)
  const t0 = performance.now()
  const f = compileFormula(src, PINS)
  const compileMs = performance.now() - t0
  t.ok(compileMs < 1000, `compile ${compileMs.toFixed(1)} ms`)
  // Reference: the same computation written out.
  const ref = (p: number[]) => {
    let v = p[0]
    for (let i = 0; i < 140; i++) v = v > p[1] ? v - p[2] * 0.5 : Math.max(v, p[3]) + Math.round(p[4] / 3 * 100) / 100
    return v
  }
  const inputs = [[100, 50, 1, 2, 3], [1, 50, 1, 2, 3], [10, 5, 2, 30, 7]]
  for (const p of inputs) t.ok(Math.abs((f.evaluate(p) as number) - ref(p)) < 1e-6, JSON.stringify(p))
  // Evaluation grows linearly with the equations, measured against half the chain in the same
  // run: a fixed bound in ms failed on a slow day of the shared test machine (2,741 ms against
  // 2,000) while saying nothing about the cost per equation.
  const half = compileFormula(chain(70), PINS)
  const timed = (g: typeof f) => {
    const t1 = performance.now()
    let acc = 0
    for (let i = 0; i < 10_000; i++) acc += g.evaluate(inputs[i % 3]) as number
    t.ok(acc > 0)
    return performance.now() - t1
  }
  timed(f) // warm-up of both
  timed(half)
  // Alternated, the least of seven each: a descheduled or GC-hit sample only grows, so on a
  // loaded machine the minimum of a few is the cost (two samples each once gave 937 / 194 ms).
  let fullMs = Infinity
  let halfMs = Infinity
  for (let round = 0; round < 7; round++) {
    fullMs = Math.min(fullMs, timed(f))
    halfMs = Math.min(halfMs, timed(half))
  }
  t.ok(fullMs < 4 * halfMs, `10k evaluations: 140 equations ${fullMs.toFixed(1)} ms, 70 equations ${halfMs.toFixed(1)} ms (linear: about twice)`)
  t.ok(fullMs < 20_000, `10k evaluations of 140 equations: ${fullMs.toFixed(1)} ms`)
})

t.test('the parser is built once and reused', async t => {
  const t0 = performance.now()
  for (let i = 0; i < 200; i++) compileFormula(`a = P1 + ${i}; if(a > 10, a * 2, null)`, PINS)
  t.ok(performance.now() - t0 < 2000)
})
