import t from 'tap'
import { compileFormula, FormulaError, type FormulaErrorCode, isValidName, RESERVED_WORDS } from '../../formulas/index.ts'

const PINS = ['P1', 'P2', 'P3', 'P4', 'P5']

/** The FormulaError thrown by compiling `source`. */
function fail(source: string, pins: readonly string[] = PINS): FormulaError {
  try {
    compileFormula(source, pins)
  } catch (e) {
    if (e instanceof FormulaError) return e
    throw e
  }
  throw new Error(`no error for ${JSON.stringify(source)}`)
}

/** [source, code, line, column, exact message] */
type Row = [string, FormulaErrorCode, number, number, string]

t.test('syntax errors name the place and what was expected', async t => {
  const rows: Row[] = [
    ['a = P1 +;', 'FORMULA_SYNTAX', 1, 9, "Syntax error at line 1, column 9: expected expression but found ';'"],
    ['a=P1+;', 'FORMULA_SYNTAX', 1, 6, "Syntax error at line 1, column 6: expected expression but found ';'"],
    ['', 'FORMULA_SYNTAX', 1, 1, 'Syntax error at line 1, column 1: expected expression but found end of formula'],
    [';', 'FORMULA_SYNTAX', 1, 1, "Syntax error at line 1, column 1: expected expression but found ';'"],
    ['1;;2', 'FORMULA_SYNTAX', 1, 3, "Syntax error at line 1, column 3: expected expression or end of formula but found ';'"],
    ['P1 P2', 'FORMULA_SYNTAX', 1, 4, "Syntax error at line 1, column 4: expected operator, ';' or end of formula but found 'P2'"],
    ['(P1 + 2', 'FORMULA_SYNTAX', 1, 8, "Syntax error at line 1, column 8: expected operator or ')' but found end of formula"],
    ['max(1, 2', 'FORMULA_SYNTAX', 1, 9, "Syntax error at line 1, column 9: expected operator, ',' or ')' but found end of formula"],
    ['a = 1;\nb = a *\n;', 'FORMULA_SYNTAX', 3, 1, "Syntax error at line 3, column 1: expected expression but found ';'"],
    ['P1 ^ 2', 'FORMULA_SYNTAX', 1, 4, "Syntax error at line 1, column 4: expected operator, ';' or end of formula but found '^'"],
    ['2P1', 'FORMULA_SYNTAX', 1, 2, "Syntax error at line 1, column 2: expected operator, ';' or end of formula but found 'P1'"],
    ['2xP1', 'FORMULA_SYNTAX', 1, 2, "Syntax error at line 1, column 2: expected operator, ';' or end of formula but found 'xP1'"],
    ['P1 < P2 < P3', 'FORMULA_SYNTAX', 1, 9, 'Comparisons cannot be chained; combine them with AND, as in a < b AND b < c at line 1, column 9'],
    ['a = P1 = 2', 'FORMULA_SYNTAX', 1, 8, "'=' assigns and is only allowed at the start of an equation (name = expression); to compare, use '==' at line 1, column 8"],
    ['1 +\n\n  $', 'FORMULA_SYNTAX', 3, 3, "Syntax error at line 3, column 3: expected expression but found '$'"],
  ]
  for (const [src, code, line, column, message] of rows) {
    const e = fail(src)
    t.equal(e.code, code, src)
    t.same([e.position.line, e.position.column], [line, column], src)
    t.equal(e.message, message, src)
  }
  const e = fail('a=1;\n  b = (a + ;')
  t.same(e.position, { offset: 16, line: 2, column: 12 }, 'offset counts from 0, line and column from 1')
})

t.test('unknown names', async t => {
  const e = fail('a = P1 + P9')
  t.equal(e.code, 'FORMULA_UNKNOWN_NAME')
  t.same(e.position, { offset: 9, line: 1, column: 10 })
  t.equal(e.reason, "Unknown name 'P9'")
  t.equal(e.message, "Unknown name 'P9' at line 1, column 10 (known names: P1, P2, P3, P4, P5)")
  t.match(fail('a = 1; a + b').message, /^Unknown name 'b' at line 1, column 12 \(known names: P1, P2, P3, P4, P5, a\)$/)
  t.equal(fail('p1 + 1').message, "Unknown name 'p1' at line 1, column 1 (did you mean 'P1'?)", 'names are case-sensitive')
  t.equal(fail('b = a + 1; a = 2; b').message,
    "Name 'a' is used at line 1, column 5 before it is assigned at line 1, column 12")
  t.equal(fail('a = a + 1').message, "Name 'a' is used at line 1, column 5 before it is assigned at line 1, column 1")
  t.equal(fail('P1', []).message, "Unknown name 'P1' at line 1, column 1 (no pins are declared)")
  t.equal(fail('P1xP2').message, "Unknown name 'P1xP2' at line 1, column 1 (known names: P1, P2, P3, P4, P5)",
    'x touching a name is part of the name')
  t.equal(fail('P6', ['P1', 'P2']).position.column, 1)
})

t.test('functions: unknown and arity', async t => {
  const rows: Row[] = [
    ['abs(1, 2)', 'FORMULA_ARITY', 1, 1, "Function 'abs' takes 1 argument, got 2 at line 1, column 1"],
    ['1 + sin()', 'FORMULA_ARITY', 1, 5, "Function 'sin' takes 1 argument, got 0 at line 1, column 5"],
    ['cos(1, 2)', 'FORMULA_ARITY', 1, 1, "Function 'cos' takes 1 argument, got 2 at line 1, column 1"],
    ['tan()', 'FORMULA_ARITY', 1, 1, "Function 'tan' takes 1 argument, got 0 at line 1, column 1"],
    ['min()', 'FORMULA_ARITY', 1, 1, "Function 'min' takes at least 1 argument, got 0 at line 1, column 1"],
    ['max()', 'FORMULA_ARITY', 1, 1, "Function 'max' takes at least 1 argument, got 0 at line 1, column 1"],
    ['mean()', 'FORMULA_ARITY', 1, 1, "Function 'mean' takes at least 1 argument, got 0 at line 1, column 1"],
    ['median()', 'FORMULA_ARITY', 1, 1, "Function 'median' takes at least 1 argument, got 0 at line 1, column 1"],
    ['round(1, 2, 3)', 'FORMULA_ARITY', 1, 1, "Function 'round' takes 1 or 2 arguments (value, digits), got 3 at line 1, column 1"],
    ['if(P1, 1)', 'FORMULA_ARITY', 1, 1, "Function 'if' takes 3 arguments (condition, then, else), got 2 at line 1, column 1"],
    ['elif(P1, 1, 2)', 'FORMULA_ARITY', 1, 1, 'elif takes pairs of condition and value, then else and the default value, as in elif(c1, v1, c2, v2, else, d); got 3 arguments at line 1, column 1'],
    ['elif(P1, 1, P2, 2)', 'FORMULA_ARITY', 1, 1, 'elif takes pairs of condition and value, then else and the default value, as in elif(c1, v1, c2, v2, else, d); got 4 arguments at line 1, column 1'],
    ['elif(else, 2)', 'FORMULA_ARITY', 1, 1, 'elif takes pairs of condition and value, then else and the default value, as in elif(c1, v1, c2, v2, else, d); got 2 arguments at line 1, column 1'],
    ['elif(P1, else, else, 2)', 'FORMULA_RESERVED_NAME', 1, 10, "'else' can only be used in elif(...), just before the default value at line 1, column 10"],
    ['sqrt(4)', 'FORMULA_UNKNOWN_FUNCTION', 1, 1, "Unknown function 'sqrt' at line 1, column 1 (functions: min, max, mean, median, abs, sin, cos, tan, round, if, elif)"],
    ['P1(4)', 'FORMULA_UNKNOWN_FUNCTION', 1, 1, "'P1' is not a function at line 1, column 1 (functions: min, max, mean, median, abs, sin, cos, tan, round, if, elif)"],
    ['round(P1, 1.5)', 'FORMULA_INVALID_ARGUMENT', 1, 11, 'round(): the number of digits must be a whole number from -15 to 15, got 1.5 at line 1, column 11'],
    ['round(P1, 16)', 'FORMULA_INVALID_ARGUMENT', 1, 11, 'round(): the number of digits must be a whole number from -15 to 15, got 16 at line 1, column 11'],
  ]
  for (const [src, code, line, column, message] of rows) {
    const e = fail(src)
    t.equal(e.code, code, src)
    t.same([e.position.line, e.position.column], [line, column], src)
    t.equal(e.message, message, src)
  }
})

t.test('reserved words', async t => {
  t.same(RESERVED_WORDS, ['and', 'or', 'if', 'elif', 'else', 'null', 'x'])
  for (const w of ['if', 'elif', 'null', 'AND', 'or', 'Null']) {
    const e = fail(`${w} = 1; 2`)
    t.equal(e.code, 'FORMULA_RESERVED_NAME', w)
    t.equal(e.message, `'${w}' is a keyword and cannot be used as a name at line 1, column 1`, w)
  }
  t.equal(fail('x = 1').message, "'x' is the multiplication operator and cannot be used as a name at line 1, column 1")
  t.equal(fail('X = 1').code, 'FORMULA_RESERVED_NAME')
  t.equal(fail('else = 1').code, 'FORMULA_RESERVED_NAME')
  t.equal(fail('1 + if').message, "'if' is a keyword and cannot be used as a name at line 1, column 5")
  t.equal(fail('P1 + else').code, 'FORMULA_RESERVED_NAME')
  t.equal(fail('1 + AND').code, 'FORMULA_RESERVED_NAME')
  t.equal(fail('x * 2').code, 'FORMULA_RESERVED_NAME')
})

t.test('assignments', async t => {
  const e = fail('P1 = 2; P1')
  t.equal(e.code, 'FORMULA_INVALID_ASSIGNMENT')
  t.equal(e.message, "'P1' is an input pin and cannot be assigned (to compare, use ==) at line 1, column 1")
  t.equal(fail('a = 1;\n  P2 = a').position.line, 2)
})

t.test('numbers too large', async t => {
  const e = fail('P1 + 1e999')
  t.equal(e.code, 'FORMULA_INVALID_NUMBER')
  t.equal(e.message, 'Number 1e999 is too large at line 1, column 6')
})

t.test('declared pins', async t => {
  t.ok(isValidName('P1'))
  t.ok(isValidName('outside_temp'))
  t.ok(isValidName('_a'))
  t.notOk(isValidName('1a'))
  t.notOk(isValidName('room temp'))
  t.notOk(isValidName('Außen'))
  t.notOk(isValidName(''))
  t.notOk(isValidName('x'))
  t.notOk(isValidName('AND'))
  t.equal(fail('1', ['P1', 'room temp']).code, 'FORMULA_INVALID_PIN')
  t.match(fail('1', ['P1', 'room temp']).message, /^Pin name 'room temp' cannot be used in a formula/)
  t.equal(fail('1', ['x']).code, 'FORMULA_INVALID_PIN')
  t.equal(fail('1', ['P1', 'P1']).message, "Pin name 'P1' is declared twice")
})

t.test('FormulaError', async t => {
  const e = fail('P9')
  t.ok(e instanceof Error)
  t.equal(e.name, 'FormulaError')
  t.equal(typeof e.stack, 'string')
})
