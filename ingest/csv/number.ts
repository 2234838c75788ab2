// Float parsing of a CSV value field, in place (no substring on the common path).
// Grammar: [+|-] digits [ . digits ] [ (e|E) [+|-] digits ], at least one mantissa digit
// (`5.`, `.5` accepted). With `decimalComma`, `,` is accepted instead of `.` (at most one
// decimal separator; no thousands separators). Rejected: empty text, NaN, Infinity, hex,
// underscores, inner blanks, and any value that overflows to ±Infinity.
// Exactness: mantissas of up to 15 significant digits with |decimal exponent| <= 22 are
// computed as m * 10^e or m / 10^-e, which is correctly rounded (Clinger's fast path);
// anything else falls back to Number() on the validated text, also correctly rounded.

const POW10: number[] = []
for (let i = 0, p = 1; i <= 22; i++, p *= 10) POW10.push(p)

/** Parse s[a, b) (already trimmed) as a finite float; NaN when not parseable. */
export function parseFloatRange(s: string, a: number, b: number, decimalComma: boolean): number {
  let i = a
  if (i >= b) return NaN
  let c = s.charCodeAt(i)
  let neg = false
  if (c === 45 || c === 43) { neg = c === 45; i++ }
  let mant = 0
  let sig = 0 // significant digits accumulated into mant
  let digits = 0 // mantissa digits seen
  let exp = 0
  let sepPos = -1
  // integer digits
  while (i < b) {
    c = s.charCodeAt(i)
    const d = c - 48
    if (d < 0 || d > 9) break
    digits++
    if (sig > 0 || d !== 0) {
      if (sig < 15) { mant = mant * 10 + d; sig++ } else { sig++; exp++ }
    }
    i++
  }
  if (i < b && (c === 46 || (c === 44 && decimalComma))) {
    sepPos = i
    i++
    while (i < b) {
      c = s.charCodeAt(i)
      const d = c - 48
      if (d < 0 || d > 9) break
      digits++
      if (sig > 0 || d !== 0) {
        if (sig < 15) { mant = mant * 10 + d; sig++; exp-- } else sig++
      } else exp--
      i++
    }
  }
  if (digits === 0) return NaN
  let slow = sig > 15
  if (i < b) {
    if (c !== 101 && c !== 69) return NaN
    i++
    let eneg = false
    c = s.charCodeAt(i)
    if (i < b && (c === 45 || c === 43)) { eneg = c === 45; i++ }
    const es = i
    let e = 0
    while (i < b) {
      const d = s.charCodeAt(i) - 48
      if (d < 0 || d > 9) return NaN
      if (e < 100000) e = e * 10 + d
      i++
    }
    if (i === es) return NaN
    exp += eneg ? -e : e
  }
  let v: number
  if (mant === 0) v = 0
  else if (!slow && exp >= -22 && exp <= 22) v = exp >= 0 ? mant * POW10[exp] : mant / POW10[-exp]
  else slow = true
  if (slow) {
    let t = s.slice(a, b)
    if (sepPos >= 0 && s.charCodeAt(sepPos) === 44) t = t.replace(',', '.')
    v = Math.abs(Number(t))
    // Out of range either way: too large (Infinity), or a non-zero literal that underflows
    // to 0 (1e-400: refused as the JSON ingest refuses it, issue 29, never stored as 0).
    if (!Number.isFinite(v) || (v === 0 && mant !== 0)) return NaN
  }
  return neg ? -v! : v!
}
