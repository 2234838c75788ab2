// Text → AST. The peggy grammar (formula.peggy, beside this file) is compiled into a parser
// on first use, once per process: no generated code is committed (STYLE.md habit 7).
// Limits are checked before peggy runs so that no input can exhaust the stack.

import { readFileSync } from 'node:fs'
import peggy from 'peggy'
import type { Program } from './ast.ts'
import { FormulaError, type PeggyExpectation, positionAt, syntaxError } from './errors.ts'

/** Longest formula accepted, in UTF-16 units. */
export const MAX_FORMULA_LENGTH = 10_000
/** Deepest nesting of parentheses (groups and function calls) accepted. */
export const MAX_NESTING_DEPTH = 100

let parser: peggy.Parser | undefined

function getParser(): peggy.Parser {
  if (!parser) {
    const grammar = readFileSync(new URL('./formula.peggy', import.meta.url), 'utf8')
    parser = peggy.generate(grammar, { output: 'parser', grammarSource: 'formula.peggy' })
  }
  return parser
}

/** Parses a formula; throws FormulaError (syntax, length, nesting) with the position. */
export function parseFormula(source: string): Program {
  if (typeof source !== 'string') throw new TypeError('formula source must be a string')
  if (source.length > MAX_FORMULA_LENGTH) {
    throw new FormulaError('FORMULA_TOO_LONG',
      `Formula is too long: ${source.length} characters, at most ${MAX_FORMULA_LENGTH} are allowed`,
      positionAt(source, MAX_FORMULA_LENGTH),
      `Formula is too long: ${source.length} characters, at most ${MAX_FORMULA_LENGTH} are allowed`)
  }
  checkNesting(source)
  try {
    return getParser().parse(source) as Program
  } catch (e) {
    if (e instanceof getParser().SyntaxError) {
      const s = e.location.start
      throw syntaxError(source, { offset: s.offset, line: s.line, column: s.column }, e.expected as PeggyExpectation[] | null)
    }
    throw e
  }
}

/** The parser recurses once per parenthesis level (and nowhere else unboundedly). */
function checkNesting(source: string): void {
  let depth = 0
  for (let i = 0; i < source.length; i++) {
    const c = source.charCodeAt(i)
    if (c === 40 /* ( */) {
      if (++depth > MAX_NESTING_DEPTH) {
        throw new FormulaError('FORMULA_TOO_DEEP',
          `Parentheses are nested more than ${MAX_NESTING_DEPTH} levels deep`, positionAt(source, i))
      }
    } else if (c === 41 /* ) */ && depth > 0) depth--
  }
}
