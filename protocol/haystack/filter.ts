// Haystack filters (project-haystack.org/doc/docHaystack/Filters): text → AST with the peggy
// grammar beside this file (compiled on first use, as formulas/parser.ts does; no generated
// code committed), AST → a predicate over records. Paths (`equipRef->siteRef`) follow Refs
// through a resolver the caller gives (the records the caller may see), so a path through a
// record the caller cannot read finds nothing.
//
// Comparisons hold only between values of the same kind (a Str is never < a Num), as in the
// standard's reference implementations: `x != v` needs `x` present and of v's kind; numbers
// with different units compare false; Refs compare by id; Bools allow only == and !=.
import { readFileSync } from 'node:fs'
import peggy from 'peggy'
import { DateTime, HDate, HTime, Marker, Num, Ref, Uri, isDict, type Dict, type HVal } from './values.ts'
import { readZincValue } from './zinc.ts'

export type CmpOp = '==' | '!=' | '<' | '<=' | '>' | '>='
export type Filter =
  | { op: 'has' | 'missing'; path: string[] }
  | { op: 'cmp'; path: string[]; cmp: CmpOp; val: HVal }
  | { op: 'isA'; sym: string }
  | { op: 'and' | 'or'; a: Filter; b: Filter }

export const MAX_FILTER_LENGTH = 10_000
export const MAX_FILTER_DEPTH = 100

export class FilterError extends Error { override name = 'FilterError' }

let parser: peggy.Parser | undefined
function getParser(): peggy.Parser {
  if (!parser) {
    const grammar = readFileSync(new URL('./filter.peggy', import.meta.url), 'utf8')
    parser = peggy.generate(grammar, { output: 'parser', grammarSource: 'filter.peggy' })
  }
  return parser
}

/** Parses a filter; throws FilterError naming the position of the first fault. */
export function parseFilter(text: string): Filter {
  if (text.length > MAX_FILTER_LENGTH) throw new FilterError(`Filter is too long: ${text.length} characters, at most ${MAX_FILTER_LENGTH}`)
  let depth = 0
  for (const c of text) {
    if (c === '(' && ++depth > MAX_FILTER_DEPTH) throw new FilterError(`Filter nests parentheses deeper than ${MAX_FILTER_DEPTH}`)
    if (c === ')') depth--
  }
  try {
    return getParser().parse(text, { lit: readZincValue }) as Filter
  } catch (e) {
    if (e instanceof getParser().SyntaxError) {
      const s = e.location.start
      const found = e.found === null ? 'the end' : `'${e.found}'`
      throw new FilterError(`Invalid filter at character ${s.column}: unexpected ${found} in '${text.length > 80 ? text.slice(0, 80) + '...' : text}'`)
    }
    throw new FilterError(`Invalid filter: ${(e as Error).message}`)
  }
}

/** Finds the record a Ref names (among those the caller may see). */
export type Resolve = (ref: Ref) => Dict | undefined
export type Predicate = (rec: Dict) => boolean

/** The filter as a predicate over records; built once, run per record. */
export function compileFilter(f: Filter, resolve: Resolve): Predicate {
  switch (f.op) {
    case 'and': { const a = compileFilter(f.a, resolve); const b = compileFilter(f.b, resolve); return (r) => a(r) && b(r) }
    case 'or': { const a = compileFilter(f.a, resolve); const b = compileFilter(f.b, resolve); return (r) => a(r) || b(r) }
    case 'has': { const get = getter(f.path, resolve); return (r) => get(r) !== undefined }
    case 'missing': { const get = getter(f.path, resolve); return (r) => get(r) === undefined }
    // Without the defs namespace, `^name` matches records with the marker `name` (site, equip, point).
    case 'isA': { const name = f.sym; return (r) => r[name] instanceof Marker }
    case 'cmp': {
      const get = getter(f.path, resolve)
      const test = comparison(f.cmp, f.val)
      return (r) => { const v = get(r); return v !== undefined && (Array.isArray(v) ? v.some((x) => test(x)) : test(v)) }
    }
  }
}

/**
 * The value at a path, or undefined. `a->b` follows a Ref through `resolve`, or a nested Dict;
 * a List of Refs (Haystack "Ref Lists") matches when any of them leads to a match, so a path
 * through a list gives a list of candidates (an array); a list at the end is tested element-wise.
 */
function getter(path: string[], resolve: Resolve): (r: Dict) => HVal | HVal[] | undefined {
  if (path.length === 1) {
    const name = path[0]
    return (r) => { const v = r[name]; return v === null ? undefined : v }
  }
  return (r) => {
    let cur: Dict[] = [r]
    for (let i = 0; i < path.length - 1; i++) {
      const next: Dict[] = []
      for (const d of cur) {
        const v = d[path[i]]
        for (const x of Array.isArray(v) ? v : [v]) {
          const found = x instanceof Ref ? resolve(x) : isDict(x) ? x : undefined
          if (found) next.push(found)
        }
      }
      if (next.length === 0) return undefined
      cur = next
    }
    const last = path[path.length - 1]
    const found = cur.map((d) => d[last]).filter((v) => v !== undefined && v !== null)
    return found.length === 0 ? undefined : found.length === 1 && cur.length === 1 ? found[0] : found
  }
}

/** -1, 0, 1 when both are of one comparable kind; undefined otherwise. */
function order(x: HVal, v: HVal): number | undefined {
  if (typeof v === 'string') return typeof x === 'string' ? (x < v ? -1 : x > v ? 1 : 0) : undefined
  if (typeof v === 'boolean') return typeof x === 'boolean' ? (x === v ? 0 : undefined) : undefined
  if (v instanceof Num) {
    if (!(x instanceof Num) || (x.unit ?? '') !== (v.unit ?? '') && x.unit !== undefined && v.unit !== undefined) return undefined
    if (Number.isNaN(x.val) || Number.isNaN(v.val)) return Number.isNaN(x.val) && Number.isNaN(v.val) ? 0 : undefined
    return x.val < v.val ? -1 : x.val > v.val ? 1 : 0
  }
  if (v instanceof Ref) return x instanceof Ref ? cmpText(x.id, v.id) : undefined
  if (v instanceof Uri) return x instanceof Uri ? cmpText(x.val, v.val) : undefined
  if (v instanceof HDate) return x instanceof HDate ? cmpText(x.val, v.val) : undefined
  if (v instanceof HTime) return x instanceof HTime ? cmpText(x.val, v.val) : undefined
  if (v instanceof DateTime) return x instanceof DateTime ? Math.sign(x.us - v.us) : undefined
  return undefined
}
const cmpText = (a: string, b: string): number => (a < b ? -1 : a > b ? 1 : 0)

function comparison(op: CmpOp, v: HVal): (x: HVal) => boolean {
  const eqOnly = typeof v === 'boolean' || v instanceof Ref
  switch (op) {
    case '==': return (x) => order(x, v) === 0 && unitsEqual(x, v)
    case '!=': return (x) => { const o = order(x, v); return o !== undefined ? o !== 0 || !unitsEqual(x, v) : sameKind(x, v) }
    case '<': return (x) => !eqOnly && order(x, v) === -1
    case '<=': return (x) => { const o = order(x, v); return !eqOnly && o !== undefined && o <= 0 }
    case '>': return (x) => !eqOnly && order(x, v) === 1
    case '>=': return (x) => { const o = order(x, v); return !eqOnly && o !== undefined && o >= 0 }
  }
}

/** == on numbers also needs the same unit (or none on both). */
const unitsEqual = (x: HVal, v: HVal): boolean => !(v instanceof Num) || (x as Num).unit === v.unit

function sameKind(x: HVal, v: HVal): boolean {
  if (typeof v === 'string' || typeof v === 'boolean') return typeof x === typeof v
  return x !== null && typeof x === 'object' && v !== null && typeof v === 'object' && Object.getPrototypeOf(x) === Object.getPrototypeOf(v)
}
