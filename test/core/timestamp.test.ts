import t from 'tap'
import { daysFromCivil, formatTimestamp, parseEpoch, parseTimestamp } from '../../core/timestamp.ts'

const us = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0, ms = 0) => Date.UTC(y, mo - 1, d, h, mi, s, ms) * 1000

t.test('date only is midnight UTC', async t => {
  t.equal(parseTimestamp('2024-03-31'), us(2024, 3, 31))
  t.equal(parseTimestamp('1970-01-01'), 0)
  t.equal(parseTimestamp('1969-12-31'), -86_400_000_000)
  t.equal(parseTimestamp('2000-02-29'), us(2000, 2, 29))
})

t.test('date and time with blank or T, with or without seconds', async t => {
  const exp = us(2024, 3, 31, 12, 30, 15)
  t.equal(parseTimestamp('2024-03-31T12:30:15'), exp)
  t.equal(parseTimestamp('2024-03-31 12:30:15'), exp)
  t.equal(parseTimestamp('2024-03-31t12:30:15'), exp)
  t.equal(parseTimestamp('2024-03-31T12:30'), us(2024, 3, 31, 12, 30))
  t.equal(parseTimestamp('2024-03-31 12:30'), us(2024, 3, 31, 12, 30))
  t.equal(parseTimestamp('  2024-03-31 12:30  '), us(2024, 3, 31, 12, 30), 'surrounding blanks ignored')
})

t.test('fractional seconds: ms and µs survive, beyond µs truncated', async t => {
  const base = us(2024, 3, 31, 12, 30, 0)
  t.equal(parseTimestamp('2024-03-31T12:30:00.001Z'), base + 1000)
  t.equal(parseTimestamp('2024-03-31T12:30:00.000001Z'), base + 1)
  t.equal(parseTimestamp('2024-03-31T12:30:00.5'), base + 500_000)
  t.equal(parseTimestamp('2024-03-31T12:30:00.123456789Z'), base + 123_456)
  t.equal(parseTimestamp('2024-03-31T12:30:00.9999999Z'), base + 999_999)
  t.equal(parseTimestamp('2024-03-31T12:30:00,25Z'), base + 250_000, 'comma as decimal sign (ISO 8601)')
  t.equal(parseTimestamp('1969-12-31T23:59:59.9999999Z'), -1, 'truncation toward the past before 1970')
  t.equal(parseTimestamp('2024-03-31T12:30:00.Z'), undefined, 'no fraction digits')
})

t.test('zone suffixes, converted to UTC', async t => {
  const exp = us(2024, 3, 31, 10, 30)
  t.equal(parseTimestamp('2024-03-31T10:30:00Z'), exp)
  t.equal(parseTimestamp('2024-03-31T10:30:00z'), exp)
  t.equal(parseTimestamp('2024-03-31T12:30:00+02'), exp)
  t.equal(parseTimestamp('2024-03-31T12:30:00+02:00'), exp)
  t.equal(parseTimestamp('2024-03-31T12:30:00+0200'), exp)
  t.equal(parseTimestamp('2024-03-31T08:30:00-02'), exp)
  t.equal(parseTimestamp('2024-03-31T05:00:00-05:30'), exp)
  t.equal(parseTimestamp('2024-03-31T16:00:00+0530'), exp)
  t.equal(parseTimestamp('2024-03-31 12:30+02:00'), exp, 'without seconds')
  t.equal(parseTimestamp('2024-03-31 12:30:00 +02:00'), exp, 'one blank before the zone')
  t.equal(parseTimestamp('2024-03-31T10:30:00-00:00'), exp)
  t.equal(parseTimestamp('2024-03-31T10:30:00.001+01:00'), exp - 3_600_000_000 + 1000)
  t.equal(parseTimestamp('2024-01-01T00:30:00+01:00'), us(2023, 12, 31, 23, 30), 'crosses the year')
  t.equal(parseTimestamp('2024-03-31T10:30:00+23:59'), exp - (23 * 60 + 59) * 60_000_000)
})

t.test('rejected forms and ranges', async t => {
  for (const s of [
    '', '2024', '2024-03', '2024-3-31', '24-03-31', '2024/03/31', '20240331', 'abc',
    '2024-00-10', '2024-13-01', '2024-01-00', '2024-01-32', '2024-04-31', '2023-02-29',
    '1900-02-29', '2024-03-31T24:00', '2024-03-31T12:60', '2024-03-31T12:30:60',
    '2024-03-31T12:30:61', '2024-03-31T12', '2024-03-31T1:30', '2024-03-31T12:30:5',
    '2024-03-31T12:30:00+24:00', '2024-03-31T12:30:00+02:60', '2024-03-31T12:30:00+2',
    '2024-03-31T12:30:00+02:0', '2024-03-31Z', '2024-03-31T12:30:00ZZ',
    '2024-03-31T12:30:00 UTC', '2024-03-31  12:30', '2024-03-31X12:30', '2024-03-31T12:30:00Zx',
    '9999-12-31', '1600-01-01', 'NaN', '1711888200',
  ]) t.equal(parseTimestamp(s), undefined, JSON.stringify(s))
  t.equal(parseTimestamp('2024-03-31T12:30:00 '), us(2024, 3, 31, 12, 30), 'trailing blank is trimmed')
})

t.test('leap years and month lengths', async t => {
  t.equal(parseTimestamp('2024-02-29'), us(2024, 2, 29))
  t.equal(parseTimestamp('2000-02-29'), us(2000, 2, 29))
  t.equal(parseTimestamp('2100-02-29'), undefined)
  for (const [m, d] of [[1, 31], [2, 28], [3, 31], [4, 30], [5, 31], [6, 30], [7, 31], [8, 31], [9, 30], [10, 31], [11, 30], [12, 31]]) {
    const mm = String(m).padStart(2, '0')
    t.equal(parseTimestamp(`2023-${mm}-${d}`), us(2023, m, d))
    t.equal(parseTimestamp(`2023-${mm}-${d + 1}`), undefined)
  }
})

t.test('daysFromCivil agrees with Date.UTC over a wide range', async t => {
  let bad = 0
  for (let day = -150000; day < 100000; day += 37) {
    const d = new Date(day * 86_400_000)
    if (daysFromCivil(d.getUTCFullYear(), d.getUTCMonth() + 1, d.getUTCDate()) !== day) bad++
  }
  t.equal(bad, 0)
})

t.test('safe-integer range', async t => {
  t.equal(parseTimestamp('2255-06-05T00:00:00Z'), us(2255, 6, 5))
  t.equal(parseTimestamp('2255-06-06T00:00:00Z'), undefined)
  t.equal(parseTimestamp('1685-01-01'), us(1685, 1, 1))
  t.equal(parseTimestamp('1684-01-01'), undefined)
})

t.test('parseEpoch: unit by magnitude', async t => {
  const s = 1711888200
  t.equal(parseEpoch('1711888200'), s * 1e6, 'seconds')
  t.equal(parseEpoch('1711888200.5'), s * 1e6 + 500_000, 'seconds with fraction')
  t.equal(parseEpoch('1711888200.000001'), s * 1e6 + 1)
  t.equal(parseEpoch('1711888200.0000019'), s * 1e6 + 1, 'sub-µs digits truncated')
  t.equal(parseEpoch('1711888200123'), s * 1e6 + 123_000, 'milliseconds')
  t.equal(parseEpoch('1711888200123.456'), s * 1e6 + 123_456)
  t.equal(parseEpoch('1711888200123456'), s * 1e6 + 123_456, 'microseconds')
  t.equal(parseEpoch('1711888200123456789'), s * 1e6 + 123_456, 'nanoseconds, exact')
  t.equal(parseEpoch('0'), 0)
  t.equal(parseEpoch('+60'), 60e6)
  t.equal(parseEpoch('-1.5'), -1_500_000)
  t.equal(parseEpoch('-0.0000005'), -1, 'floor before 1970')
  t.equal(parseEpoch('.5'), 500_000)
  t.equal(parseEpoch('99999999999'), undefined, 'seconds just below 1e11 overflow the safe range')
  t.equal(parseEpoch('100000000000'), 1e11 * 1000, '1e11 is milliseconds')
  t.equal(parseEpoch('9000000000000'), 9e15, 'ms near the end of the safe range')
  t.equal(parseEpoch('99999999999999'), undefined, 'ms beyond the safe range')
  t.equal(parseEpoch('100000000000000'), 1e14, '1e14 is microseconds')
  t.equal(parseEpoch('100000000000000000'), 1e14, '1e17 is nanoseconds')
  t.equal(parseEpoch('1.7118882e9'), 1711888200 * 1e6, 'exponent form')
  t.equal(parseEpoch(' 1711888200 '), s * 1e6, 'blanks trimmed')
  for (const x of ['', '-', '.', 'abc', '1711888200x', '0x10', '1,5', '1e', 'NaN', 'Infinity', '1e400', '2024-03-31', '1 2'])
    t.equal(parseEpoch(x), undefined, JSON.stringify(x))
})

t.test('formatTimestamp', async t => {
  t.equal(formatTimestamp(us(2024, 3, 31, 12, 30)), '2024-03-31T12:30:00Z')
  t.equal(formatTimestamp(us(2024, 3, 31, 12, 30) + 1000), '2024-03-31T12:30:00.001Z')
  t.equal(formatTimestamp(us(2024, 3, 31, 12, 30) + 1), '2024-03-31T12:30:00.000001Z')
  t.equal(formatTimestamp(us(2024, 3, 31, 12, 30) + 120_000), '2024-03-31T12:30:00.120Z')
  t.equal(formatTimestamp(us(2024, 3, 31, 12, 30) + 123_456), '2024-03-31T12:30:00.123456Z')
  t.equal(formatTimestamp(0), '1970-01-01T00:00:00Z')
  t.equal(formatTimestamp(-1), '1969-12-31T23:59:59.999999Z')
  t.equal(formatTimestamp(us(2000, 2, 29, 23, 59, 59)), '2000-02-29T23:59:59Z')
  t.equal(formatTimestamp(us(1685, 1, 1)), '1685-01-01T00:00:00Z')
})

t.test('format and parse round-trip; matches Date for ms values', async t => {
  let bad = 0
  let x = -5e15
  for (let i = 0; i < 20000; i++) {
    x += 497_113_271_001 + i * 7
    const s = formatTimestamp(x)
    if (parseTimestamp(s) !== x) bad++
    if (x % 1000 === 0 && s !== new Date(x / 1000).toISOString().replace('.000Z', 'Z')) bad++
  }
  t.equal(bad, 0)
  // consecutive calls on the same day use the cached day prefix
  const d = us(2024, 3, 31)
  t.equal(formatTimestamp(d + 1e6), '2024-03-31T00:00:01Z')
  t.equal(formatTimestamp(d + 86_399e6), '2024-03-31T23:59:59Z')
  t.equal(formatTimestamp(d + 86_400e6), '2024-04-01T00:00:00Z')
})
