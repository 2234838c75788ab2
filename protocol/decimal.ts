// Decimal numbers on the wire: the one scanner of the line protocol (MQTT) and CSV, and the
// one encoder of values the edge agent sends (line-encoder.ts).
//
// Grammar of scanDecimal: [+|-] digits [ . digits ] [ (e|E) [+|-] digits ], at least one
// mantissa digit (`5.`, `.5` accepted). With `decimalComma`, `,` is accepted instead of `.`
// (at most one decimal separator; no thousands separators). Rejected (NaN): empty text, NaN,
// Infinity, hex, underscores, inner blanks, a value that overflows to ±Infinity, and a
// non-zero literal that underflows to 0 (`1e-400`: refused as the JSON ingest refuses it,
// issue 29, never stored as 0; zero written any way, `0e-400`, is zero).
// Exactness: mantissas of up to 15 significant digits with |decimal exponent| <= 22 are
// computed as m * 10^e or m / 10^-e, which is correctly rounded (Clinger's fast path);
// anything else falls back to Number() on the validated text, also correctly rounded.
//
// The source is a string (CSV fields, decoded) or bytes (an MQTT payload, scanned in place
// without a substring); one body serves both, the branch on the kind is loop-invariant.

const POW10: number[] = []
for (let i = 0, p = 1; i <= 22; i++, p *= 10) POW10.push(p)

const EMPTY = new Uint8Array(0)
const PLUS = 43, COMMA = 44, MINUS = 45, DOT = 46, ZERO = 48, E_UPPER = 69, E_LOWER = 101

/** The finite number of src[a, b) (already trimmed); NaN when it is not one (see header). */
export function scanDecimal(src: string | Uint8Array, a: number, b: number, decimalComma = false): number {
  // Two views of the source, one of them empty: each read site stays monomorphic.
  const str = typeof src === 'string'
  const s = str ? src : ''
  const u = str ? EMPTY : src
  let i = a
  if (i >= b) return NaN
  let c = (str ? s.charCodeAt(i) : u[i])
  let neg = false
  if (c === MINUS || c === PLUS) { neg = c === MINUS; i++ }
  let mant = 0
  let sig = 0 // significant digits accumulated into mant (at most 15)
  let digits = 0 // mantissa digits seen
  let exp = 0
  let sepPos = -1
  while (i < b) {
    c = (str ? s.charCodeAt(i) : u[i])
    const d = c - ZERO
    if (d < 0 || d > 9) break
    digits++
    if (sig > 0 || d !== 0) { if (sig < 15) { mant = mant * 10 + d; sig++ } else { sig++; exp++ } }
    i++
  }
  if (i < b && (c === DOT || (c === COMMA && decimalComma))) {
    sepPos = i
    i++
    while (i < b) {
      c = (str ? s.charCodeAt(i) : u[i])
      const d = c - ZERO
      if (d < 0 || d > 9) break
      digits++
      if (sig > 0 || d !== 0) { if (sig < 15) { mant = mant * 10 + d; sig++; exp-- } else sig++ } else exp--
      i++
    }
  }
  if (digits === 0) return NaN
  let slow = sig > 15
  if (i < b) {
    if (c !== E_LOWER && c !== E_UPPER) return NaN
    i++
    let eneg = false
    if (i < b) { c = (str ? s.charCodeAt(i) : u[i]); if (c === MINUS || c === PLUS) { eneg = c === MINUS; i++ } }
    const es = i
    let e = 0
    while (i < b) {
      const d = (str ? s.charCodeAt(i) : u[i]) - ZERO
      if (d < 0 || d > 9) return NaN
      if (e < 100000) e = e * 10 + d
      i++
    }
    if (i === es) return NaN
    exp += eneg ? -e : e
  }
  let v = 0
  if (mant === 0) v = 0
  else if (!slow && exp >= -22 && exp <= 22) v = exp >= 0 ? mant * POW10[exp] : mant / POW10[-exp]
  else slow = true
  if (slow) {
    // Validated ASCII text: Number() rounds correctly; the sign is applied below.
    let t = str ? s.slice(a, b) : Buffer.from(u.buffer, u.byteOffset + a, b - a).toString('latin1')
    if (sepPos >= 0 && (str ? s.charCodeAt(sepPos) : u[sepPos]) === COMMA) t = t.replace(',', '.')
    v = Math.abs(Number(t))
    if (!Number.isFinite(v) || (v === 0 && mant !== 0)) return NaN
  }
  return neg ? -v : v
}

/**
 * The text of a finite number that scanDecimal reads back as the same number: the shortest
 * round-trip form of JavaScript (`21.5`, `1e+21`, `5e-324`), and `-0` for negative zero
 * (String(-0) is `0`). Throws a RangeError on NaN and ±Infinity, which no reader accepts.
 */
export function encodeDecimal(v: number): string {
  if (!Number.isFinite(v)) throw new RangeError(`not a finite number: ${v}`)
  return v === 0 && 1 / v < 0 ? '-0' : String(v)
}
