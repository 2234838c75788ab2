import t from 'tap'
import {
  type CsvBatch, type CsvDialect, type CsvLineError, type CsvProgress, type CsvRow, type ParseCsvOptions,
  ERR_IDENTIFIER_BACKSLASH, ERR_IDENTIFIER_EMPTY, errDatetime, errFloat, parseCsvStream,
} from '../../protocol/csv/parse.ts'

const us = (y: number, mo: number, d: number, h = 0, mi = 0, s = 0) => Date.UTC(y, mo - 1, d, h, mi, s) * 1000

interface Result { rows: CsvRow[]; errors: CsvLineError[]; batches: CsvBatch[]; dialect?: CsvDialect; progress: CsvProgress[] }

async function collect(input: Iterable<Buffer | string> | AsyncIterable<Buffer | string>, opts: ParseCsvOptions = {}): Promise<Result> {
  const r: Result = { rows: [], errors: [], batches: [], progress: [] }
  for await (const b of parseCsvStream(input, { ...opts, onDialect: d => { r.dialect = d }, onProgress: p => r.progress.push(p) })) {
    r.batches.push(b)
    r.rows.push(...b.rows)
    r.errors.push(...b.errors)
  }
  return r
}

/** The bytes of `text` cut into pieces of `size` bytes (may split UTF-8 characters). */
function* chunks(text: string | Buffer, size: number): Generator<Buffer> {
  const b = typeof text === 'string' ? Buffer.from(text) : text
  for (let i = 0; i < b.length; i += size) yield b.subarray(i, i + size)
}

const FILE = [
  'datapoint,value,time', // 1 header
  'Room 1,21.5,2024-03-31T12:30:00Z', // 2
  '"Room ""A"", north",22,2024-03-31 14:30:00+02:00', // 3
  '', // 4 blank
  'Größe/温度 🌡,-1.25e1,2024-03-31', // 5
  ',1,2024-03-31', // 6 empty id
  'a\\b,1,2024-03-31', // 7 backslash
  'Room 1, floor 2,23,2024-03-31', // 8 too many fields
  'Room 1,23,31.03.2024', // 9 bad datetime
  'Room 1,NaN,2024-03-31', // 10 NaN
  'x', // 11 too few
  'x,1', // 12 too few
  'Room 2,7,2024-03-31T12:30:00.000001Z', // 13
  'Room 2,8,2024-03-31T12:30:00.001Z', // 14
].join('\r\n') + '\r\n'

const EXPECTED_ROWS: CsvRow[] = [
  { id: 'Room 1', value: 21.5, time: us(2024, 3, 31, 12, 30), line: 2 },
  { id: 'Room "A", north', value: 22, time: us(2024, 3, 31, 12, 30), line: 3 },
  { id: 'Größe/温度 🌡', value: -12.5, time: us(2024, 3, 31), line: 5 },
  { id: 'Room 2', value: 7, time: us(2024, 3, 31, 12, 30) + 1, line: 13 },
  { id: 'Room 2', value: 8, time: us(2024, 3, 31, 12, 30) + 1000, line: 14 },
]
const EXPECTED_ERRORS: CsvLineError[] = [
  { line_no: 6, error: ERR_IDENTIFIER_EMPTY },
  { line_no: 7, error: ERR_IDENTIFIER_BACKSLASH },
  { line_no: 8, error: errFloat('floor 2') },
  { line_no: 9, error: errDatetime('31.03.2024') },
  { line_no: 10, error: errFloat('NaN') },
  { line_no: 11, error: errFloat('') },
  { line_no: 12, error: errDatetime('') },
]

t.test('rows, all four errors, physical line numbers (header = line 1, blank lines counted)', async t => {
  const r = await collect([Buffer.from(FILE)])
  t.same(r.rows, EXPECTED_ROWS)
  t.same(r.errors, EXPECTED_ERRORS)
  t.equal(r.dialect?.header, true)
})

t.test('1-byte chunks (split CRLF and UTF-8 characters) and BOM give the same result', async t => {
  const bom = Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from(FILE)])
  for (const size of [1, 2, 3, 5, 7, 64]) {
    const r = await collect(chunks(bom, size), { sampleBytes: 40 })
    t.same(r.rows, EXPECTED_ROWS, `rows, chunk size ${size}`)
    t.same(r.errors, EXPECTED_ERRORS, `errors, chunk size ${size}`)
  }
  const r = await collect(chunks(bom, 1))
  t.same(r.rows, EXPECTED_ROWS, '1-byte chunks, default sample')
})

t.test('string chunks, LF line endings, no newline at the end', async t => {
  const text = '\uFEFFa,1,2024-03-31\nb,2,2024-04-01'
  const r = await collect([text.slice(0, 5), text.slice(5, 17), text.slice(17)])
  t.same(r.rows, [
    { id: 'a', value: 1, time: us(2024, 3, 31), line: 1 },
    { id: 'b', value: 2, time: us(2024, 4, 1), line: 2 },
  ])
})

t.test('each delimiter, quoted fields with delimiters and doubled quotes, no header', async t => {
  for (const d of [',', ';', '\t', '|']) {
    const text = [`"x${d}y ""q"""${d}1${d}2024-03-31`, `plain${d}2${d}"2024-04-01"`, `z${d}3${d}2024-04-02`].join('\n')
    const r = await collect([text])
    t.equal(r.dialect?.delimiter, d)
    t.equal(r.dialect?.header, false)
    // A quoted tab is a control character in an identifier (issue 9): that line is an error.
    const first = d === '\t' ? [] : [[`x${d}y "q"`, 1, 1]]
    t.same(r.rows.map(x => [x.id, x.value, x.line]), [...first, ['plain', 2, 2], ['z', 3, 3]], JSON.stringify(d))
    if (d === '\t') t.same(r.errors, [{ line_no: 1, error: 'Identifier contains the control character U+0009' }])
  }
})

t.test('semicolon file with decimal commas', async t => {
  const r = await collect(['id;value;time\r\nr1;1,5;2024-03-31 12:00:00,5\r\nr2;-0,25;2024-03-31\r\n'])
  t.same(r.rows.map(x => [x.id, x.value, x.time]), [['r1', 1.5, us(2024, 3, 31, 12) + 500_000], ['r2', -0.25, us(2024, 3, 31)]])
})

t.test('epoch column and offsets converted to UTC', async t => {
  const r = await collect(['sensor,value,epoch\ns,1,1711888200\ns,2,1711888200001\ns,3,1711888200000001\ns,4,1711888200000001999\n'])
  t.equal(r.dialect?.timeFormat, 'epoch')
  t.same(r.rows.map(x => x.time), [1711888200e6, 1711888200e6 + 1000, 1711888200e6 + 1, 1711888200e6 + 1])
  const r2 = await collect(['a,1,2024-03-31T02:00:00+02\na,2,2024-03-30T19:00:00-05:00\na,3,2024-03-31T05:30:00+0530\n'])
  t.same(r2.rows.map(x => x.time), [us(2024, 3, 31), us(2024, 3, 31), us(2024, 3, 31)])
})

t.test('every timestamp form through the importer', async t => {
  const forms = ['2024-03-31', '2024-03-31 00:00', '2024-03-31T00:00', '2024-03-31T00:00:00', '2024-03-31 00:00:00.000',
    '2024-03-31T00:00:00Z', '2024-03-31T00:00:00z', '2024-03-31T01:00:00+01', '2024-03-31T01:00:00+01:00',
    '2024-03-31T01:00:00+0100', '2023-03-30T23:00:00-01']
  const r = await collect([forms.map((f, i) => `p,${i},${f}`).join('\n')])
  t.equal(r.errors.length, 0)
  t.same(r.rows.map(x => x.time), forms.map((_, i) => i === forms.length - 1 ? us(2023, 3, 31) : us(2024, 3, 31)))
})

t.test('batches are bounded and in order', async t => {
  const lines = Array.from({ length: 25 }, (_, i) => i % 4 === 3 ? `,${i},2024-03-31` : `p${i},${i},2024-03-31`)
  const r = await collect([lines.join('\n')], { batchSize: 4 })
  for (const b of r.batches) t.ok(b.rows.length + b.errors.length <= 4)
  t.equal(r.rows.length + r.errors.length, 25)
  t.same(r.rows.map(x => x.line), lines.map((_, i) => i + 1).filter(l => l % 4 !== 0))
  t.same(r.errors.map(x => x.line_no), [4, 8, 12, 16, 20, 24])
})

t.test('progress every N lines and at the end', async t => {
  const text = Array.from({ length: 10 }, (_, i) => `p,${i},2024-03-31`).join('\n') + '\n,1,2024-03-31\n'
  const r = await collect(chunks(text, 16), { progressLines: 3 })
  const last = r.progress.at(-1)!
  t.same(last, { bytes: Buffer.byteLength(text), lines: 11, rows: 10, errors: 1, done: true })
  t.same(r.progress.filter(p => !p.done).map(p => p.lines), [3, 6, 9])
})

t.test('maxErrors stops reading early (on_error=abort)', async t => {
  let pulled = 0
  function* input(): Generator<string> {
    yield 'a,1,2024-03-31\n'
    for (let i = 0; i < 1000; i++) { pulled++; yield `a,${i},2024-03-31\nb,bad,2024-03-31\n` }
  }
  const r = await collect(input(), { maxErrors: 1, sampleBytes: 10 })
  t.same(r.errors, [{ line_no: 3, error: errFloat('bad') }])
  t.ok(pulled < 10, `stopped after ${pulled} chunks`)
  t.equal(r.progress.at(-1)?.done, true)
})

t.test('breaking out of the loop stops the input', async t => {
  let pulled = 0
  function* input(): Generator<string> {
    for (let i = 0; i < 100000; i++) { pulled++; yield `a,${i},2024-03-31\n` }
  }
  for await (const b of parseCsvStream(input(), { batchSize: 10, sampleBytes: 10 })) {
    t.equal(b.rows.length, 10)
    break
  }
  t.ok(pulled < 100, `pulled ${pulled}`)
})

t.test('given dialect skips detection', async t => {
  const dialect: CsvDialect = { delimiter: '|', quote: '"', header: false, columns: { time: 0, value: 1, id: 2 }, timeFormat: 'iso' }
  const r = await collect(['2024-03-31|1|a\n'], { dialect })
  t.same(r.dialect, dialect)
  t.same(r.rows, [{ id: 'a', value: 1, time: us(2024, 3, 31), line: 1 }])
})

t.test('empty input, header only, blank lines only', async t => {
  for (const text of ['', 'id,value,time\n', '\n\n\r\n  \n']) {
    const r = await collect([text])
    t.same([r.rows, r.errors], [[], []], JSON.stringify(text))
    t.equal(r.progress.at(-1)?.done, true)
  }
  const r = await collect([])
  t.equal(r.progress.at(-1)?.lines, 0)
})

t.test('over-long lines are cut, line numbers stay right', async t => {
  const long = 'a,1,2024-03-31,' + 'x'.repeat(300)
  const text = `${long}\nb,2,2024-03-31\n${'y'.repeat(300)}\nc,3,2024-03-31\n`
  for (const size of [1, 7, 1000]) {
    const r = await collect(chunks(text, size), { maxLineLength: 50, sampleBytes: 20 })
    t.same(r.rows.map(x => [x.id, x.line]), [['a', 1], ['b', 2], ['c', 4]], `chunk size ${size}`)
    t.same(r.errors, [{ line_no: 3, error: errFloat('') }])
  }
})

t.test('many lines with odd chunk sizes equal the one-chunk result', async t => {
  const lines: string[] = ['dataPointID;Value;Time']
  for (let i = 0; i < 20000; i++) {
    const id = i % 3 === 0 ? `"Zone ${i % 17}; Ü"` : `sensor-${i % 13}/€`
    const v = i % 1000 === 999 ? 'oops' : `${(i / 8).toString().replace('.', ',')}`
    lines.push(`${id};${v};2024-01-01T00:00:00.${String(i % 1000).padStart(3, '0')}Z`)
  }
  const text = lines.join('\r\n') + '\r\n'
  const whole = await collect([text])
  t.equal(whole.rows.length, 19980)
  t.equal(whole.errors.length, 20)
  const parts = await collect(chunks(text, 4093), { batchSize: 777 })
  t.same(parts.rows, whole.rows)
  t.same(parts.errors, whole.errors)
})

t.test('blank-line rule: tab-only line is blank unless tab is the delimiter', async t => {
  const r1 = await collect(['a,1,2024-03-31\n\t \t\nb,2,2024-03-31\n'])
  t.same([r1.rows.map(x => x.line), r1.errors], [[1, 3], []])
  const r2 = await collect(['a\t1\t2024-03-31\n\t\t\nb\t2\t2024-03-31\n'])
  t.equal(r2.dialect?.delimiter, '\t')
  t.same(r2.errors, [{ line_no: 2, error: ERR_IDENTIFIER_EMPTY }])
})

t.test('Uint8Array chunks', async t => {
  const bytes = new TextEncoder().encode('Zürich,1,2024-03-31\n')
  const r = await collect([bytes.subarray(0, 2), bytes.subarray(2)] as unknown as Buffer[])
  t.same(r.rows.map(x => x.id), ['Zürich'])
})
