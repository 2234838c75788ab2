// Timestamps: parsing (CSV ingest, query parameters) and formatting (API output).
// Time inside the program is integer microseconds since the Unix epoch, UTC (DESIGN.md).
// Hand-written character scanners: these run once per CSV line / per served point, so
// there is no regex, Date or luxon on the hot path.
//
// Accepted text forms (parseTimestamp):
//   YYYY-MM-DD                                   midnight UTC
//   YYYY-MM-DD(T|t|' ')hh:mm                     seconds optional
//   YYYY-MM-DD(T|t|' ')hh:mm:ss[(.|,)f...]       any number of fraction digits
//   ...followed by an optional zone suffix, optionally after one blank:
//   Z | z | +hh | -hh | +hh:mm | -hh:mm | +hhmm | -hhmm       (no suffix = UTC)
// Rules:
// - year 0000-9999 (4 digits), month 1-12, day valid for the month (leap years:
//   Gregorian rule), hour 0-23, minute 0-59, second 0-59; zone offset hours 0-23,
//   minutes 0-59. Second 60 (leap second) is REJECTED: Unix time cannot represent it and
//   folding it onto the next second would silently collide with a real observation.
// - a zone suffix needs a time part (`2024-03-31Z` is rejected).
// - fraction digits beyond microseconds are truncated (1 ms and 1 µs survive exactly);
//   truncation drops digits, i.e. rounds toward the past (floor), also before 1970.
// - the result must be a safe integer (|µs| <= 2^53 - 1, i.e. about years 1685-2255);
//   anything outside is "not parseable".
// - surrounding blanks/tabs are ignored by parseTimestamp; the *Range variants expect the
//   caller to have trimmed.

/** Returned by the *Range parsers when the text is not parseable. */
const BAD = NaN

const US_PER_DAY = 86_400_000_000
const DAYS_IN_MONTH = [0, 31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31]

function isLeap(y: number): boolean {
  return (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0
}

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil). */
export function daysFromCivil(y: number, m: number, d: number): number {
  if (m <= 2) y -= 1
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** Two ASCII digits at i, or -1. */
function d2(s: string, i: number): number {
  const a = s.charCodeAt(i) - 48
  const b = s.charCodeAt(i + 1) - 48
  if (a < 0 || a > 9 || b < 0 || b > 9) return -1
  return a * 10 + b
}

/**
 * Parse s[a, b) (already trimmed) as a timestamp; microseconds since the epoch, or NaN.
 * Exported for the CSV importer, which parses fields in place without slicing.
 */
export function parseTimestampRange(s: string, a: number, b: number): number {
  const len = b - a
  if (len < 10) return BAD
  // date: YYYY-MM-DD
  const y1 = d2(s, a), y2 = d2(s, a + 2)
  if (y1 < 0 || y2 < 0 || s.charCodeAt(a + 4) !== 45 || s.charCodeAt(a + 7) !== 45) return BAD
  const year = y1 * 100 + y2
  const month = d2(s, a + 5)
  const day = d2(s, a + 8)
  if (month < 1 || month > 12 || day < 1) return BAD
  if (day > DAYS_IN_MONTH[month] && !(month === 2 && day === 29 && isLeap(year))) return BAD
  let us = daysFromCivil(year, month, day) * US_PER_DAY
  let i = a + 10
  if (i === b) return Number.isSafeInteger(us) ? us : BAD

  // time: (T|t|' ')hh:mm[:ss[.f]]
  const sep = s.charCodeAt(i)
  if (sep !== 84 && sep !== 116 && sep !== 32) return BAD
  if (b - i < 6) return BAD
  const hh = d2(s, i + 1)
  const mi = d2(s, i + 4)
  if (hh < 0 || hh > 23 || s.charCodeAt(i + 3) !== 58 || mi < 0 || mi > 59) return BAD
  let secs = hh * 3600 + mi * 60
  i += 6
  let frac = 0
  if (i < b && s.charCodeAt(i) === 58) {
    if (b - i < 3) return BAD
    const ss = d2(s, i + 1)
    if (ss < 0 || ss > 59) return BAD
    secs += ss
    i += 3
    const c = s.charCodeAt(i)
    if (i < b && (c === 46 || c === 44)) {
      i++
      const fs = i
      let n = 0
      while (i < b) {
        const dgt = s.charCodeAt(i) - 48
        if (dgt < 0 || dgt > 9) break
        if (n < 6) { frac = frac * 10 + dgt; n++ }
        i++
      }
      if (i === fs) return BAD
      while (n < 6) { frac *= 10; n++ }
    }
  }
  us += secs * 1_000_000 + frac

  // zone
  if (i < b) {
    if (s.charCodeAt(i) === 32) { i++; if (i === b) return BAD }
    const z = s.charCodeAt(i)
    if (z === 90 || z === 122) {
      i++
    } else if (z === 43 || z === 45) {
      if (b - i < 3) return BAD
      const oh = d2(s, i + 1)
      if (oh < 0 || oh > 23) return BAD
      i += 3
      let om = 0
      if (i < b) {
        if (s.charCodeAt(i) === 58) i++
        if (b - i < 2) return BAD
        om = d2(s, i)
        if (om < 0 || om > 59) return BAD
        i += 2
      }
      const off = (oh * 60 + om) * 60_000_000
      us = z === 43 ? us - off : us + off
    } else {
      return BAD
    }
    if (i !== b) return BAD
  }
  return Number.isSafeInteger(us) ? us : BAD
}

function isBlank(c: number): boolean {
  return c === 32 || c === 9
}

/** Microseconds since the epoch (UTC) of an RFC 3339-like timestamp, or undefined. */
export function parseTimestamp(s: string): number | undefined {
  return parseTimestampIn(s, 0, s.length)
}

/** parseTimestamp of s[a, b), surrounding blanks ignored: for a timestamp inside a larger text, without slicing it out. */
export function parseTimestampIn(s: string, a: number, b: number): number | undefined {
  while (a < b && isBlank(s.charCodeAt(a))) a++
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--
  const v = parseTimestampRange(s, a, b)
  return v === v ? v : undefined
}

// ---------------------------------------------------------------------------------------
// Unix epoch numbers.
// Syntax: optional sign, digits, optional '.' and digits (at least one digit overall);
// an exponent (1.7e9) is also accepted but computed in floating point.
// Unit by magnitude of the absolute value x:
//   x < 1e11 -> seconds;  x < 1e14 -> milliseconds;  x < 1e17 -> microseconds;
//   otherwise nanoseconds.
// (1e11 s is year 5138; 1e11 ms is 1973-03-03; 1e14 µs is 1973-03-03; so any real
// timestamp after March 1973 is classified correctly in every unit.)
// Digits below one microsecond are truncated toward the past (floor). The conversion is
// exact (digit arithmetic), so 19-digit nanosecond values keep microsecond precision.
// Results outside the safe-integer range are rejected.

const MAX_SAFE = Number.MAX_SAFE_INTEGER

/** Parse s[a, b) (already trimmed) as a Unix epoch number; microseconds or NaN. */
export function parseEpochRange(s: string, a: number, b: number): number {
  let i = a
  let neg = false
  let c = s.charCodeAt(i)
  if (c === 43 || c === 45) { neg = c === 45; i++ }
  const is = i
  while (i < b) { c = s.charCodeAt(i); if (c < 48 || c > 57) break; i++ }
  const intEnd = i
  let fs = i, fe = i
  if (i < b && s.charCodeAt(i) === 46) {
    i++
    fs = i
    while (i < b) { c = s.charCodeAt(i); if (c < 48 || c > 57) break; i++ }
    fe = i
  }
  if (intEnd === is && fe === fs) return BAD
  if (i < b) {
    c = s.charCodeAt(i)
    if (c !== 101 && c !== 69) return BAD
    return epochFromFloat(s, a, b)
  }
  // magnitude from the integer digits (skip leading zeros)
  let lead = is
  while (lead < intEnd && s.charCodeAt(lead) === 48) lead++
  const nd = intEnd - lead
  // fraction digits to take: s -> 6, ms -> 3, µs -> 0, ns -> drop 3 integer digits
  let take: number
  let dropInt = 0
  if (nd <= 11 && (nd < 11 || Number(s.slice(lead, intEnd)) < 1e11)) take = 6
  else if (nd <= 14 && (nd < 14 || Number(s.slice(lead, intEnd)) < 1e14)) take = 3
  else if (nd <= 17 && (nd < 17 || Number(s.slice(lead, intEnd)) < 1e17)) take = 0
  else { take = 0; dropInt = 3 }
  let acc = 0
  let dropped = false
  const keepEnd = intEnd - dropInt
  for (let k = lead; k < intEnd; k++) {
    const d = s.charCodeAt(k) - 48
    if (k < keepEnd) {
      if (acc > (MAX_SAFE - d) / 10) return BAD
      acc = acc * 10 + d
    } else if (d !== 0) dropped = true
  }
  for (let k = 0; k < take; k++) {
    const p = fs + k
    const d = p < fe ? s.charCodeAt(p) - 48 : 0
    if (acc > (MAX_SAFE - d) / 10) return BAD
    acc = acc * 10 + d
  }
  for (let p = fs + take; p < fe; p++) if (s.charCodeAt(p) !== 48) { dropped = true; break }
  if (neg) {
    acc = -acc
    if (dropped) acc -= 1
    if (acc < -MAX_SAFE) return BAD
  }
  return acc === 0 ? 0 : acc
}

function epochFromFloat(s: string, a: number, b: number): number {
  const x = Number(s.slice(a, b))
  if (!Number.isFinite(x)) return BAD
  const ax = Math.abs(x)
  const f = ax < 1e11 ? 1e6 : ax < 1e14 ? 1e3 : ax < 1e17 ? 1 : 1e-3
  const us = Math.floor(x * f)
  return Number.isSafeInteger(us) ? (us === 0 ? 0 : us) : BAD
}

/** Microseconds since the epoch of a Unix epoch number (unit by magnitude), or undefined. */
export function parseEpoch(s: string): number | undefined {
  let a = 0, b = s.length
  while (a < b && isBlank(s.charCodeAt(a))) a++
  while (b > a && isBlank(s.charCodeAt(b - 1))) b--
  const v = parseEpochRange(s, a, b)
  return v === v ? v : undefined
}

// ---------------------------------------------------------------------------------------
// Formatting: RFC 3339 UTC with Z; fraction printed only as needed: none for whole
// seconds, 3 digits when millisecond-exact, else 6. Tables + a one-day cache make this a
// handful of string concatenations per call.

const PAD2: string[] = []
for (let i = 0; i < 60; i++) PAD2.push(i < 10 ? '0' + i : String(i))
const PAD3: string[] = []
for (let i = 0; i < 1000; i++) PAD3.push(String(i).padStart(3, '0'))
const HHMM: string[] = []
for (let h = 0; h < 24; h++) for (let m = 0; m < 60; m++) HHMM.push(PAD2[h] + ':' + PAD2[m] + ':')

let cachedDay = NaN
let cachedPrefix = ''

function dayPrefix(days: number): string {
  // H. Hinnant's civil_from_days
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365)
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1
  const m = mp < 10 ? mp + 3 : mp - 9
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0)
  const ys = y >= 0 && y < 10000 ? String(y).padStart(4, '0') : String(y)
  return ys + '-' + PAD2[m] + '-' + PAD2[d] + 'T'
}

/** RFC 3339 UTC text of integer microseconds since the epoch, e.g. 2024-03-31T12:30:00Z. */
export function formatTimestamp(us: number): string {
  us = Math.floor(us)
  const days = Math.floor(us / US_PER_DAY)
  if (days !== cachedDay) { cachedPrefix = dayPrefix(days); cachedDay = days }
  const rem = us - days * US_PER_DAY
  const sod = Math.floor(rem / 1_000_000)
  const frac = rem - sod * 1_000_000
  const ss = sod % 60
  const head = cachedPrefix + HHMM[(sod - ss) / 60] + PAD2[ss]
  if (frac === 0) return head + 'Z'
  const ms = Math.floor(frac / 1000)
  const sub = frac - ms * 1000
  if (sub === 0) return head + '.' + PAD3[ms] + 'Z'
  return head + '.' + PAD3[ms] + PAD3[sub] + 'Z'
}
