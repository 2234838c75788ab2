// Zinc, Haystack's text format of grids (project-haystack.org/doc/docHaystack/Zinc), version
// "3.0": writing values, whole grids and grids as a stream (header, then one line per row),
// and reading grids and single values (query parameters, filter literals). Pure, no I/O.
import { Coord, DateTime, Grid, HDate, HTime, MARKER, NA_VALUE, Num, REMOVE, Ref, Sym, Uri, XStr, Marker, NA, Remove,
  isDict, isoOf, haystackTz, ianaTz, parseIso, isDateText, isTimeText, type Col, type Dict, type HVal } from './values.ts'

export const ZINC_MIME = 'text/zinc'

// ---------------------------------------------------------------- writing

const STR_ESC: Record<string, string> = { '\b': '\\b', '\f': '\\f', '\n': '\\n', '\r': '\\r', '\t': '\\t', '"': '\\"', '\\': '\\\\', '$': '\\$' }

export function zincStr(s: string): string {
  // eslint-disable-next-line no-control-regex
  return '"' + s.replace(/[\b\f\n\r\t"\\$]|[\u0000-\u001f]/g, (c) => STR_ESC[c] ?? '\\u' + c.charCodeAt(0).toString(16).padStart(4, '0')) + '"'
}

export function zincNum(n: number): string {
  if (n === Infinity) return 'INF'
  if (n === -Infinity) return '-INF'
  if (Number.isNaN(n)) return 'NaN'
  return String(n)
}

/** One value as Zinc. */
export function zincValue(v: HVal): string {
  if (v === null) return 'N'
  if (v === true) return 'T'
  if (v === false) return 'F'
  if (typeof v === 'string') return zincStr(v)
  if (v instanceof Marker) return 'M'
  if (v instanceof NA) return 'NA'
  if (v instanceof Remove) return 'R'
  if (v instanceof Num) return zincNum(v.val) + (v.unit && Number.isFinite(v.val) ? v.unit : '')
  if (v instanceof Ref) return '@' + v.id + (v.dis === undefined ? '' : ' ' + zincStr(v.dis))
  if (v instanceof Uri) return '`' + v.val.replace(/[`\\]/g, (c) => '\\' + c) + '`'
  if (v instanceof Sym) return '^' + v.val
  if (v instanceof HDate || v instanceof HTime) return v.val
  if (v instanceof DateTime) return isoOf(v) + ' ' + haystackTz(v.tz)
  if (v instanceof Coord) return `C(${v.lat},${v.lng})`
  if (v instanceof XStr) return `${v.type}(${zincStr(v.val)})`
  if (Array.isArray(v)) return '[' + v.map(zincValue).join(',') + ']'
  if (v instanceof Grid) return '<<\n' + zincGrid(v) + '>>'
  if (isDict(v)) return '{' + zincMeta(v).trimStart() + '}'
  throw new TypeError('not a Haystack value')
}

/** Tags of a meta line: ` name` for markers, ` name:value` otherwise (null tags left out). */
function zincMeta(d: Dict): string {
  let out = ''
  for (const [k, v] of Object.entries(d)) {
    if (v === null) continue
    out += v instanceof Marker ? ' ' + k : ' ' + k + ':' + zincValue(v)
  }
  return out
}

/** The first two lines of a grid: version with the grid's meta, then the columns. */
export function zincHeader(meta: Dict, cols: readonly Col[]): string {
  const names = cols.length === 0 ? 'empty' : cols.map((c) => c.name + zincMeta(c.meta)).join(',')
  return 'ver:"3.0"' + zincMeta(meta) + '\n' + names + '\n'
}

/** One row line of a grid with these columns (a missing tag is an empty cell). */
export function zincRow(row: Dict, cols: readonly Col[]): string {
  let out = ''
  for (let i = 0; i < cols.length; i++) {
    if (i > 0) out += ','
    const v = row[cols[i].name]
    if (v !== undefined && v !== null) out += zincValue(v)
  }
  return out + '\n'
}

export function zincGrid(g: Grid): string {
  let out = zincHeader(g.meta, g.cols)
  for (const r of g.rows) out += zincRow(r, g.cols)
  return out
}

// ---------------------------------------------------------------- reading

export class ZincError extends Error {}

const ID_START = /[a-zA-Z]/
const ID_PART = /[a-zA-Z0-9_]/
const REF_CHAR = /[a-zA-Z0-9_:\-.~]/
// Units: letters, %, _, /, $, and every character beyond ASCII (°, µ, ...).
const UNIT_CHAR = /[a-zA-Z%_/$\u0080-\uffff]/
const TZ_CHAR = /[a-zA-Z0-9_\-+]/

class Reader {
  i = 0
  /** Nesting of lists, dicts and grids: bounded so that no input exhausts the stack. */
  private depth = 0
  constructor (readonly s: string) {}

  fail(what: string): never {
    const line = this.s.slice(0, this.i).split('\n').length
    throw new ZincError(`Invalid Zinc at line ${line}, character ${this.i + 1}: ${what}`)
  }

  peek(o = 0): string { return this.s[this.i + o] ?? '' }
  eof(): boolean { return this.i >= this.s.length }
  spaces(): void { while (this.peek() === ' ' || this.peek() === '\t') this.i++ }
  skipWs(): void { while (/[ \t\r\n]/.test(this.peek())) this.i++ }
  expect(c: string): void { if (this.peek() !== c) this.fail(`expected '${c}'`); this.i++ }

  id(): string {
    if (!ID_START.test(this.peek())) this.fail('expected a name')
    const start = this.i
    while (ID_PART.test(this.peek())) this.i++
    return this.s.slice(start, this.i)
  }

  newline(): void {
    this.spaces()
    if (this.peek() === '\r') this.i++
    if (this.peek() !== '\n' && !this.eof()) this.fail('expected the end of the line')
    if (!this.eof()) this.i++
  }

  enter(): void { if (++this.depth > 64) this.fail('values nested deeper than 64') }
  leave(): void { this.depth-- }

  /** A grid: `ver:"3.0" meta` line, columns line, row lines (up to a blank line, `>>` or the end). */
  grid(nested = false): Grid {
    this.enter()
    this.skipWs()
    if (this.id() !== 'ver') this.fail('a grid starts with ver:"3.0"')
    this.expect(':')
    const ver = this.value()
    if (ver !== '3.0' && ver !== '2.0') this.fail(`unsupported Zinc version ${JSON.stringify(ver)}`)
    const meta = this.meta()
    this.newline()
    const cols: Col[] = []
    for (;;) {
      this.spaces()
      const name = this.id()
      cols.push({ name, meta: this.meta() })
      this.spaces()
      if (this.peek() !== ',') break
      this.i++
    }
    this.newline()
    const rows: Dict[] = []
    const empty = cols.length === 1 && cols[0].name === 'empty'
    for (;;) {
      if (this.eof()) break
      if (nested) { this.skipWs(); if (this.peek() === '>' && this.peek(1) === '>') break }
      if (this.peek() === '\n' || (this.peek() === '\r' && this.peek(1) === '\n')) { if (!nested) break; this.i++; continue }
      const row: Dict = {}
      for (let c = 0; c < cols.length; c++) {
        if (c > 0) this.expect(',')
        this.spaces()
        const p = this.peek()
        if (p !== ',' && p !== '\n' && p !== '\r' && p !== '' && !(nested && p === '>' && this.peek(1) === '>')) {
          const v = this.value()
          if (v !== null) row[cols[c].name] = v
        }
        this.spaces()
      }
      if (!empty) rows.push(row)
      if (!(nested && this.peek() === '>')) this.newline()
    }
    this.leave()
    return new Grid(meta, empty ? [] : cols, rows)
  }

  /** ` name` and ` name:value` items up to the end of the line (or a `,`). */
  meta(): Dict {
    const d: Dict = {}
    for (;;) {
      this.spaces()
      if (!ID_START.test(this.peek())) return d
      const name = this.id()
      if (this.peek() === ':') { this.i++; d[name] = this.value() } else d[name] = MARKER
    }
  }

  value(): HVal {
    this.spaces()
    const c = this.peek()
    if (c === '"') return this.str()
    if (c === '@') return this.ref()
    if (c === '`') return this.uri()
    if (c === '^') { this.i++; return new Sym(this.refChars()) }
    if (c === '[') return this.list()
    if (c === '{') return this.dict()
    if (c === '<' && this.peek(1) === '<') {
      this.i += 2
      const g = this.grid(true)
      this.skipWs()
      this.expect('>'); this.expect('>')
      return g
    }
    if (/[0-9]/.test(c) || (c === '-' && /[0-9I]/.test(this.peek(1)))) return this.numberOrTime()
    if (ID_START.test(c)) return this.keyword()
    return this.fail(c === '' ? 'unexpected end' : `unexpected '${c}'`)
  }

  keyword(): HVal {
    const start = this.i
    while (ID_PART.test(this.peek())) this.i++
    const word = this.s.slice(start, this.i)
    switch (word) {
      case 'N': return null
      case 'M': return MARKER
      case 'R': return REMOVE
      case 'NA': return NA_VALUE
      case 'T': return true
      case 'F': return false
      case 'INF': return new Num(Infinity)
      case 'NaN': return new Num(NaN)
    }
    if (word === 'C' && this.peek() === '(') {
      this.i++
      const lat = this.plainNumber(); this.spaces(); this.expect(','); this.spaces()
      const lng = this.plainNumber(); this.expect(')')
      return new Coord(lat, lng)
    }
    if (/^[A-Z]/.test(word) && this.peek() === '(') {
      this.i++
      const val = this.str()
      this.expect(')')
      return new XStr(word, val)
    }
    this.i = start
    return this.fail(`unknown value '${word}'`)
  }

  plainNumber(): number {
    const v = this.numberOrTime()
    if (!(v instanceof Num)) this.fail('expected a number')
    return v.val
  }

  str(): string {
    this.expect('"')
    let out = ''
    for (;;) {
      const c = this.s[this.i++]
      if (c === undefined || c === '\n') { this.i--; this.fail('unterminated string') }
      if (c === '"') return out
      if (c !== '\\') { out += c; continue }
      const e = this.s[this.i++]
      switch (e) {
        case 'b': out += '\b'; break
        case 'f': out += '\f'; break
        case 'n': out += '\n'; break
        case 'r': out += '\r'; break
        case 't': out += '\t'; break
        case '"': case '\\': case '$': case '`': out += e; break
        case 'u': {
          const hex = this.s.slice(this.i, this.i + 4)
          if (!/^[0-9a-fA-F]{4}$/.test(hex)) this.fail('invalid \\u escape')
          out += String.fromCharCode(parseInt(hex, 16)); this.i += 4; break
        }
        default: this.i--; this.fail(`invalid escape '\\${e ?? ''}'`)
      }
    }
  }

  refChars(): string {
    const start = this.i
    while (REF_CHAR.test(this.peek())) this.i++
    if (this.i === start) this.fail('expected the characters of a name')
    return this.s.slice(start, this.i)
  }

  ref(): Ref {
    this.i++
    const id = this.refChars()
    // `@id "dis"`: the display text follows after one space.
    if (this.peek() === ' ' && this.peek(1) === '"') { this.i++; return new Ref(id, this.str()) }
    return new Ref(id)
  }

  uri(): Uri {
    this.i++
    let out = ''
    for (;;) {
      const c = this.s[this.i++]
      if (c === undefined || c === '\n') { this.i--; this.fail('unterminated uri') }
      if (c === '`') return new Uri(out)
      if (c === '\\' && (this.peek() === '`' || this.peek() === '\\')) { out += this.s[this.i++]; continue }
      out += c
    }
  }

  list(): HVal[] {
    this.enter()
    this.i++
    const out: HVal[] = []
    for (;;) {
      this.skipWs()
      if (this.peek() === ']') { this.i++; this.leave(); return out }
      out.push(this.value())
      this.skipWs()
      if (this.peek() === ',') this.i++
      else if (this.peek() !== ']') this.fail("expected ',' or ']'")
    }
  }

  dict(): Dict {
    this.enter()
    this.i++
    const d: Dict = {}
    for (;;) {
      this.skipWs()
      if (this.peek() === '}') { this.i++; this.leave(); return d }
      const name = this.id()
      this.spaces()
      if (this.peek() === ':') { this.i++; d[name] = this.value() } else d[name] = MARKER
      this.skipWs()
      if (this.peek() === ',') this.i++
    }
  }

  /** Numbers (with unit), dates, times and date-times all start with a digit or `-`. */
  numberOrTime(): HVal {
    const start = this.i
    if (this.s.startsWith('-INF', this.i)) { this.i += 4; return new Num(-Infinity) }
    const rest = this.s.slice(this.i, this.i + 40)
    const dt = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(:\d{2}(\.\d+)?)?(Z|[+-]\d{2}:\d{2})/.exec(rest)
    if (dt) {
      this.i += dt[0].length
      const us = parseIso(dt[0])
      if (us === undefined) { this.i = start; this.fail(`invalid date-time '${dt[0]}'`) }
      let tz = 'UTC'
      if (this.peek() === ' ' && /[A-Z]/.test(this.peek(1))) {
        this.i++
        const t0 = this.i
        while (TZ_CHAR.test(this.peek())) this.i++
        const name = this.s.slice(t0, this.i)
        const iana = ianaTz(name)
        if (!iana) { this.i = t0; this.fail(`unknown time zone '${name}'`) }
        tz = iana
      } else if (dt[3] !== 'Z') {
        tz = 'UTC' // an offset without a zone name: the instant, shown in UTC
      }
      return new DateTime(us, tz)
    }
    const date = /^\d{4}-\d{2}-\d{2}/.exec(rest)
    if (date) {
      this.i += 10
      if (!isDateText(date[0])) { this.i = start; this.fail(`invalid date '${date[0]}'`) }
      return new HDate(date[0])
    }
    const time = /^\d{2}:\d{2}(:\d{2}(\.\d+)?)?/.exec(rest)
    if (time) {
      this.i += time[0].length
      if (!isTimeText(time[0])) { this.i = start; this.fail(`invalid time '${time[0]}'`) }
      return new HTime(time[0].length === 5 ? time[0] + ':00' : time[0])
    }
    const num = /^-?\d[\d_]*(\.\d[\d_]*)?([eE][+-]?\d+)?/.exec(rest)
    if (!num) this.fail('expected a number')
    this.i += num[0].length
    const val = Number(num[0].replace(/_/g, ''))
    const u0 = this.i
    while (UNIT_CHAR.test(this.peek())) this.i++
    return new Num(val, this.i > u0 ? this.s.slice(u0, this.i) : undefined)
  }
}

/** Reads a Zinc grid; throws ZincError with the line and character of the first fault. */
export function readZincGrid(text: string): Grid {
  const r = new Reader(text)
  const g = r.grid()
  r.skipWs()
  if (!r.eof()) r.fail('unexpected text after the grid')
  return g
}

/** Reads one Zinc value (a query parameter such as `@p:abc` or `2024-01-01,2024-01-02`). */
export function readZincValue(text: string): HVal {
  const r = new Reader(text)
  const v = r.value()
  r.spaces()
  if (!r.eof()) r.fail('unexpected text after the value')
  return v
}

/** Reads a comma-separated sequence of Zinc values (hisRead's `range=2024-01-01,2024-01-02`). */
export function readZincValues(text: string): HVal[] {
  const r = new Reader(text)
  const out: HVal[] = [r.value()]
  for (r.spaces(); r.peek() === ','; r.spaces()) { r.i++; out.push(r.value()) }
  if (!r.eof()) r.fail('unexpected text after the values')
  return out
}
