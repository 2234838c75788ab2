// The line encoder (protocol/line-encoder.ts) against the reader (line-protocol.ts) and the
// shared decimal scanner (decimal.ts): what the edge agent writes is read back as the same
// identifier, value and time. Seeded: a failure prints the seed and the value.
import t from 'tap'
import { encodeDecimal, scanDecimal } from '../../protocol/decimal.ts'
import { encodeIdentifier, encodeLine, encodeTime } from '../../protocol/line-encoder.ts'
import { MAX_ID_LENGTH, parseLines } from '../../protocol/line-protocol.ts'
import { LineParser, PREFERRED_DIALECT } from '../../protocol/csv/line.ts'
import { underflowingNumber } from '../../ingest/json-underflow.ts'
import { prng } from '../helpers/openapi-fuzz.ts'

const SEED = 20261127

/** A finite double from random bits: every exponent equally likely, subnormals included. */
function randomDouble(rnd: () => number): number {
  const view = new DataView(new ArrayBuffer(8))
  for (;;) {
    view.setUint32(0, Math.floor(rnd() * 2 ** 32))
    view.setUint32(4, Math.floor(rnd() * 2 ** 32))
    if (rnd() < 0.1) view.setUint32(0, view.getUint32(0) & 0x800fffff) // exponent 0: a subnormal
    const v = view.getFloat64(0)
    if (Number.isFinite(v)) return v
  }
}

const EDGES = [
  0, -0, 5e-324, -5e-324, 2.225073858507201e-308, 2.2250738585072014e-308, Number.MAX_VALUE, -Number.MAX_VALUE,
  Number.MIN_VALUE * 3, 1e21, 1e-7, 123e-20, 0.1, 0.3, -21.5, 2 ** 53 + 2, 9007199254740993, 1.7976931348623157e308, 4.9406564584124654e-324,
]

/** The value, time and identifier parseLines reads from one line; fails the test otherwise. */
function readLine(line: string): { id: string; time: number; value: number } | string {
  let got: { id: string; time: number; value: number } | string = 'nothing read'
  parseLines(Buffer.from(line), { observation: (id, time, value) => { got = { id, time, value } }, error: (_n, reason) => { got = reason } })
  return got
}

t.test('every finite double is written so that the shared scanner reads it back exactly', async (t) => {
  const rnd = prng(SEED)
  const values = [...EDGES, ...Array.from({ length: 20_000 }, () => randomDouble(rnd))]
  const bad: string[] = []
  for (const v of values) {
    const text = encodeDecimal(v)
    const bytes = Buffer.from(text)
    if (!Object.is(scanDecimal(text, 0, text.length), v)) bad.push(`${v} as text '${text}'`)
    if (!Object.is(scanDecimal(bytes, 0, bytes.length), v)) bad.push(`${v} as bytes '${text}'`)
  }
  t.same(bad.slice(0, 5), [], `seed ${SEED}: ${bad.length} of ${values.length} values not read back`)
  t.equal(encodeDecimal(-0), '-0', 'negative zero keeps its sign (String(-0) is "0")')
  t.equal(encodeDecimal(5e-324), '5e-324', 'the smallest subnormal')
  t.equal(encodeDecimal(1e21), '1e+21', 'a large exponent: the reader takes e+21')
  for (const v of [NaN, Infinity, -Infinity]) t.throws(() => encodeDecimal(v), RangeError, `${v} is refused: no reader accepts it`)
})

t.test('a whole line is read back by the MQTT reader and the values by the CSV reader', async (t) => {
  const rnd = prng(SEED + 1)
  const alphabet = ['a', 'Z', '0', '/', '.', '-', ' ', ',', '"', '\\', '=', 'ä', '€', '😀', "'", '\\ ', '""']
  const csv = new LineParser(PREFERRED_DIALECT)
  const bad: string[] = []
  for (let n = 0; n < 5_000; n++) {
    let id = ''
    const len = 1 + Math.floor(rnd() * 12)
    for (let k = 0; k < len; k++) id += alphabet[Math.floor(rnd() * alphabet.length)]
    const value = n < EDGES.length ? EDGES[n] : randomDouble(rnd)
    const time = rnd() < 0.2 ? Math.floor(rnd() * 1e8) * 1_000_000 : 1e14 + Math.floor(rnd() * (Number.MAX_SAFE_INTEGER - 1e14))
    const line = encodeLine(id, value, time)
    const got = readLine(line)
    if (typeof got === 'string' || got.id !== id || got.time !== time || !Object.is(got.value, value)) bad.push(`${line} -> ${JSON.stringify(got)}`)
    const record = `x,${encodeDecimal(value)},2024-01-01T00:00:00Z`
    const row = csv.parse(record, 0, record.length, 1)
    if (!row || !Object.is(row.value, value)) bad.push(`CSV ${encodeDecimal(value)} -> ${csv.error}`)
  }
  t.same(bad.slice(0, 5), [], `seed ${SEED + 1}: ${bad.length} lines not read back`)
})

t.test('identifiers: plain when they can be, else quoted with quote and backslash escaped', async (t) => {
  t.equal(encodeIdentifier('ahu-1.sp'), 'ahu-1.sp')
  t.equal(encodeIdentifier('C:temp/ä'), 'C:temp/ä')
  t.equal(encodeIdentifier('room 1 "a"'), '"room 1 \\"a\\""')
  t.equal(encodeIdentifier('a,b'), '"a,b"', 'a comma would start the tag set')
  t.equal(encodeIdentifier('x\\\\y'), '"x\\\\\\\\y"', 'two backslashes stay two (unquoted `\\\\` would read as one)')
  t.same(readLine(encodeLine('x\\\\y', 1, 1e15)), { id: 'x\\\\y', time: 1e15, value: 1 })
  t.throws(() => encodeIdentifier(''), /empty datapoint identifier/)
  t.throws(() => encodeIdentifier('a'.repeat(MAX_ID_LENGTH + 1)), /longer than 1000 characters/)
  t.throws(() => encodeIdentifier('a\nb value=1 1'), /control character U\+000A/, 'a line break cannot smuggle a second line')
})

t.test('times: nanoseconds from 1973-03-03 on, whole seconds before, nothing else', async (t) => {
  t.equal(encodeTime(1_700_000_000_123_456), '1700000000123456000')
  t.equal(encodeTime(Number.MAX_SAFE_INTEGER), '9007199254740991000', 'the latest time the reader takes')
  t.equal(encodeTime(0), '0')
  t.equal(encodeTime(86_400_000_000), '86400', 'before 1973 in seconds: as nanoseconds it would read as seconds')
  t.same(readLine(encodeLine('a', 1, 86_400_000_000)), { id: 'a', time: 86_400_000_000, value: 1 })
  for (const bad of [-1, 1.5, 86_400_000_001, Number.MAX_SAFE_INTEGER + 1, NaN]) t.throws(() => encodeTime(bad), RangeError, String(bad))
})

t.test('literals that underflow to 0 are refused by the shared scanner exactly as by the JSON ingest', async (t) => {
  const rnd = prng(SEED + 2)
  const bad: string[] = []
  let refused = 0
  for (let n = 0; n < 5_000; n++) {
    // JSON-grammar literals around the subnormal range and the largest exponents
    const digits = String(Math.floor(rnd() * 10 ** (1 + Math.floor(rnd() * 6))))
    const frac = rnd() < 0.5 ? '.' + String(Math.floor(rnd() * 1000)).padStart(3, '0') : ''
    const exp = rnd() < 0.8 ? -(300 + Math.floor(rnd() * 120)) : 290 + Math.floor(rnd() * 30)
    const literal = `${rnd() < 0.3 ? '-' : ''}${digits}${frac}e${exp}`
    const json = underflowingNumber(`{"a":[{"time":"2024-01-01T00:00:00Z","value":${literal}}]}`) !== undefined
    const parsed = JSON.parse(literal) as number
    const scanned = scanDecimal(literal, 0, literal.length)
    if (json) { refused++; if (!Number.isNaN(scanned)) bad.push(`${literal}: JSON refuses, the scanner gives ${scanned}`) } else if (!Number.isFinite(parsed)) {
      if (!Number.isNaN(scanned)) bad.push(`${literal}: overflows, the scanner gives ${scanned}`)
    } else if (!Object.is(scanned, parsed)) bad.push(`${literal}: JSON ${parsed}, the scanner ${scanned}`)
  }
  t.same(bad.slice(0, 5), [], `seed ${SEED + 2}: ${bad.length} disagreements`)
  t.ok(refused > 500, `underflows were generated (${refused})`)
  t.ok(Number.isNaN(scanDecimal('1e-400', 0, 6)), '1e-400 is refused, not read as 0')
  t.ok(Number.isNaN(scanDecimal('2e-324', 0, 6)), 'rounds to 0: refused')
  t.equal(scanDecimal('3e-324', 0, 6), 5e-324, 'rounds up to the smallest subnormal: read')
  t.equal(scanDecimal('0e-400', 0, 6), 0, 'zero written with any exponent is zero')
})
