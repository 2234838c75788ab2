import t, { type Test } from 'tap'
import {
  type LineSink, ERR_AFTER_QUOTE, ERR_DOUBLE_BLANK, ERR_EMPTY_ID, ERR_ID_TOO_LONG, ERR_ID_UTF8, ERR_MISSING_TIMESTAMP,
  ERR_MISSING_VALUE, ERR_TAGS_TOO_LONG, ERR_TAGS_UTF8, ERR_UNESCAPED_QUOTE, ERR_UNTERMINATED_QUOTE, MAX_ID_LENGTH,
  MAX_TAGS_BYTES, errBadTags, errTagsControl, errIdControl, errTimestamp, errTimestampRange, errTrailing, errValue, parseLines,
  parseTagSet, parseTimestampBytes,
} from '../../protocol/line-protocol.ts'
import { scanDecimal } from '../../protocol/decimal.ts'

interface Obs { id: string; time: number; value: number; tags?: string }
interface Result { obs: Obs[]; errors: [number, string][]; good: number; bad: number }

function parse(payload: string | Buffer): Result {
  const obs: Obs[] = []
  const errors: [number, string][] = []
  const sink: LineSink = {
    observation(id, time, value, tags) { obs.push(tags === undefined ? { id, time, value } : { id, time, value, tags }) },
    error(lineNo, reason) { errors.push([lineNo, reason]) },
  }
  const { good, bad } = parseLines(typeof payload === 'string' ? Buffer.from(payload) : payload, sink)
  return { obs, errors, good, bad }
}
/** The single observation of a one-line payload (fails the test otherwise). */
function one(t: Test, line: string): Obs | undefined {
  const r = parse(line)
  t.same(r.errors, [], line)
  t.equal(r.obs.length, 1, line)
  return r.obs[0]
}
/** The single error reason of a one-line payload. */
function err(line: string | Buffer): string | undefined {
  const r = parse(line)
  return r.obs.length === 0 && r.errors.length === 1 ? r.errors[0][1] : `unexpected: ${JSON.stringify(r)}`
}

const NS = '1700000000123456789'
const US = 1700000000123456

t.test('typical line', async t => {
  t.same(parse(`building/floor1/temp value=21.5 ${NS}`), {
    obs: [{ id: 'building/floor1/temp', time: US, value: 21.5 }], errors: [], good: 1, bad: 0,
  })
})

t.test('timestamp units by digit count', async t => {
  const cases: [string, number][] = [
    ['1700000000123456789', 1700000000123456], // ns: last three digits truncated
    ['1700000000123456999', 1700000000123456], // truncation, not rounding
    ['1700000000123456', 1700000000123456], // µs
    ['1700000000123', 1700000000123000], // ms
    ['1700000000', 1700000000000000], // s
    ['946684800000000000', 946684800000000], // 18-digit ns: 2000-01-01
    ['946684800000', 946684800000000], // 12-digit ms: 2000-01-01
    ['946684800000000', 946684800000000], // 15-digit µs
    ['946684800', 946684800000000], // 9-digit s
    ['0', 0], ['000', 0], ['00001700000000', 1700000000000000], // leading zeros are not significant
    ['9007199254740991', 9007199254740991], // µs at MAX_SAFE_INTEGER
    ['9007199254740991999', 9007199254740991], // ns just under the bound
  ]
  for (const [ts, us] of cases) t.equal(one(t, `a value=1 ${ts}`)?.time, us, ts)
  t.equal(err('a value=1 9007199254740992000'), errTimestampRange('9007199254740992000'))
  t.equal(err('a value=1 9999999999999999999'), errTimestampRange('9999999999999999999'))
  t.equal(err('a value=1 99999999999'), errTimestampRange('99999999999')) // 11-digit seconds: year 5138
  t.equal(err('a value=1 17000000001234567890'), errTimestampRange('17000000001234567890')) // 20 digits
  for (const ts of ['-1700000000000000000', '+1700000000000', '1700000000.5', '1.7e18', 'abc', '0x10', '17000000001234567z']) {
    t.equal(err(`a value=1 ${ts}`), errTimestamp(ts), ts)
  }
})

t.test('exact microseconds for many random ns timestamps', async t => {
  let seed = 7
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff)
  let lines = ''
  const want: number[] = []
  for (let i = 0; i < 2000; i++) {
    const ns = 10n ** 18n + BigInt(rnd()) * BigInt(rnd() % 1_000_000_000) + BigInt(rnd() % 1000)
    lines += `x value=${i} ${ns}\n`
    want.push(Number(ns / 1000n))
  }
  t.same(parse(lines).obs.map(o => o.time), want)
})

t.test('values', async t => {
  const cases: [string, number][] = [
    ['21.5', 21.5], ['-3', -3], ['+4', 4], ['0', 0], ['1e3', 1000], ['-2.5E-2', -0.025], ['5.', 5], ['.5', 0.5],
    ['007', 7], ['0.1', 0.1], ['1234567890123456789', 1234567890123456789], ['1.7976931348623157e308', Number.MAX_VALUE],
  ]
  for (const [v, n] of cases) t.equal(one(t, `a value=${v} ${NS}`)?.value, n, v)
  for (const v of ['', 'abc', 'NaN', 'Infinity', '-Infinity', '0x1A', '1_000', '21.5i', '1e', '1e400', '1,5', '.', '-', 't', 'true']) {
    t.equal(err(`a value=${v} ${NS}`), errValue(v), JSON.stringify(v))
  }
  t.ok(Object.is(one(t, `a value=-0 ${NS}`)?.value, -0))
  // Issue 29: a non-zero literal that underflows to 0 is refused, zero written any way is not.
  for (const v of ['1e-400', '-2.5E-999', '0.1e-330']) t.equal(err(`a value=${v} ${NS}`), errValue(v), `${v} underflows`)
  for (const [v, n] of [['0e-400', 0], ['0.000e-999', 0], ['5e-324', 5e-324]] as const) t.equal(one(t, `a value=${v} ${NS}`)?.value, n, `${v} is read`)
})

t.test('the value scanner (scanDecimal over bytes) matches Number() on random decimals', async t => {
  let seed = 99
  const rnd = () => (seed = (seed * 1103515245 + 12345) & 0x7fffffff) / 0x7fffffff
  let bad = 0
  for (let i = 0; i < 5000; i++) {
    let s = ''
    const digits = Math.floor(rnd() * 20) + 1
    for (let k = 0; k < digits; k++) s += Math.floor(rnd() * 10)
    const dot = Math.floor(rnd() * (digits + 1))
    s = s.slice(0, dot) + '.' + s.slice(dot)
    if (rnd() < 0.3) s += 'e' + (Math.floor(rnd() * 60) - 30)
    if (rnd() < 0.5) s = '-' + s
    const b = Buffer.from(s)
    if (!Object.is(scanDecimal(b, 0, b.length), Number(s))) bad++
  }
  t.equal(bad, 0)
})

t.test('identifier escaping and quoting', async t => {
  const cases: [string, string][] = [
    ['Room\\ 1', 'Room 1'],
    ['"Raum\\ 1\\ Temp"', 'Raum 1 Temp'],
    ['"Raum 1 Temp"', 'Raum 1 Temp'], // blanks inside quotes need no escape
    ['"Raum\\ 1\\ \\"Nord\\""', 'Raum 1 "Nord"'],
    ['x\\"y', 'x"y'],
    ['"a\\\\b"', 'a\\b'],
    ['a\\\\b', 'a\\b'],
    ['C:\\temp', 'C:\\temp'], // backslash before an ordinary character stays
    ['"a\\b"', 'a\\b'],
    ['Room\\,1', 'Room,1'],
    ['"Room 1, floor 2"', 'Room 1, floor 2'],
    ['"Room\\,1"', 'Room,1'],
    ['Räume/Küche/Temperatur', 'Räume/Küche/Temperatur'],
    ['"Küche\\ 1"', 'Küche 1'],
    ['温度', '温度'],
    ['a=b', 'a=b'],
    ['#1', '#1'],
  ]
  for (const [raw, id] of cases) t.equal(one(t, `${raw} value=1 ${NS}`)?.id, id, raw)
})

t.test('identifier errors', async t => {
  t.equal(err(`"" value=1 ${NS}`), ERR_EMPTY_ID)
  t.equal(err(` value=1 ${NS}`), ERR_EMPTY_ID)
  t.equal(err(`,a=b value=1 ${NS}`), ERR_EMPTY_ID)
  t.equal(err(`"Raum 1 value=1 ${NS}`), ERR_UNTERMINATED_QUOTE)
  t.equal(err(`"Raum 1\\" value=1 ${NS}`), ERR_UNTERMINATED_QUOTE)
  t.equal(err(`"Raum"x value=1 ${NS}`), ERR_AFTER_QUOTE)
  t.equal(err(`Ra"um value=1 ${NS}`), ERR_UNESCAPED_QUOTE)
  t.equal(err(`${'x'.repeat(MAX_ID_LENGTH + 1)} value=1 ${NS}`), ERR_ID_TOO_LONG)
  t.equal(one(t, `${'x'.repeat(MAX_ID_LENGTH)} value=1 ${NS}`)?.id.length, MAX_ID_LENGTH)
  t.equal(one(t, `${'€'.repeat(MAX_ID_LENGTH)} value=1 ${NS}`)?.id.length, MAX_ID_LENGTH) // 3 bytes each
  t.equal(one(t, `${'\\ '.repeat(MAX_ID_LENGTH)} value=1 ${NS}`)?.id.length, MAX_ID_LENGTH)
  t.equal(err(`${'€'.repeat(MAX_ID_LENGTH + 1)} value=1 ${NS}`), ERR_ID_TOO_LONG)
  t.equal(err(`"${'x'.repeat(100_000)}" value=1 ${NS}`), ERR_ID_TOO_LONG)
  const invalid = Buffer.concat([Buffer.from('ab'), Buffer.from([0xff, 0xfe]), Buffer.from(` value=1 ${NS}`)])
  t.equal(err(invalid), ERR_ID_UTF8)
  const truncated = Buffer.concat([Buffer.from('"K'), Buffer.from([0xc3]), Buffer.from(`\\ 1" value=1 ${NS}`)])
  t.equal(err(truncated), ERR_ID_UTF8)
})

t.test('tag sets', async t => {
  t.same(one(t, `temp,room=1,floor=2 value=21.5 ${NS}`), { id: 'temp', time: US, value: 21.5, tags: 'room=1,floor=2' })
  t.same(one(t, `"Raum 1",room=1 value=1 ${NS}`), { id: 'Raum 1', time: US, value: 1, tags: 'room=1' })
  t.same(one(t, `t,k=a\\ b,x=y\\,z value=1 ${NS}`)?.tags, 'k=a\\ b,x=y\\,z')
  t.same(one(t, `t,ort=Küche value=1 ${NS}`)?.tags, 'ort=Küche')
  t.same(one(t, `t,expr=a=b value=1 ${NS}`)?.tags, 'expr=a=b')
  for (const tags of ['', 'a', 'a=', '=b', 'a=b,', 'a=b,,c=d', 'a=b,c']) {
    t.equal(err(`t,${tags} value=1 ${NS}`), errBadTags(tags), JSON.stringify(tags))
  }
  t.equal(err(`t,k=${'v'.repeat(MAX_TAGS_BYTES)} value=1 ${NS}`), ERR_TAGS_TOO_LONG)
  const invalid = Buffer.concat([Buffer.from('t,k='), Buffer.from([0xff]), Buffer.from(` value=1 ${NS}`)])
  t.equal(err(invalid), ERR_TAGS_UTF8)
  const escapedInvalid = Buffer.concat([Buffer.from('t,k=\\'), Buffer.from([0xff]), Buffer.from(` value=1 ${NS}`)])
  t.equal(err(escapedInvalid), ERR_TAGS_UTF8)
  for (const [tags, code] of [['ro\u0000om=1', 'U+0000'], ['room=a\u0007', 'U+0007'], ['k=\\\u001b', 'U+001B'], ['k\u0085=1', 'U+0085'], ['k=\u007f', 'U+007F']]) {
    t.equal(err(`t,${tags} value=1 ${NS}`), errTagsControl(code), `control character in a tag set (issue 9): ${JSON.stringify(tags)}`)
  }
  t.same(parseTagSet('room=1,floor=2'), [{ key: 'room', value: '1' }, { key: 'floor', value: '2' }])
  t.same(parseTagSet('k=a\\ b,x=y\\,z,e\\=q=1=2'), [{ key: 'k', value: 'a b' }, { key: 'x', value: 'y,z' }, { key: 'e=q', value: '1=2' }])
  t.same(parseTagSet(''), [])
})

t.test('structure errors', async t => {
  t.equal(err(`a`), ERR_MISSING_VALUE)
  t.equal(err(`a `), ERR_MISSING_VALUE)
  t.equal(err(`a 21.5 ${NS}`), ERR_MISSING_VALUE)
  t.equal(err(`a val=21.5 ${NS}`), ERR_MISSING_VALUE)
  t.equal(err(`a Value=21.5 ${NS}`), ERR_MISSING_VALUE)
  t.equal(err(`a value`), ERR_MISSING_VALUE)
  t.equal(err(`a  value=1 ${NS}`), ERR_DOUBLE_BLANK)
  t.equal(err(`a value=1  ${NS}`), ERR_DOUBLE_BLANK)
  t.equal(err(`a value=1`), ERR_MISSING_TIMESTAMP)
  t.equal(err(`a value=1 `), ERR_MISSING_TIMESTAMP)
  t.equal(err(`a value=1 \t `), ERR_MISSING_TIMESTAMP)
  t.equal(err(`a value=1 ${NS} x`), errTrailing('x'))
  t.equal(err(`a value=1 ${NS} ${NS}`), errTrailing(NS))
  t.equal(err(`a value=1,other=2 ${NS}`), errValue('1,other=2'))
  t.equal(err(`a\tvalue=1 ${NS}`), ERR_MISSING_VALUE) // tab is part of the identifier, then no value
  t.same(one(t, `a value=1 ${NS}  \t`), { id: 'a', time: US, value: 1 }) // trailing blanks tolerated
  t.equal(err(`a value=${'9'.repeat(60)}x ${NS}`), errValue('9'.repeat(40) + '…'))
})

t.test('many lines: CRLF, blank lines, line numbers, good lines kept', async t => {
  const payload = [
    `a value=1 ${NS}`,
    '',
    `b value=abc ${NS}`,
    '   ',
    `"c d" value=3 ${NS}\r`,
    `e value=4`,
    `f,x=1 value=5 1700000000000`,
    '',
  ].join('\n')
  const r = parse(payload)
  t.same(r.obs, [
    { id: 'a', time: US, value: 1 },
    { id: 'c d', time: US, value: 3 },
    { id: 'f', time: 1700000000000000, value: 5, tags: 'x=1' },
  ])
  t.same(r.errors, [[3, errValue('abc')], [6, ERR_MISSING_TIMESTAMP]])
  t.equal(r.good, 3)
  t.equal(r.bad, 2)
  t.same(parse('\r\n\n  \n'), { obs: [], errors: [], good: 0, bad: 0 })
  t.same(parse(''), { obs: [], errors: [], good: 0, bad: 0 })
  t.same(parse(`a value=1 ${NS}\r\nb value=2 ${NS}\r\n`).obs.map(o => o.id), ['a', 'b'])
  t.equal(parse(`a value=1 ${NS}\r\r\n`).errors[0][1], errTimestamp(NS + '\r'))
})

t.test('a Buffer slice of a larger allocation', async t => {
  const big = Buffer.from(`garbage"\\ \nx value=2 ${NS}\nmore garbage`)
  const start = big.indexOf('x value')
  const slice = big.subarray(start, start + `x value=2 ${NS}`.length)
  t.same(parse(slice).obs, [{ id: 'x', time: US, value: 2 }])
  const esc = Buffer.from(`zzzz"a\\ b" value=1.5e300 ${NS}zz`).subarray(4, -2)
  t.same(parse(esc).obs, [{ id: 'a b', time: US, value: 1.5e300 }])
})

t.test('escaped identifiers (scratch buffer) do not leak into later lines', async t => {
  const r = parse(`"long\\ name\\ one" value=1 ${NS}\n"b\\ c" value=2 ${NS}\n"${'é'.repeat(300)}\\ x" value=3 ${NS}\nq\\ r value=4 ${NS}`)
  t.same(r.obs.map(o => o.id), ['long name one', 'b c', 'é'.repeat(300) + ' x', 'q r'])
})

t.test('parseTimestampBytes directly', async t => {
  const ts = (s: string) => parseTimestampBytes(Buffer.from(s), 0, s.length)
  t.equal(ts(''), -1)
  t.equal(ts('1'), 1_000_000)
  t.equal(ts('99999999999999999999'), -2)
  t.equal(ts('9999999999999999999x'), -1)
})

t.test('identifiers with control characters are bad lines (issue 9; core/identifier.ts)', async t => {
  const T = '1700000000000000000'
  t.equal(err(Buffer.from(`a\u0000b value=1 ${T}`)), errIdControl('U+0000'))
  t.equal(err(Buffer.from(`"q\u0007" value=1 ${T}`)), errIdControl('U+0007'), 'quoted')
  t.equal(err(Buffer.from(`esc\\ \u001f value=1 ${T}`)), errIdControl('U+001F'), 'after unescaping')
  t.equal(err(Buffer.from(`del\u007f value=1 ${T}`)), errIdControl('U+007F'))
  t.equal(err(Buffer.from(`c1\u0085 value=1 ${T}`)), errIdControl('U+0085'), 'C1 (UTF-8 C2 85)')
  const r = parse(`ok value=1 ${T}\nnul\u0000 value=2 ${T}\nok2 value=3 ${T}`)
  t.same([r.good, r.bad, r.obs.map((o) => o.id)], [2, 1, ['ok', 'ok2']], 'the other lines of the message stay')
  t.same(one(t, `caf\u00e9\u00a0x value=1 ${T}`)?.id, 'caf\u00e9\u00a0x', 'printable non-ASCII (and NBSP) are accepted')
})
