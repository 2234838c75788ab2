// The functions of the formula language (spec part 2, "Formula language", rule 4).
// Every function gives null when any argument is null. Angles are in radians.

import { type Code, type Fn, type Value, dyn, fin, fold, hasConstNull, NULL } from './code.ts'

export interface FunctionDef {
  readonly min: number
  /** Infinity for variadic functions. */
  readonly max: number
  /** How the arity is described in errors: `takes 1 argument`. */
  readonly takes: string
  readonly build: (args: readonly Code[]) => Code
}

/** Largest magnitude of round()'s digits argument. */
export const MAX_ROUND_DIGITS = 15

const POW10: readonly number[] = Array.from({ length: MAX_ROUND_DIGITS + 1 }, (_, i) => Number('1e' + i))

/** Rounds half away from zero (2.5 → 3, -2.5 → -3); the nudge makes 1.005 → 1.01 at 2 digits. */
export function roundHalfAway(x: number): number {
  const a = Math.abs(x)
  const r = Math.round(a + a * Number.EPSILON)
  return r === 0 ? 0 : x < 0 ? -r : r
}

/** round(x, digits): digits > 0 after the decimal point, < 0 before it (round(1234, -2) = 1200). */
export function roundTo(x: number, digits: number): Value {
  if (!Number.isInteger(digits) || Math.abs(digits) > MAX_ROUND_DIGITS) return null
  if (digits === 0) return roundHalfAway(x)
  if (digits > 0) {
    const f = POW10[digits]
    // Beyond 2^52 a double has no fraction digits left to round.
    return Math.abs(x) * f >= 4503599627370496 ? x : roundHalfAway(x * f) / f
  }
  const f = POW10[-digits]
  return fin(roundHalfAway(x / f) * f)
}

/** Median of `xs` (sorted in place): the middle value, or the mean of the two middle values. */
export function medianOf(xs: Float64Array): number {
  xs.sort()
  const m = xs.length >> 1
  return xs.length % 2 ? xs[m] : (xs[m - 1] + xs[m]) / 2
}

/** A function of fixed arguments that gives null when any argument is null. */
function strict(args: readonly Code[], fn: Fn): Code {
  return hasConstNull(args) ? NULL : fold(args, dyn(fn))
}

function unary(f: (x: number) => Value): (args: readonly Code[]) => Code {
  return args => {
    const a = args[0].fn
    return strict(args, v => { const x = a(v); return x === null ? null : f(x) })
  }
}

function minMax(pick: (a: number, b: number) => number): (args: readonly Code[]) => Code {
  return args => {
    if (args.length === 1) return args[0]
    const fns = args.map(a => a.fn)
    if (fns.length === 2) {
      const [a, b] = fns
      return strict(args, v => { const x = a(v); if (x === null) return null; const y = b(v); return y === null ? null : pick(x, y) })
    }
    return strict(args, v => {
      let acc = fns[0](v)
      if (acc === null) return null
      for (let i = 1; i < fns.length; i++) { const y = fns[i](v); if (y === null) return null; acc = pick(acc, y) }
      return acc
    })
  }
}

function mean(args: readonly Code[]): Code {
  const fns = args.map(a => a.fn)
  const n = fns.length
  return strict(args, v => {
    let sum = 0
    for (let i = 0; i < n; i++) { const y = fns[i](v); if (y === null) return null; sum += y }
    return fin(sum / n)
  })
}

function median(args: readonly Code[]): Code {
  if (args.length === 1) return args[0]
  const fns = args.map(a => a.fn)
  const scratch = new Float64Array(fns.length) // per call site; evaluation is synchronous
  return strict(args, v => {
    for (let i = 0; i < fns.length; i++) { const y = fns[i](v); if (y === null) return null; scratch[i] = y }
    return medianOf(scratch)
  })
}

function round(args: readonly Code[]): Code {
  const x = args[0].fn
  if (args.length === 1) return strict(args, v => { const a = x(v); return a === null ? null : roundHalfAway(a) })
  const d = args[1]
  if (d.isConst && d.value !== null) {
    const digits = d.value
    return strict(args, v => { const a = x(v); return a === null ? null : roundTo(a, digits) })
  }
  const dfn = d.fn
  return strict(args, v => {
    const a = x(v)
    if (a === null) return null
    const n = dfn(v)
    return n === null ? null : roundTo(a, n)
  })
}

const maxOf = (a: number, b: number): number => (a > b ? a : b)
const minOf = (a: number, b: number): number => (a < b ? a : b)

/** Keyed by lower-case name; function names are case-insensitive. */
export const FUNCTIONS: ReadonlyMap<string, FunctionDef> = new Map<string, FunctionDef>([
  ['min', { min: 1, max: Infinity, takes: 'at least 1 argument', build: minMax(minOf) }],
  ['max', { min: 1, max: Infinity, takes: 'at least 1 argument', build: minMax(maxOf) }],
  ['mean', { min: 1, max: Infinity, takes: 'at least 1 argument', build: mean }],
  ['median', { min: 1, max: Infinity, takes: 'at least 1 argument', build: median }],
  ['abs', { min: 1, max: 1, takes: '1 argument', build: unary(Math.abs) }],
  ['sin', { min: 1, max: 1, takes: '1 argument', build: unary(Math.sin) }],
  ['cos', { min: 1, max: 1, takes: '1 argument', build: unary(Math.cos) }],
  ['tan', { min: 1, max: 1, takes: '1 argument', build: unary(x => fin(Math.tan(x))) }],
  ['round', { min: 1, max: 2, takes: '1 or 2 arguments (value, digits)', build: round }],
])
