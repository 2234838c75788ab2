// Errors of the formula language. One class with a stable code per condition (STYLE.md,
// undici's errors.js); the API maps any FormulaError to 400 with its message, which is
// written for the building engineer who typed the formula: it names the word or token and
// where it is (line and column, counted from 1).

import type { Position } from './ast.ts'

export type FormulaErrorCode =
  | 'FORMULA_SYNTAX' // not a formula: unexpected token, chained comparison, `=` inside an expression
  | 'FORMULA_UNKNOWN_NAME' // a name that is neither a pin nor assigned by an earlier equation
  | 'FORMULA_UNKNOWN_FUNCTION' // `foo(...)` where foo is not a function of the language
  | 'FORMULA_ARITY' // a function called with the wrong number of arguments
  | 'FORMULA_RESERVED_NAME' // a keyword (if, elif, else, null, AND, OR, x) used as a name
  | 'FORMULA_INVALID_ASSIGNMENT' // assignment to an input pin
  | 'FORMULA_INVALID_ARGUMENT' // a constant argument out of range, e.g. round(v, 1.5)
  | 'FORMULA_INVALID_NUMBER' // a number literal too large to represent
  | 'FORMULA_TOO_LONG' // source longer than MAX_FORMULA_LENGTH
  | 'FORMULA_TOO_DEEP' // parentheses nested deeper than MAX_NESTING_DEPTH
  | 'FORMULA_INVALID_PIN' // a declared input whose name cannot be written in a formula

export const START: Position = Object.freeze({ offset: 0, line: 1, column: 1 })

export class FormulaError extends Error {
  override readonly name = 'FormulaError'
  /**
   * @param reason the message without its location, e.g. `Unknown name 'P9'`
   * @param message the full message; by default `<reason> at line L, column C`
   */
  constructor(
    readonly code: FormulaErrorCode,
    readonly reason: string,
    readonly position: Position,
    message = reason + ' at ' + where(position),
  ) {
    super(message)
  }
}

/** `line 2, column 7` */
export function where(p: Position): string {
  return 'line ' + p.line + ', column ' + p.column
}

/** Position of a UTF-16 offset in `source` (for errors found outside the parser). */
export function positionAt(source: string, offset: number): Position {
  let line = 1
  let lineStart = 0
  for (let i = 0; i < offset && i < source.length; i++) {
    if (source.charCodeAt(i) === 10) { line++; lineStart = i + 1 }
  }
  return { offset, line, column: offset - lineStart + 1 }
}

/** What peggy reports it expected (peggy's `Expectation`, the parts we read). */
export interface PeggyExpectation { type: string; text?: string; description?: string }

/**
 * `Syntax error at line 1, column 7: expected expression but found ';'`.
 * peggy lists every token that could have continued the parse; engineers think in
 * "expression" and "operator", so operand starts and operator tokens are merged.
 */
export function syntaxError(source: string, position: Position, expected: readonly PeggyExpectation[] | null): FormulaError {
  const want = new Set<string>()
  for (const e of expected ?? []) {
    if (e.type === 'end') want.add('end')
    else if (e.type === 'other') want.add(e.description ?? '')
    else if (e.type === 'literal') want.add((e.text ?? '').toLowerCase())
  }
  const parts: string[] = []
  if (want.has('number') || want.has('name')) parts.push('expression')
  else if (want.has('(') && !want.has('operator')) parts.push("'('")
  if (want.has('operator') || want.has('and') || want.has('or')) parts.push('operator')
  for (const tok of [',', ')', ';']) if (want.has(tok)) parts.push("'" + tok + "'")
  if (want.has('end')) parts.push('end of formula')
  const reason = (parts.length ? 'expected ' + joinOr(parts) + ' but found ' : 'unexpected ') + foundAt(source, position.offset)
  return new FormulaError('FORMULA_SYNTAX', reason, position, 'Syntax error at ' + where(position) + ': ' + reason)
}

function joinOr(parts: string[]): string {
  return parts.length === 1 ? parts[0] : parts.slice(0, -1).join(', ') + ' or ' + parts[parts.length - 1]
}

/** The token at `offset` as the engineer sees it: a whole word or number, else one character. */
export function foundAt(source: string, offset: number): string {
  if (offset >= source.length) return 'end of formula'
  const word = /^[A-Za-z0-9_.]+/.exec(source.slice(offset, offset + 40))
  if (word) return "'" + word[0] + "'"
  const ch = source[offset]
  if (ch === '\n' || ch === '\r') return 'a line break'
  if (ch === '\t') return 'a tab'
  return "'" + ch + "'"
}
