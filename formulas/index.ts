// The formula language of virtual datapoints (spec part 2, "Formula language"): pure, no I/O.
//
//   const f = compileFormula('a = P1 + P2; if(a > 10, a * 2, null);', ['P1', 'P2', 'P3'])
//   f.evaluate([4, 7, null])   // → 22: values aligned with the declared pins
//   f.evaluate([4, 5, null])   // → null: emit nothing
//   f.inputs                   // → ['P1', 'P2']: the pins the formula refers to
//
// Compile once per virtual datapoint (parse + closure building); `evaluate` allocates nothing.
// Compile errors are FormulaError with a stable `code`, a `position` {offset, line, column}
// and a message for the engineer, e.g. `Unknown name 'P9' at line 1, column 4 (...)`.
//
// The language, and the decisions taken where the spec is silent:
//
// Equations (rule 1). A formula is equations separated by `;`, run left to right; only the
//   last one gives the result (`a=P1+P2;0;` always gives 0). The final `;` is optional;
//   empty equations (`1;;2`) are a syntax error. An equation is `name = expression` or an
//   expression; an assignment as the last equation gives the assigned value. An expression
//   before the last equation has no effect.
// Names (rule 2). Pins (whatever the caller declares: P1..P5 for formulas, free names for
//   counters) and names assigned by earlier equations; letters, digits and `_`, not starting
//   with a digit, case-sensitive. A name may be assigned again (later uses see the new value);
//   a pin may not be assigned. Using a name that is unknown, or only assigned later, is a
//   compile error naming it and its line and column. Reserved, in any letter case, as names:
//   `AND OR if elif else null x`. Function names are not reserved (`min = 1; min(min, P1)`
//   works) and, like keywords, are case-insensitive (`MAX(...)`, `and`).
// Operators (rule 3), loosest first: OR; AND; comparisons `< > <= >= == !=`; `+ -`;
//   `* x / %`; unary minus; numbers, names, calls, parentheses. Arithmetic chains are
//   left-associative; comparisons do not chain (`a < b < c` is an error: use AND).
//   `x` (or `X`) multiplies when it cannot be read as part of a name: a name swallows a
//   touching `x` (`P1xP2` is one, unknown, name) and `x` followed by a letter or `_` is not an
//   operator. So `2x3`, `2 x P1`, `P1 x P2`, `(a)x(b)`, `P1 x2` multiply; `P1xP2` and
//   `2xP1` do not. `x` can therefore never be a name. `=` inside an expression is an error
//   suggesting `==`. There is no power operator.
// Numbers: `12`, `1.5`, `.5`, `5.`, `1e-3`, `2.5E6`. No sign in the literal: `-3` is negation.
//   Whitespace, tabs and line breaks may appear between any tokens.
// Booleans are numbers. Comparisons, AND and OR give 1 or 0. A condition holds when it is a
//   number other than 0; null is false. AND and OR never give null.
// null (rule 5). The literal `null`, a missing pin value (null/undefined) and a non-finite
//   input (NaN, ±Infinity) are "no value". Arithmetic, `< > <= >=` and every function give
//   null if any operand is null; `==` and `!=` compare null as a value (`P1 == null` tests
//   for no value). A result of null means the virtual datapoint emits nothing.
// Division and modulo by zero give null, as does any non-finite intermediate result
//   (overflow). `%` keeps the sign of the dividend (-7 % 3 = -1), like JS. -0 is reported as 0.
// Functions (rule 4), names case-insensitive: min, max, mean, median take 1 or more arguments
//   (median of an even count is the mean of the two middle values); abs, sin, cos, tan take
//   exactly 1 (radians); round(v) rounds to a whole number, round(v, digits) to `digits` places
//   after the point (negative: before it, round(1234, -2) = 1200); digits must be a whole
//   number from -15 to 15 (a constant otherwise is a compile error; a computed one gives null).
//   round rounds half away from zero (2.5 → 3, -2.5 → -3, round(1.005, 2) = 1.01).
// Conditionals (rule 6). if(condition, then, else); elif(c1, v1, c2, v2, ..., else, d): the
//   value of the first condition that holds, else d; at least one pair. Only the chosen
//   branch is evaluated.
// Limits: at most MAX_FORMULA_LENGTH (10,000) characters and MAX_NESTING_DEPTH (100) levels
//   of parentheses; beyond them a FormulaError, never a stack overflow.

export type { Position } from './ast.ts'
export type { InputValues, Value } from './code.ts'
export { type CompiledFormula, compileFormula, isValidName, RESERVED_WORDS } from './compile.ts'
export { FormulaError, type FormulaErrorCode } from './errors.ts'
export { MAX_FORMULA_LENGTH, MAX_NESTING_DEPTH, parseFormula } from './parser.ts'
