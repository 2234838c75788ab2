// The MQTT time-series line format (spec 3, "MQTT broker interface", "Time-series line
// format", rules 1-6): a hand-written byte scanner over the payload Buffer. No regex, no
// split, no per-line substring except the datapoint identifier (and the tag text when a
// line has one); results go to a sink, so nothing else is allocated per line.
//
//   <datapoint>[,<tag set>] value=<float> <timestamp>
//
// Lines ([rule 5]): separated by `\n`; a `\r` before it is dropped (`\r\n`); empty lines and
// lines of only blanks/tabs are skipped. Line numbers are 1-based physical lines of the
// message, blank ones included, so they match what the sender sees.
// Parts: separated by exactly one blank; two blanks in a row are an error. Trailing blanks
// or tabs after the timestamp are tolerated, anything else there is `trailing characters`.
//
// Datapoint identifier ([rule 1]; the series is named by the UNESCAPED text):
// - Backslash escapes: `\ ` -> blank, `\"` -> quote, `\\` -> backslash, `\,` -> comma; the
//   same both inside and outside quotes. A backslash before any other character is an
//   ordinary character, so `C:\temp` means `C:\temp` (but `C:\\temp` means it too).
//   (`\,` is not in the spec; it lets an unquoted name contain the tag separator.)
// - Quoted form: starts with `"`, ends at the next unescaped `"`, which must be followed by
//   a blank or by `,` + tag set. Inside quotes, blanks and commas need no escape but may
//   have one; `"` must be escaped.
//     "Raum\ 1\ \"Nord\""   -> Raum 1 "Nord"
//     "Raum 1, Nord"        -> Raum 1, Nord
//     "a\\b"                -> a\b
// - Unquoted form: ends at the first unescaped blank or comma. An unescaped `"` inside it is
//   an error (the spec requires quoting and escaping quotes).
//     Room\ 1               -> Room 1
//     building/floor1/temp  -> building/floor1/temp
//     x\"y                  -> x"y
// - Empty (nothing, or `""`) is an error; more than MAX_ID_LENGTH characters is an error;
//   a control character (NUL, other C0/C1 controls, after unescaping) is an error;
//   bytes that are not valid UTF-8 are an error (never silently replaced by U+FFFD).
//
// Tag set ([rule 4]): directly after the identifier, `,` then comma-separated `key=value`
// pairs up to the next unescaped blank; a backslash escapes the next character (any).
// Each pair needs a non-empty key, `=`, and a non-empty value (the first `=` splits); no
// control character (the identifier rule), escaped or not.
// The RAW text (escapes intact, without the leading comma) goes to the sink; parseTagSet()
// turns it into pairs when the store wants them.
//     temp,room=1,floor=2 value=21.5 1700000000000000000   -> tags 'room=1,floor=2'
//
// Value ([rule 2]): the literal `value=` then a finite float: [+|-] digits [. digits]
// [(e|E) [+|-] digits], `5.` and `.5` accepted. Rejected: empty, NaN, Infinity, hex,
// underscores, an `i` suffix, anything overflowing to ±Infinity or a non-zero literal
// underflowing to 0 (decimal.ts, the scanner CSV uses too).
//
// Timestamp ([rule 3]): unsigned decimal digits, Unix time. The spec says nanoseconds, with
// millisecond and microsecond values recognised and zero-padded; we recognise the unit by
// magnitude, i.e. by the number of significant digits (leading zeros ignored):
//     <= 11 digits  seconds        (10 digits: 2001-09-09 .. 2286)
//     12..14        milliseconds   (13 digits: 2001 .. 2286)
//     15..17        microseconds   (16 digits: 2001 .. 2286)
//     18..19        nanoseconds    (19 digits: 2001 .. 2286)
// This matches the usual 10/13/16/19-digit forms and also reads values of each unit back
// to 1973-03-03 (e.g. an 18-digit nanosecond time of 1999) without ambiguity. Seconds are
// an extension the spec does not name. The result is exact integer microseconds:
// nanoseconds are truncated by dropping the last three digits (digit arithmetic; a 19-digit
// value exceeds 2^53, so it is never converted to a float whole). Results above
// Number.MAX_SAFE_INTEGER µs (after 2255-06-05) are rejected. Rejected as well: a sign
// (negative times), fractions, more than 19 significant digits, and a MISSING timestamp
// (the spec says three parts; arrival time is not substituted, so a resend cannot silently
// land at a different time).
//
// Bad lines ([rule 6]) go to sink.error with the line number and a reason; the other lines
// of the same message are still delivered.

import { isUtf8 } from 'node:buffer'
import { controlCharacterIn } from '../core/identifier.ts'
import { scanDecimal } from './decimal.ts'

export interface LineSink {
  /** One good line: identifier (unescaped), time in µs since the epoch, value, raw tag text. */
  observation(id: string, time: number, value: number, tags: string | undefined): void
  /** One bad line: 1-based line number in the message and a reason for logs/counters. */
  error(lineNo: number, reason: string): void
}

export interface ParseLinesResult { good: number; bad: number }

/** Longest accepted identifier, in UTF-16 code units (the HTTP API's `dataPointID` bound). */
export const MAX_ID_LENGTH = 1000
/** Longest accepted raw tag text, in bytes. */
export const MAX_TAGS_BYTES = 4096

export const ERR_EMPTY_ID = 'empty datapoint identifier'
export const ERR_UNTERMINATED_QUOTE = 'unterminated quote in datapoint identifier'
export const ERR_UNESCAPED_QUOTE = 'unescaped quote in unquoted datapoint identifier'
export const ERR_AFTER_QUOTE = 'closing quote of the datapoint identifier must be followed by a blank or a comma'
export const ERR_ID_UTF8 = 'datapoint identifier is not valid UTF-8'
export const ERR_ID_TOO_LONG = `datapoint identifier longer than ${MAX_ID_LENGTH} characters`
export const ERR_TAGS_TOO_LONG = `tag set longer than ${MAX_TAGS_BYTES} bytes`
export const ERR_TAGS_UTF8 = 'tag set is not valid UTF-8'
export const ERR_MISSING_VALUE = 'missing value='
export const ERR_DOUBLE_BLANK = 'parts must be separated by single blanks'
export const ERR_MISSING_TIMESTAMP = 'missing timestamp'
/** NUL and other C0/C1 controls (after unescaping): the rule of every ingest path (core/identifier.ts). */
export const errIdControl = (code: string) => `datapoint identifier contains the control character ${code}`
export const errTagsControl = (code: string) => `tag set contains the control character ${code}`
export const errBadTags = (text: string) => `bad tag set (key=value pairs expected): '${text}'`
export const errValue = (text: string) => `value is not a number: '${text}'`
export const errTimestamp = (text: string) => `bad timestamp (unsigned integer expected): '${text}'`
export const errTimestampRange = (text: string) => `timestamp out of range: '${text}'`
export const errTrailing = (text: string) => `trailing characters: '${text}'`

const BLANK = 32, TAB = 9, CR = 13, LF = 10, QUOTE = 34, BACKSLASH = 92, COMMA = 44, EQ = 61
const MAX_SAFE = Number.MAX_SAFE_INTEGER

/** Text of buf[a, b) for an error message, cut to 40 characters. */
function excerpt(buf: Uint8Array, a: number, b: number): string {
  const s = Buffer.from(buf.buffer, buf.byteOffset + a, b - a).toString('utf8')
  return s.length > 40 ? s.slice(0, 40) + '…' : s
}

/** Whether c may follow a backslash as an escape in an identifier. */
function escapable(c: number): boolean {
  return c === BLANK || c === QUOTE || c === BACKSLASH || c === COMMA
}

let scratch = Buffer.allocUnsafe(256)

/** Copies the identifier buf[a, b) into `scratch` with escapes removed; returns its length. */
function unescapeId(buf: Buffer, a: number, b: number): number {
  if (scratch.length < b - a) scratch = Buffer.allocUnsafe(Math.max(b - a, scratch.length * 2))
  const out = scratch
  let n = 0
  for (let i = a; i < b; i++) {
    const c = buf[i]
    if (c === BACKSLASH && i + 1 < b && escapable(buf[i + 1])) { out[n++] = buf[++i]; continue }
    out[n++] = c
  }
  return n
}

/** Decode bytes as UTF-8 (latin1 fast path when all ASCII); undefined when invalid UTF-8. */
function decode(buf: Buffer, a: number, b: number, ascii: boolean): string | undefined {
  if (ascii) return buf.toString('latin1', a, b)
  if (!isUtf8(buf.subarray(a, b))) return undefined
  return buf.toString('utf8', a, b)
}

/**
 * Unix timestamp digits buf[a, b) -> µs since the epoch (unit by magnitude, see header);
 * -1 when not an unsigned integer, -2 when out of range.
 */
export function parseTimestampBytes(buf: Uint8Array, a: number, b: number): number {
  if (a >= b) return -1
  let s = a
  while (s < b - 1 && buf[s] === 48) s++ // leading zeros are not significant
  const n = b - s
  // digits that make up whole µs: all of them for s/ms/µs, all but the last three for ns
  const end = n >= 18 ? b - 3 : b
  let v = 0
  for (let i = s; i < b; i++) {
    const d = buf[i] - 48
    if (d < 0 || d > 9) return -1
    if (i < end) v = v * 10 + d
  }
  if (n > 19) return -2
  if (n <= 11) v *= 1_000_000
  else if (n <= 14) v *= 1000
  // v is an exact integer below 2^53 (products of exact operands round correctly); above
  // it may be rounded, but rounding is monotone so it stays above and is rejected.
  return v > MAX_SAFE ? -2 : v
}

/** Split a raw tag text (as given to the sink) into unescaped pairs. */
export function parseTagSet(raw: string): { key: string; value: string }[] {
  const out: { key: string; value: string }[] = []
  let key = '', cur = '', inValue = false
  for (let i = 0; i < raw.length; i++) {
    const ch = raw[i]
    if (ch === '\\' && i + 1 < raw.length) { cur += raw[++i]; continue }
    if (ch === '=' && !inValue) { key = cur; cur = ''; inValue = true; continue }
    if (ch === ',') { out.push({ key, value: cur }); key = ''; cur = ''; inValue = false; continue }
    cur += ch
  }
  if (raw.length > 0) out.push({ key, value: cur })
  return out
}

/** Validates the tag text buf[a, b) (see header); true when every pair is key=value. */
function validTags(buf: Uint8Array, a: number, b: number): boolean {
  let keyLen = 0, valLen = 0, eq = false
  for (let i = a; i <= b; i++) {
    const c = i < b ? buf[i] : COMMA
    if (c === COMMA) {
      if (keyLen === 0 || !eq || valLen === 0) return false
      keyLen = 0; valLen = 0; eq = false
      continue
    }
    if (c === EQ && !eq) { eq = true; continue }
    if (c === BACKSLASH && i + 1 < b) i++
    if (eq) valLen++; else keyLen++
  }
  return true
}

/**
 * Parses every line of an MQTT time-series payload; good lines go to sink.observation,
 * bad ones to sink.error, in line order. Returns the counts.
 */
export function parseLines(payload: Buffer, sink: LineSink): ParseLinesResult {
  const buf = payload
  const len = buf.length
  let good = 0, bad = 0, lineNo = 0
  let start = 0
  while (start < len) {
    lineNo++
    let nl = buf.indexOf(LF, start)
    if (nl < 0) nl = len
    let e = nl
    if (e > start && buf[e - 1] === CR) e--
    const s = start
    start = nl + 1

    // blank line: nothing, or only blanks/tabs
    let i = s
    while (i < e && (buf[i] === BLANK || buf[i] === TAB)) i++
    if (i === e) continue
    i = s

    let reason: string | undefined
    // ---- datapoint identifier [rule 1]
    let idA: number, idB: number
    let escaped = false
    let hi = 0 // OR of all identifier bytes: < 0x80 means ASCII
    if (buf[i] === QUOTE) {
      idA = ++i
      for (;;) {
        if (i >= e) { reason = ERR_UNTERMINATED_QUOTE; break }
        const c = buf[i]
        if (c === QUOTE) break
        if (c === BACKSLASH && i + 1 < e && escapable(buf[i + 1])) { escaped = true; i += 2; continue }
        hi |= c
        i++
      }
      idB = i++
      if (reason === undefined && i < e && buf[i] !== BLANK && buf[i] !== COMMA) reason = ERR_AFTER_QUOTE
    } else {
      idA = i
      for (; i < e; i++) {
        const c = buf[i]
        if (c > BACKSLASH) { hi |= c; continue } // lower-case letters and above: the common case
        if (c === BLANK || c === COMMA) break
        if (c === QUOTE) { reason = ERR_UNESCAPED_QUOTE; break }
        if (c === BACKSLASH && i + 1 < e && escapable(buf[i + 1])) { escaped = true; i++; continue }
        hi |= c
      }
      idB = i
    }
    if (reason === undefined && idA === idB) reason = ERR_EMPTY_ID
    // a UTF-16 code unit takes at most 3 bytes (escaped: 2), so this is too long for sure;
    // checked early so a huge identifier never reaches the scratch buffer or a string
    if (reason === undefined && idB - idA > 3 * MAX_ID_LENGTH) reason = ERR_ID_TOO_LONG

    // ---- optional tag set [rule 4]
    let tagA = -1, tagB = -1, thi = 0, tctl = false
    if (reason === undefined && i < e && buf[i] === COMMA) {
      tagA = ++i
      for (; i < e; i++) {
        let c = buf[i]
        if (c === BLANK) break
        if (c === BACKSLASH && i + 1 < e) c = buf[++i]
        thi |= c
        if (c < 0x20 || c === 0x7f) tctl = true
      }
      tagB = i
      if (tagB - tagA > MAX_TAGS_BYTES) reason = ERR_TAGS_TOO_LONG
      else if (!validTags(buf, tagA, tagB)) reason = errBadTags(excerpt(buf, tagA, tagB))
      else if (thi >= 0x80 && !isUtf8(buf.subarray(tagA, tagB))) reason = ERR_TAGS_UTF8
      else if (tctl || thi >= 0x80) {
        // Tag keys and values follow the identifier rule (C0, DEL, C1; core/identifier.ts).
        const control = controlCharacterIn(buf.toString('utf8', tagA, tagB))
        if (control !== undefined) reason = errTagsControl(control)
      }
    }

    // ---- value=<float> [rule 2]
    let value = NaN
    if (reason === undefined) {
      if (i >= e) reason = ERR_MISSING_VALUE
      else if (buf[++i] === BLANK) reason = ERR_DOUBLE_BLANK // buf[i] was the separating blank
      else if (i + 6 > e || buf[i] !== 118 || buf[i + 1] !== 97 || buf[i + 2] !== 108 || buf[i + 3] !== 117 ||
        buf[i + 4] !== 101 || buf[i + 5] !== EQ) reason = ERR_MISSING_VALUE
      else {
        i += 6
        const va = i
        while (i < e && buf[i] !== BLANK) i++
        value = scanDecimal(buf, va, i)
        if (value !== value) reason = errValue(excerpt(buf, va, i))
      }
    }

    // ---- timestamp [rule 3]
    let time = -1
    if (reason === undefined) {
      if (i >= e) reason = ERR_MISSING_TIMESTAMP
      else {
        const ta = ++i
        while (i < e && buf[i] !== BLANK && buf[i] !== TAB) i++
        if (ta === i) {
          // `value=1 ` + nothing (trailing blank) or a second blank before the timestamp
          let k = i
          while (k < e && (buf[k] === BLANK || buf[k] === TAB)) k++
          reason = k === e ? ERR_MISSING_TIMESTAMP : ERR_DOUBLE_BLANK
        } else {
          time = parseTimestampBytes(buf, ta, i)
          if (time === -1) reason = errTimestamp(excerpt(buf, ta, i))
          else if (time === -2) reason = errTimestampRange(excerpt(buf, ta, i))
          else {
            let k = i
            while (k < e && (buf[k] === BLANK || buf[k] === TAB)) k++
            if (k < e) reason = errTrailing(excerpt(buf, k, e))
          }
        }
      }
    }

    // ---- decode the identifier last: a bad line costs no string
    let id: string | undefined
    if (reason === undefined) {
      if (escaped) {
        const n = unescapeId(buf, idA, idB) // may replace `scratch` by a larger one
        id = decode(scratch, 0, n, hi < 0x80)
      } else id = decode(buf, idA, idB, hi < 0x80)
      if (id === undefined) reason = ERR_ID_UTF8
      else if (id.length > MAX_ID_LENGTH) reason = ERR_ID_TOO_LONG
      else {
        const control = controlCharacterIn(id)
        if (control !== undefined) reason = errIdControl(control)
      }
    }

    if (reason !== undefined) { bad++; sink.error(lineNo, reason); continue }
    good++
    sink.observation(id!, time, value, tagA < 0 ? undefined : decode(buf, tagA, tagB, thi < 0x80))
  }
  return { good, bad }
}
