// One CSV record = one physical line: field splitting and conversion to a row or an error.
//
// Field rules (documented decisions):
// - A field is quoted only when its first non-blank character is the quote character; a
//   quote inside an unquoted field is an ordinary character (O'Brien, 12"-pipe).
// - Inside quotes the delimiter is literal and a doubled quote stands for one quote.
//   Text between the closing quote and the next delimiter is appended literally.
// - Newlines inside quotes are NOT supported: a record never spans lines, so line numbers
//   are physical line numbers and one broken quote cannot swallow the rest of the file. A
//   quote left open at the end of the line takes the rest of the line as its content.
// - Unquoted fields are trimmed of surrounding blanks (space; tab unless tab is the
//   delimiter). Quoted identifiers are kept verbatim; value and time fields are always
//   trimmed (also inside quotes).
// - Only the first three fields are read; further fields are ignored. A line with too many
//   fields fails only when the fields that land in the value/time columns are not a number /
//   timestamp (e.g. an unquoted identifier containing the delimiter: "Room 1, floor 2").
// - Missing fields (a line with fewer than three) are empty text, then the usual checks run
//   in order, so `abc` gives `Cannot parse float: ''` and `abc,1` gives
//   `Cannot parse datetime: ''` (preferred column order).
// - Check order: identifier empty, identifier backslash, identifier longer than 1,000
//   characters (as JSON and MQTT, issue 29), identifier control character
//   (core/identifier.ts: NUL and other C0/C1 controls are refused), float, datetime.
// - Values: finite floats only (the shared scanner, ../decimal.ts); a decimal comma is accepted when the
//   delimiter is not `,`.

import { parseEpochRange, parseTimestampRange } from '../../core/timestamp.ts'
import { controlCharacterIn } from '../../core/identifier.ts'
import { MAX_ID_LENGTH } from '../line-protocol.ts'
import { ERR_IDENTIFIER_BACKSLASH, ERR_IDENTIFIER_EMPTY, ERR_IDENTIFIER_TOO_LONG, errDatetime, errFloat, errIdentifierControl } from './errors.ts'
import { scanDecimal } from '../decimal.ts'

export type Delimiter = ',' | ';' | '\t' | '|'
export type QuoteChar = '"' | "'"
export type TimeFormat = 'iso' | 'epoch'
/** Index (0..2) of each column in a record. */
export interface ColumnOrder { id: number; value: number; time: number }

export interface CsvDialect {
  delimiter: Delimiter
  quote: QuoteChar
  /** The first non-blank line is a header (skipped, still counted in line numbers). */
  header: boolean
  columns: ColumnOrder
  timeFormat: TimeFormat
}

export const PREFERRED_COLUMNS: ColumnOrder = { id: 0, value: 1, time: 2 }
export const PREFERRED_DIALECT: CsvDialect = {
  delimiter: ',', quote: '"', header: false, columns: PREFERRED_COLUMNS, timeFormat: 'iso',
}

export interface CsvRow { id: string; time: number; value: number; line: number }

/** Splits records into (at most) their first three fields. Positions refer to `s`. */
export class FieldSplitter {
  readonly delim: number
  readonly quote: number
  private readonly delimStr: string
  private readonly quoteStr: string
  /** Field i is s[start[i], end[i]) unless text[i] holds its unescaped content. */
  readonly start = [0, 0, 0]
  readonly end = [0, 0, 0]
  readonly text: (string | null)[] = [null, null, null]
  // Memo of the last indexOf results: positions only move forward inside one buffer, so a
  // search from p <= nextDelim has the same answer. Keeps lines without delimiters O(n).
  // The memo belongs to one text (compared by value: equal texts share positions).
  private nextDelim = -1
  private nextQuote = -1
  private memoText = ''

  constructor(delimiter: Delimiter, quote: QuoteChar) {
    this.delimStr = delimiter
    this.quoteStr = quote
    this.delim = delimiter.charCodeAt(0)
    this.quote = quote.charCodeAt(0)
  }

  /** Forget the search memo (also done automatically when split() gets another text). */
  reset(): void {
    this.nextDelim = -1
    this.nextQuote = -1
    this.memoText = ''
  }

  private findDelim(s: string, p: number): number {
    if (p <= this.nextDelim) return this.nextDelim
    const d = s.indexOf(this.delimStr, p)
    return (this.nextDelim = d < 0 ? s.length : d)
  }

  private findQuote(s: string, p: number): number {
    if (p <= this.nextQuote) return this.nextQuote
    const d = s.indexOf(this.quoteStr, p)
    return (this.nextQuote = d < 0 ? s.length : d)
  }

  isBlank(c: number): boolean {
    return c === 32 || (c === 9 && this.delim !== 9)
  }

  /** Split s[ls, le) into up to three fields; returns how many were found. */
  split(s: string, ls: number, le: number): number {
    const delim = this.delim, quote = this.quote
    if (s !== this.memoText) { this.nextDelim = this.nextQuote = -1; this.memoText = s }
    let p = ls
    let n = 0
    for (;;) {
      let c = s.charCodeAt(p)
      while (p < le && (c === 32 || (c === 9 && delim !== 9))) c = s.charCodeAt(++p)
      let d: number
      if (p < le && c === quote) {
        let q = p + 1
        let parts: string | null = null
        let seg = q
        let closed = -1
        for (;;) {
          const j = this.findQuote(s, q)
          if (j >= le) break
          if (j + 1 < le && s.charCodeAt(j + 1) === quote) {
            parts = (parts ?? '') + s.slice(seg, j + 1)
            q = seg = j + 2
            continue
          }
          closed = j
          break
        }
        if (closed < 0) { // open quote: rest of the line
          this.setField(n, parts, seg, le, s)
          return n + 1
        }
        d = this.findDelim(s, closed + 1)
        if (d > le) d = le
        let te = d
        let ts = closed + 1
        while (te > ts && this.isBlank(s.charCodeAt(te - 1))) te--
        while (ts < te && this.isBlank(s.charCodeAt(ts))) ts++
        if (ts < te) this.setField(n, (parts ?? '') + s.slice(seg, closed) + s.slice(ts, te), ts, ts, s)
        else this.setField(n, parts, seg, closed, s)
      } else {
        d = this.findDelim(s, p)
        if (d > le) d = le
        let e = d
        while (e > p) {
          const t = s.charCodeAt(e - 1)
          if (t !== 32 && (t !== 9 || delim === 9)) break
          e--
        }
        this.start[n] = p
        this.end[n] = e
        this.text[n] = null
      }
      n++
      if (d >= le || n === 3) return n
      p = d + 1
    }
  }

  private setField(n: number, parts: string | null, a: number, b: number, s: string): void {
    if (parts === null) {
      this.start[n] = a
      this.end[n] = b
      this.text[n] = null
    } else {
      this.text[n] = parts + s.slice(a, b)
      this.start[n] = 0
      this.end[n] = this.text[n]!.length
    }
  }

  /** Text of field i (n = number of fields found; missing fields are ''). */
  fieldText(s: string, i: number, n: number): string {
    if (i >= n) return ''
    return this.text[i] ?? s.slice(this.start[i], this.end[i])
  }
}

/** Converts records of one dialect to rows; error texts from errors.ts. */
export class LineParser {
  readonly splitter: FieldSplitter
  private readonly ci: number
  private readonly cv: number
  private readonly ct: number
  private readonly epoch: boolean
  private readonly decimalComma: boolean
  private lastId = ''
  /** Error of the previous record; set when parse() returns undefined. */
  error = ''

  constructor(readonly dialect: CsvDialect) {
    this.splitter = new FieldSplitter(dialect.delimiter, dialect.quote)
    this.ci = dialect.columns.id
    this.cv = dialect.columns.value
    this.ct = dialect.columns.time
    this.epoch = dialect.timeFormat === 'epoch'
    this.decimalComma = dialect.delimiter !== ','
  }

  reset(): void {
    this.splitter.reset()
  }

  /** Parse record s[ls, le); the row, or undefined with `this.error` set. */
  parse(s: string, ls: number, le: number, line: number): CsvRow | undefined {
    const sp = this.splitter
    const n = sp.split(s, ls, le)
    // identifier
    const ci = this.ci
    let id: string
    if (ci >= n) id = ''
    else if (sp.text[ci] !== null) id = sp.text[ci]!
    else {
      const a = sp.start[ci], b = sp.end[ci]
      const last = this.lastId
      if (b - a === last.length && s.startsWith(last, a)) id = last
      else {
        if (a === b) { this.error = ERR_IDENTIFIER_EMPTY; return undefined }
        id = copyOut(s, a, b)
        if (id.indexOf('\\') >= 0) { this.error = ERR_IDENTIFIER_BACKSLASH; return undefined }
        if (id.length > MAX_ID_LENGTH) { this.error = ERR_IDENTIFIER_TOO_LONG; return undefined }
        const control = controlCharacterIn(id)
        if (control) { this.error = errIdentifierControl(control); return undefined }
        this.lastId = id
      }
    }
    if (id.length === 0) { this.error = ERR_IDENTIFIER_EMPTY; return undefined }
    if (id !== this.lastId) {
      if (id.indexOf('\\') >= 0) { this.error = ERR_IDENTIFIER_BACKSLASH; return undefined }
      if (id.length > MAX_ID_LENGTH) { this.error = ERR_IDENTIFIER_TOO_LONG; return undefined }
      const control = controlCharacterIn(id)
      if (control) { this.error = errIdentifierControl(control); return undefined }
    }
    // value
    const value = this.num(s, this.cv, n, false)
    if (value !== value) { this.error = errFloat(this.trimmedText(s, this.cv, n)); return undefined }
    const time = this.num(s, this.ct, n, true)
    if (time !== time) { this.error = errDatetime(this.trimmedText(s, this.ct, n)); return undefined }
    return { id, time, value, line }
  }

  private num(s: string, i: number, n: number, isTime: boolean): number {
    if (i >= n) return NaN
    const sp = this.splitter
    let t = sp.text[i]
    let a: number, b: number
    if (t === null) { t = s; a = sp.start[i]; b = sp.end[i] } else { a = 0; b = t.length }
    while (a < b && sp.isBlank(t.charCodeAt(a))) a++
    while (b > a && sp.isBlank(t.charCodeAt(b - 1))) b--
    if (!isTime) return scanDecimal(t, a, b, this.decimalComma)
    return this.epoch ? parseEpochRange(t, a, b) : parseTimestampRange(t, a, b)
  }

  private trimmedText(s: string, i: number, n: number): string {
    const t = this.splitter.fieldText(s, i, n)
    let a = 0, b = t.length
    while (a < b && this.splitter.isBlank(t.charCodeAt(a))) a++
    while (b > a && this.splitter.isBlank(t.charCodeAt(b - 1))) b--
    return t.slice(a, b)
  }
}

/**
 * s.slice(a, b) as a string that does not keep `s` alive. V8 represents longer substrings
 * as views into their parent; an identifier kept by a consumer (e.g. as a Map key) would
 * then pin a whole input chunk in memory. Short slices are copied by V8 anyway.
 */
function copyOut(s: string, a: number, b: number): string {
  if (b - a < 13) return s.slice(a, b)
  return (' ' + s.slice(a, b)).slice(1)
}
