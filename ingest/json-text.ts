// The observations of a JSON ingest body read straight from its text (issue 14 item 1), for
// the shape clients send: {"<identifier>":[{"time":"<timestamp>","value":<number>},...],...}.
// JSON.parse builds an object of one key per datapoint (a thousand keys: a dictionary, each
// key internalized) and an object per observation, which validation then walks again with
// Object.entries; the profile of bench:vdp over HTTP put that at ~20% of the event loop, the
// largest cost of the JSON ingest.
//
// This reader takes only that shape and gives up (undefined) on anything else: escapes or
// control characters in a string, other, missing or repeated fields, a repeated or index-like
// identifier ("123": JSON.parse puts those first), "__proto__" and "constructor", an
// identifier, time or value that validation refuses, malformed JSON. The caller then parses
// and validates the text as before (api/app.ts, json-observations.ts), which gives the same
// rows or the usual error: the result never depends on which way ran
// (test/ingest/json-text.test.ts compares the two on generated bodies).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import { identifierProblem } from '../core/identifier.ts'
import { scanDecimal } from '../protocol/decimal.ts'
import { parseTimestampIn } from '../core/timestamp.ts'
import { type IdentifiedObservation, loopTurnDue, MAX_IDENTIFIER_LENGTH } from './json-observations.ts'

const QUOTE = 34
const BACKSLASH = 92
const COMMA = 44
const COLON = 58
const OPEN_OBJECT = 123
const CLOSE_OBJECT = 125
const OPEN_ARRAY = 91
const CLOSE_ARRAY = 93
const MINUS = 45
const DOT = 46

const isDigit = (c: number) => c >= 48 && c <= 57

/** A cursor over the text; each read returns false (or NaN) where the text leaves the shape. */
class Cursor {
  i = 0
  /** The content of the last string read: [from, to). */
  from = 0
  to = 0

  constructor (readonly s: string) {}

  skipSpace(): void {
    const s = this.s
    let i = this.i
    for (;;) {
      const c = s.charCodeAt(i)
      if (c === 32 || c === 10 || c === 13 || c === 9) i++
      else break
    }
    this.i = i
  }

  /** The character `c`, after white space. */
  take(c: number): boolean {
    this.skipSpace()
    if (this.s.charCodeAt(this.i) !== c) return false
    this.i++
    return true
  }

  atEnd(): boolean {
    this.skipSpace()
    return this.i === this.s.length
  }

  /** A string without escapes and control characters (which JSON forbids unescaped). */
  string(): boolean {
    if (!this.take(QUOTE)) return false
    const s = this.s
    const n = s.length
    let j = this.i
    for (;;) {
      if (j >= n) return false
      const c = s.charCodeAt(j)
      if (c === QUOTE) break
      if (c === BACKSLASH || c < 32) return false
      j++
    }
    this.from = this.i
    this.to = j
    this.i = j + 1
    return true
  }

  /** Whether the last string read is `word` (ASCII). */
  was(word: string): boolean {
    if (this.to - this.from !== word.length) return false
    for (let k = 0; k < word.length; k++) if (this.s.charCodeAt(this.from + k) !== word.charCodeAt(k)) return false
    return true
  }

  /** A JSON number (RFC 8259 grammar), converted as JSON.parse does; NaN if there is none. */
  number(): number {
    this.skipSpace()
    const s = this.s
    const start = this.i
    let j = start
    if (s.charCodeAt(j) === MINUS) j++
    const first = s.charCodeAt(j)
    if (first === 48) j++
    else if (first >= 49 && first <= 57) { j++; while (isDigit(s.charCodeAt(j))) j++ } else return NaN
    if (s.charCodeAt(j) === DOT) {
      j++
      if (!isDigit(s.charCodeAt(j))) return NaN
      while (isDigit(s.charCodeAt(j))) j++
    }
    const e = s.charCodeAt(j)
    if (e === 101 || e === 69) {
      j++
      const sign = s.charCodeAt(j)
      if (sign === 43 || sign === MINUS) j++
      if (!isDigit(s.charCodeAt(j))) return NaN
      while (isDigit(s.charCodeAt(j))) j++
    }
    this.i = j
    // The shared scanner of the wire (a superset of this grammar, rounding as JSON.parse
    // does); NaN for a literal that overflows or underflows to 0 (1e-400): the full parse
    // then refuses it.
    return scanDecimal(s, start, j)
  }
}

/** Keys JSON.parse or secure-json-parse treat differently from text order: array indexes, __proto__, constructor. */
function specialKey(id: string): boolean {
  if (id === '__proto__' || id === 'constructor') return true
  for (let k = 0; k < id.length; k++) if (!isDigit(id.charCodeAt(k))) return false
  return true
}

/** Reads one {"time": ..., "value": ...} into `out`; false where it leaves the shape. */
function observation(c: Cursor, id: string, out: IdentifiedObservation[]): boolean {
  if (!c.take(OPEN_OBJECT)) return false
  let time = NaN
  let value = NaN
  let fields = 0
  for (;;) {
    if (!c.string()) return false
    if (c.was('time') && time !== time) {
      if (!c.take(COLON) || !c.string()) return false
      const parsed = parseTimestampIn(c.s, c.from, c.to)
      if (parsed === undefined) return false
      time = parsed
    } else if (c.was('value') && value !== value) {
      if (!c.take(COLON)) return false
      value = c.number()
      if (!Number.isFinite(value)) return false
    } else {
      return false
    }
    if (++fields === 2) break
    if (!c.take(COMMA)) return false
  }
  if (!c.take(CLOSE_OBJECT)) return false
  out.push({ id, time, value })
  return true
}

/**
 * The observations of `text`, checked as validateJsonObservationsInSteps checks them, or
 * undefined (see above). Like it, it lets the event loop turn every OBSERVATIONS_PER_TURN
 * observations, before the next identifier's.
 */
export async function observationsFromJsonText(text: string): Promise<IdentifiedObservation[] | undefined> {
  const c = new Cursor(text)
  const out: IdentifiedObservation[] = []
  const seen = new Set<string>()
  if (!c.take(OPEN_OBJECT)) return undefined
  if (c.take(CLOSE_OBJECT)) return c.atEnd() ? out : undefined
  const turnDue = loopTurnDue()
  for (;;) {
    if (turnDue(out.length)) await yieldToLoop()
    if (!c.string()) return undefined
    const id = text.slice(c.from, c.to)
    if (id.length === 0 || id.length > MAX_IDENTIFIER_LENGTH || specialKey(id) || identifierProblem(id) !== undefined) return undefined
    if (seen.has(id)) return undefined
    seen.add(id)
    if (!c.take(COLON) || !c.take(OPEN_ARRAY)) return undefined
    if (!c.take(CLOSE_ARRAY)) {
      do {
        if (!observation(c, id, out)) return undefined
      } while (c.take(COMMA))
      if (!c.take(CLOSE_ARRAY)) return undefined
    }
    if (c.take(COMMA)) continue
    if (!c.take(CLOSE_OBJECT)) return undefined
    return c.atEnd() ? out : undefined
  }
}
