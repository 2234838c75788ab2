// The JSON text of a time-series read answer (spec 1, "Time-series data", GET
// /v2/datapoint/timeseries): {"dataPointID":…,"tags":[…],"data":[{"time":…,"<field>":…},…]}.
// Hand-written so that a reader worker can encode a whole answer off the event loop (issue 14
// item 5) and hand it over as bytes, and so that the main thread's streamed answers use the
// same code. The text equals JSON.stringify of the same object (test/api/timeseries-encoding.test.ts):
// times are RFC 3339 with Z (core/timestamp.ts), numbers print as JSON.stringify prints them.
import { formatTimestamp } from '../core/timestamp.ts'

export interface AnswerHead { dataPointID: string; tags: Array<{ key: string; value: string }> }

/** The text before the first entry. */
export function answerHead(h: AnswerHead): string {
  return `{"dataPointID":${JSON.stringify(h.dataPointID)},"tags":${JSON.stringify(h.tags)},"data":[`
}

export const ANSWER_TAIL = ']}'

/** A number as JSON.stringify prints it: shortest round-trip digits; null when not finite. */
export function jsonNumber(v: number): string {
  return v - v === 0 ? '' + v : 'null'
}

/**
 * Entries [from, to) of `points` as JSON text, comma-separated, with a leading comma unless
 * `from` is 0. Pure ASCII (digits, the time, the field name: one of the spec's field names).
 */
export function encodeEntries<P extends { time: number }>(points: ArrayLike<P>, pick: (p: P) => number, field: string, from = 0, to = points.length): string {
  const key = '","' + field + '":'
  let out = ''
  for (let i = from; i < to; i++) {
    const p = points[i]
    out += (i === 0 ? '{"time":"' : ',{"time":"') + formatTimestamp(p.time) + key + jsonNumber(pick(p)) + '}'
  }
  return out
}

const US_PER_DAY = 86_400_000_000
const OPEN = ascii('{"time":"')
/** Upper bound of one entry's bytes besides its key: ,{"time":" + time (27) + number (<= 25) + }. */
const ENTRY_BOUND = 10 + 27 + 32 + 1

function ascii(s: string): Uint8Array {
  return Uint8Array.from(s, (c) => c.charCodeAt(0))
}

let cachedDay = NaN
let cachedPrefix: Uint8Array = new Uint8Array(0)

/**
 * Writes formatTimestamp(us) (core/timestamp.ts) as bytes at `o`; returns the new offset.
 * The date part is cached per day: consecutive entries of a read mostly share it.
 */
export function writeTimestamp(out: Uint8Array, o: number, us: number): number {
  us = Math.floor(us)
  const days = Math.floor(us / US_PER_DAY)
  if (days !== cachedDay) { cachedPrefix = ascii(formatTimestamp(days * US_PER_DAY).slice(0, 11)); cachedDay = days }
  for (let k = 0; k < cachedPrefix.length; k++) out[o++] = cachedPrefix[k]
  const rem = us - days * US_PER_DAY
  const sod = Math.floor(rem / 1_000_000)
  const frac = rem - sod * 1_000_000
  const hh = Math.floor(sod / 3600)
  const mm = Math.floor(sod / 60) % 60
  const ss = sod % 60
  out[o++] = 48 + Math.floor(hh / 10); out[o++] = 48 + hh % 10; out[o++] = 58
  out[o++] = 48 + Math.floor(mm / 10); out[o++] = 48 + mm % 10; out[o++] = 58
  out[o++] = 48 + Math.floor(ss / 10); out[o++] = 48 + ss % 10
  if (frac !== 0) {
    // 3 digits when millisecond-exact, else 6 (as formatTimestamp).
    const digits = frac % 1000 === 0 ? 3 : 6
    out[o++] = 46
    let x = digits === 3 ? frac / 1000 : frac
    for (let k = digits - 1; k >= 0; k--) { out[o + k] = 48 + x % 10; x = Math.floor(x / 10) }
    o += digits
  }
  out[o++] = 90
  return o
}

/**
 * A whole answer as UTF-8 bytes in an ArrayBuffer of its own (transferable between threads,
 * unlike Buffer.from's shared pool). The entries are written byte by byte into a buffer
 * sized for the longest possible entry (about 1.5 x the usual size; building one big string
 * first and copying it cost about twice as much for 35,040 entries). `tail` (ASCII) ends
 * it; a part of a split answer has an empty head or tail (sqlite-read-pool.ts).
 */
export function encodeAnswer<P extends { time: number }>(head: string, points: ArrayLike<P>, pick: (p: P) => number, field: string, tail = ANSWER_TAIL): Uint8Array {
  const headBytes = Buffer.from(head, 'utf8')
  const key = ascii('","' + field + '":')
  const out = new Uint8Array(headBytes.length + points.length * (ENTRY_BOUND + key.length) + tail.length)
  out.set(headBytes)
  let o = headBytes.length
  for (let i = 0; i < points.length; i++) {
    const p = points[i]
    if (i > 0) out[o++] = 44
    for (let k = 0; k < OPEN.length; k++) out[o++] = OPEN[k]
    o = writeTimestamp(out, o, p.time)
    for (let k = 0; k < key.length; k++) out[o++] = key[k]
    const n = jsonNumber(pick(p))
    for (let k = 0; k < n.length; k++) out[o++] = n.charCodeAt(k)
    out[o++] = 125
  }
  for (let k = 0; k < tail.length; k++) out[o++] = tail.charCodeAt(k)
  return out.subarray(0, o)
}
