// A JSON number literal that is not zero but converts to 0 (issue 29: `1e-400` was stored as
// 0). JSON.parse turns such a literal into 0 without a word, so the literal itself is looked
// for in the text, outside strings, before parsing. Refusing it (400) is the decision: a
// reading of 1e-400 is a broken sensor or encoder, and 0 would be a different, plausible
// value. The JSON ingest's fast reader (json-text.ts) gives up on such a literal, so both
// ways of reading a body refuse it alike.

/** Whether the literal s[from, to) (RFC 8259 grammar) has a non-zero digit before its exponent. */
export function nonZeroMantissa(s: string, from: number, to: number): boolean {
  for (let k = from; k < to; k++) {
    const c = s.charCodeAt(k)
    if (c === 101 || c === 69) return false // e, E: the exponent starts
    if (c >= 49 && c <= 57) return true
  }
  return false
}

const NUMBER = /-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/y

/** The first number literal of JSON `text` that underflows to 0, or undefined. */
export function underflowingNumber(text: string): string | undefined {
  // Only a negative exponent of three digits or a long run of zeros can underflow a double.
  if (!/[eE]-\d{3}|0{300}/.test(text)) return undefined
  const n = text.length
  for (let i = 0; i < n; i++) {
    const c = text.charCodeAt(i)
    if (c === 34) { // a string: skip it, escapes included
      for (i++; i < n; i++) {
        const d = text.charCodeAt(i)
        if (d === 92) i++
        else if (d === 34) break
      }
    } else if (c === 45 || (c >= 48 && c <= 57)) {
      NUMBER.lastIndex = i
      const m = NUMBER.exec(text)
      if (!m) continue
      if (Number(m[0]) === 0 && nonZeroMantissa(text, i, i + m[0].length)) return m[0].length > 40 ? m[0].slice(0, 40) + '...' : m[0]
      i += m[0].length - 1
    }
  }
  return undefined
}
