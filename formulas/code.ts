// Building blocks of compiled formulas: a compiled node is a closure from the input values to
// a value, plus what is known about it at compile time (a constant, or not). Closures are
// built once per formula; evaluating is calling them, nothing re-parses or walks the AST.

/** A formula value: a finite number, or null ("no value": nothing is emitted). */
export type Value = number | null

/** Input values, aligned with the pins declared to compileFormula; undefined counts as null. */
export type InputValues = ArrayLike<number | null | undefined>

export type Fn = (v: InputValues) => Value

export interface Code {
  readonly fn: Fn
  /** True when the node does not depend on inputs; then `value` is its value. */
  readonly isConst: boolean
  readonly value: Value
}

export function konst(value: Value): Code {
  return { fn: () => value, isConst: true, value }
}

export function dyn(fn: Fn): Code {
  return { fn, isConst: false, value: null }
}

export const NULL: Code = konst(null)

const NO_INPUTS: InputValues = []

/** Folds `code` to a constant when every child is one (children are pure). */
export function fold(children: readonly Code[], code: Code): Code {
  for (const c of children) if (!c.isConst) return code
  return konst(code.fn(NO_INPUTS))
}

/** True when some child is the constant null (then strict operations are null too). */
export function hasConstNull(children: readonly Code[]): boolean {
  for (const c of children) if (c.isConst && c.value === null) return true
  return false
}

/** Non-finite results (overflow, NaN) are no value (spec: null emits nothing). */
export function fin(r: number): Value {
  return r - r === 0 ? r : null
}

/** A condition holds when it is a number other than 0; null is false. */
export function truthy(c: Value): boolean {
  return c !== null && c !== 0
}
