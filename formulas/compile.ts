// AST → closure tree, once per formula (spec part 2, "Formula language"). Resolves every
// name at compile time: pins become indexes into the caller's value array, variables become
// slots of one scratch array (a fresh slot per assignment, so a reassigned name is just a new
// slot), constants are folded. Every misuse is a FormulaError naming the word and its place.

import type { CallNode, CompareNode, ExprNode, NameNode, Position, Program } from './ast.ts'
import { type Code, type Fn, type InputValues, type Value, dyn, konst, NULL } from './code.ts'
import { and, elif, ifThenElse, or } from './control.ts'
import { FormulaError, START, where } from './errors.ts'
import { FUNCTIONS, MAX_ROUND_DIGITS } from './functions.ts'
import { arithChain, compare, negate } from './operators.ts'
import { parseFormula } from './parser.ts'

export interface CompiledFormula {
  /** The formula text as given. */
  readonly source: string
  /** The declared pins, in the order `evaluate` expects their values. */
  readonly pins: readonly string[]
  /** The pins the formula refers to (a subset of `pins`, in the same order). */
  readonly inputs: readonly string[]
  /** True when the result never depends on the inputs (e.g. `a=P1+P2;0;`). */
  readonly constant: boolean
  /**
   * The result for one set of input values: `values[i]` is the value of `pins[i]`; null,
   * undefined, NaN and ±Infinity count as "no value". Returns null when nothing is emitted.
   * A plain function (no `this`): `const f = compiled.evaluate` works. Not reentrant across
   * threads, which JS does not have; it allocates nothing.
   */
  readonly evaluate: (values: InputValues) => number | null
  /** Same as `evaluate`, with values keyed by pin name (slower; for tests and tools). */
  readonly evaluateRecord: (values: Readonly<Record<string, number | null | undefined>>) => number | null
}

/**
 * Words that cannot name a pin or a variable, compared case-insensitively. `x` is the
 * multiplication operator; `else` only appears in elif(); `null` is the null literal.
 */
export const RESERVED_WORDS: readonly string[] = ['and', 'or', 'if', 'elif', 'else', 'null', 'x']

const NAME = /^[A-Za-z_][A-Za-z0-9_]*$/

/** Whether `name` can be a pin of a formula (letters, digits, `_`; no leading digit; not reserved). */
export function isValidName(name: string): boolean {
  return NAME.test(name) && !RESERVED_WORDS.includes(name.toLowerCase())
}

/** Parses and compiles `source`; `pins` are the declared input names (e.g. P1..P5). */
export function compileFormula(source: string, pins: readonly string[]): CompiledFormula {
  const program = parseFormula(source)
  const c = new Compiler(program, pins)
  const result = c.compileProgram()
  const evaluate = result.fn
  const index = new Map(pins.map((p, i) => [p, i]))
  const inputs = pins.filter((_, i) => c.usedPins.has(i))
  return Object.freeze({
    source,
    pins: Object.freeze([...pins]),
    inputs: Object.freeze(inputs),
    constant: result.isConst,
    evaluate,
    evaluateRecord: (values: Readonly<Record<string, number | null | undefined>>) => {
      const arr: (number | null | undefined)[] = new Array(pins.length)
      for (const [name, i] of index) arr[i] = values[name]
      return evaluate(arr)
    },
  })
}

type Binding = { kind: 'pin'; index: number } | { kind: 'slot'; index: number } | { kind: 'const'; value: Value }

class Compiler {
  readonly usedPins = new Set<number>()
  private readonly pins = new Map<string, number>()
  private readonly vars = new Map<string, Binding>()
  /** First assignment of each name, to tell "used before assigned" from "unknown". */
  private readonly assignedAt = new Map<string, Position>()
  private readonly slots: Value[] = []
  private readonly slotReads: number[] = []

  constructor(private readonly program: Program, pins: readonly string[]) {
    pins.forEach((p, i) => {
      if (!isValidName(p)) {
        const msg = `Pin name '${p}' cannot be used in a formula: a name consists of letters, digits ` +
          `and _, does not start with a digit and is not one of ${RESERVED_WORDS.join(', ')}`
        throw new FormulaError('FORMULA_INVALID_PIN', msg, START, msg)
      }
      if (this.pins.has(p)) {
        const msg = `Pin name '${p}' is declared twice`
        throw new FormulaError('FORMULA_INVALID_PIN', msg, START, msg)
      }
      this.pins.set(p, i)
    })
    for (const eq of program) {
      if (eq.type === 'assign' && !this.assignedAt.has(eq.target.name)) this.assignedAt.set(eq.target.name, eq.target.pos)
    }
  }

  compileProgram(): Code {
    const steps: { slot: number; fn: Fn }[] = []
    let last: Code = NULL
    this.program.forEach((eq, i) => {
      const code = this.expr(eq.expr)
      if (eq.type === 'assign') {
        this.checkTarget(eq.target)
        if (code.isConst) this.vars.set(eq.target.name, { kind: 'const', value: code.value })
        else {
          const slot = this.slots.length
          this.slots.push(null)
          this.slotReads.push(0)
          this.vars.set(eq.target.name, { kind: 'slot', index: slot })
          if (i < this.program.length - 1) steps.push({ slot, fn: code.fn })
        }
      }
      // Only the last equation yields the result (rule 1); an expression before it has no effect.
      if (i === this.program.length - 1) last = code
    })
    if (last.isConst) return konst(last.value === 0 ? 0 : last.value) // -0 → 0
    const live = steps.filter(s => this.slotReads[s.slot] > 0)
    return dyn(sequence(this.slots, live, last.fn))
  }

  private checkTarget(t: NameNode): void {
    const lower = t.name.toLowerCase()
    if (RESERVED_WORDS.includes(lower)) throw this.reserved(t)
    if (this.pins.has(t.name)) {
      throw new FormulaError('FORMULA_INVALID_ASSIGNMENT',
        `'${t.name}' is an input pin and cannot be assigned (to compare, use ==)`, t.pos)
    }
  }

  private expr(n: ExprNode): Code {
    switch (n.type) {
      case 'num':
        if (!Number.isFinite(n.value)) throw new FormulaError('FORMULA_INVALID_NUMBER', `Number ${n.text} is too large`, n.pos)
        return konst(n.value)
      case 'name': return this.name(n)
      case 'neg': return negate(this.expr(n.arg), n.count)
      case 'arith': return arithChain(this.expr(n.first), n.rest.map(r => ({ op: r.op, right: this.expr(r.right) })))
      case 'compare': return this.compare(n)
      case 'and': return and(n.args.map(a => this.expr(a)))
      case 'or': return or(n.args.map(a => this.expr(a)))
      case 'call': return this.call(n)
    }
  }

  private compare(n: CompareNode): Code {
    for (const r of n.rest) {
      if (r.op === '=') {
        throw new FormulaError('FORMULA_SYNTAX', "'=' assigns and is only allowed at the start of an equation " +
          "(name = expression); to compare, use '=='", r.pos)
      }
    }
    if (n.rest.length > 1) {
      throw new FormulaError('FORMULA_SYNTAX',
        'Comparisons cannot be chained; combine them with AND, as in a < b AND b < c', n.rest[1].pos)
    }
    const { op, right } = n.rest[0]
    return compare(op as Exclude<typeof op, '='>, this.expr(n.first), this.expr(right))
  }

  private name(n: NameNode): Code {
    const lower = n.name.toLowerCase()
    if (lower === 'null') return NULL
    if (RESERVED_WORDS.includes(lower)) throw this.reserved(n)
    const b = this.vars.get(n.name)
    if (b) {
      if (b.kind === 'const') return konst(b.value)
      if (b.kind === 'slot') { this.slotReads[b.index]++; return slotRead(this.slots, b.index) }
    }
    const pin = this.pins.get(n.name)
    if (pin !== undefined) { this.usedPins.add(pin); return pinRead(pin) }
    const later = this.assignedAt.get(n.name)
    if (later) {
      const reason = `Name '${n.name}' is used before it is assigned`
      throw new FormulaError('FORMULA_UNKNOWN_NAME', reason, n.pos,
        `Name '${n.name}' is used at ${where(n.pos)} before it is assigned at ${where(later)}`)
    }
    const known = [...this.pins.keys(), ...this.vars.keys()]
    const near = known.find(k => k.toLowerCase() === lower)
    const hint = near ? `did you mean '${near}'?` : known.length ? 'known names: ' + known.join(', ') : 'no pins are declared'
    throw new FormulaError('FORMULA_UNKNOWN_NAME', `Unknown name '${n.name}'`, n.pos,
      `Unknown name '${n.name}' at ${where(n.pos)} (${hint})`)
  }

  private reserved(n: NameNode): FormulaError {
    const lower = n.name.toLowerCase()
    const reason = lower === 'x' ? "'x' is the multiplication operator and cannot be used as a name"
      : lower === 'else' ? "'else' can only be used in elif(...), just before the default value"
      : `'${n.name}' is a keyword and cannot be used as a name`
    return new FormulaError('FORMULA_RESERVED_NAME', reason, n.pos)
  }

  private call(n: CallNode): Code {
    const lower = n.name.toLowerCase()
    if (lower === 'if') {
      if (n.args.length !== 3) throw arity(n, '3 arguments (condition, then, else)')
      const [c, a, b] = n.args.map(x => this.expr(x))
      return ifThenElse(c, a, b)
    }
    if (lower === 'elif') return this.elif(n)
    const def = FUNCTIONS.get(lower)
    if (!def) {
      const msg = RESERVED_WORDS.includes(lower) || this.pins.has(n.name) || this.vars.has(n.name)
        ? `'${n.name}' is not a function` : `Unknown function '${n.name}'`
      throw new FormulaError('FORMULA_UNKNOWN_FUNCTION', msg, n.pos, `${msg} at ${where(n.pos)} ` +
        `(functions: ${[...FUNCTIONS.keys(), 'if', 'elif'].join(', ')})`)
    }
    if (n.args.length < def.min || n.args.length > def.max) throw arity(n, def.takes)
    const args = n.args.map(x => this.expr(x))
    if (lower === 'round' && args.length === 2 && args[1].isConst) {
      const d = args[1].value
      if (d !== null && !(Number.isInteger(d) && Math.abs(d) <= MAX_ROUND_DIGITS)) {
        throw new FormulaError('FORMULA_INVALID_ARGUMENT', `round(): the number of digits must be a whole number ` +
          `from -${MAX_ROUND_DIGITS} to ${MAX_ROUND_DIGITS}, got ${d}`, n.args[1].pos)
      }
    }
    return def.build(args)
  }

  private elif(n: CallNode): Code {
    const k = n.args.length
    const elseArg = n.args[k - 2]
    if (k < 4 || k % 2 !== 0 || elseArg.type !== 'name' || elseArg.name.toLowerCase() !== 'else') {
      throw new FormulaError('FORMULA_ARITY', 'elif takes pairs of condition and value, then else and the ' +
        `default value, as in elif(c1, v1, c2, v2, else, d); got ${k} argument${k === 1 ? '' : 's'}`, n.pos)
    }
    const pairs: { cond: Code; then: Code }[] = []
    for (let i = 0; i < k - 2; i += 2) pairs.push({ cond: this.expr(n.args[i]), then: this.expr(n.args[i + 1]) })
    return elif(pairs, this.expr(n.args[k - 1]))
  }
}

function arity(n: CallNode, takes: string): FormulaError {
  const k = n.args.length
  return new FormulaError('FORMULA_ARITY', `Function '${n.name}' takes ${takes}, got ${k}`, n.pos)
}

/** A pin's value; missing and non-finite values are null. */
function pinRead(i: number): Code {
  return dyn(v => { const x = v[i]; return x == null || x - x !== 0 ? null : x })
}

function slotRead(slots: Value[], i: number): Code {
  return dyn(() => slots[i])
}

/** Runs the assignments in order, then the last equation; -0 is reported as 0. */
function sequence(slots: Value[], steps: readonly { slot: number; fn: Fn }[], last: Fn): Fn {
  if (steps.length === 0) return v => { const r = last(v); return r === 0 ? 0 : r }
  if (steps.length === 1) {
    const [{ slot, fn }] = steps
    return v => { slots[slot] = fn(v); const r = last(v); return r === 0 ? 0 : r }
  }
  const idx = steps.map(s => s.slot)
  const fns = steps.map(s => s.fn)
  return v => {
    for (let i = 0; i < fns.length; i++) slots[idx[i]] = fns[i](v)
    const r = last(v)
    return r === 0 ? 0 : r
  }
}
