// Benchmark of compiled formulas (formulas/): evaluations per second of typical formulas,
// and compile time.   npm run bench:formula -- [--evals 10000000] [--runs 3]
// Peers in the same run: the same computation as a hand-written JS function (the ceiling a
// closure tree can approach) next to each compiled formula.
// Output: one NDJSON line per formula and run, then a summary line per formula (medians).
// Progress on stderr.

import { compileFormula } from '../formulas/index.ts'
import { emit, median, progress } from './lib.ts'

function arg(name: string, dflt: number): number {
  const i = process.argv.indexOf('--' + name)
  return i >= 0 ? Number(process.argv[i + 1]) : dflt
}
const EVALS = arg('evals', 10_000_000)
const RUNS = arg('runs', 3)

type In = (number | null)[]
const PINS = ['P1', 'P2', 'P3', 'P4', 'P5']

interface Case { name: string; source: string; handWritten: (v: In) => number | null }

const CASES: Case[] = [
  {
    name: 'typical', source: 'a=P1+P2; if(a>10, a*2, null);',
    handWritten: v => { const p1 = v[0], p2 = v[1]; if (p1 === null || p2 === null) return null; const a = p1 + p2; return a > 10 ? a * 2 : null },
  },
  {
    name: 'sum', source: 'P1 + P2 + P3',
    handWritten: v => { const a = v[0], b = v[1], c = v[2]; return a === null || b === null || c === null ? null : a + b + c },
  },
  {
    name: 'elif-functions',
    source: 't = mean(P1, P2, P3);\nelif(t < 18 AND P4 > 0, round(t, 1), t > 24 OR P5 == null, max(P1, P2, P3), else, abs(t - 21) x 2);',
    handWritten: v => {
      const [p1, p2, p3, p4, p5] = v
      if (p1 === null || p2 === null || p3 === null) return null
      const t = (p1 + p2 + p3) / 3
      if (t < 18 && p4 !== null && p4 > 0) return Math.round(t * 10) / 10
      if (t > 24 || p5 === null) return Math.max(p1, p2, p3)
      return Math.abs(t - 21) * 2
    },
  },
]

/** Input sets cycled through so that both branches and nulls occur. */
const INPUTS: In[] = Array.from({ length: 1024 }, (_, i) => [
  (i * 7) % 23, (i * 13) % 17, i % 31 === 0 ? null : (i * 3) % 29 - 2, i % 5 - 2, i % 11 === 0 ? null : i % 40,
])

function run(fn: (v: In) => number | null): { evalsPerSec: number; checksum: number } {
  let checksum = 0
  const t0 = process.hrtime.bigint()
  for (let i = 0; i < EVALS; i++) {
    const r = fn(INPUTS[i & 1023])
    if (r !== null) checksum += r
  }
  const ns = Number(process.hrtime.bigint() - t0)
  return { evalsPerSec: Math.round(EVALS / (ns / 1e9)), checksum }
}

function bench(c: Case): void {
  let f = compileFormula(c.source, PINS)
  const COMPILES = 2000
  const tc = process.hrtime.bigint()
  for (let i = 0; i < COMPILES; i++) f = compileFormula(c.source, PINS)
  const compileUs = Number(process.hrtime.bigint() - tc) / 1e3 / COMPILES
  for (const v of INPUTS) {
    if (f.evaluate(v) !== c.handWritten(v)) throw new Error(`${c.name}: ${JSON.stringify(v)} gives ${f.evaluate(v)}, expected ${c.handWritten(v)}`)
  }
  const compiled: number[] = []
  const native: number[] = []
  for (let r = 1; r <= RUNS; r++) {
    progress(`${c.name}: run ${r}/${RUNS}, ${EVALS} evaluations`)
    const a = run(f.evaluate)
    const b = run(c.handWritten)
    if (a.checksum !== b.checksum) throw new Error(`${c.name}: checksum ${a.checksum} != ${b.checksum}`)
    compiled.push(a.evalsPerSec)
    native.push(b.evalsPerSec)
    emit({ bench: 'formula', case: c.name, run: r, evals: EVALS, compiledEvalsPerSec: a.evalsPerSec, handWrittenEvalsPerSec: b.evalsPerSec })
  }
  emit({
    bench: 'formula', case: c.name, summary: true, source: c.source, runs: RUNS, evals: EVALS,
    compiledEvalsPerSec: median(compiled), handWrittenEvalsPerSec: median(native),
    compileMicros: Math.round(compileUs * 10) / 10,
  })
}

// Warm the parser (built on first use) and its JIT so that compileMicros is a steady figure.
for (let i = 0; i < 500; i++) for (const c of CASES) compileFormula(c.source, PINS)
for (const c of CASES) bench(c)
// The closures of all formulas share code, so V8's type feedback is shared too: the first
// case again, now that the others have run, is what a process with many formulas sees.
bench({ ...CASES[0], name: CASES[0].name + '-after-others' })
