import t from 'tap'
import { detectDialect, sampleLines } from '../../protocol/csv/dialect.ts'
import { PREFERRED_DIALECT } from '../../protocol/csv/line.ts'

const ISO = ['2024-03-31T12:30:00Z', '2024-03-31 12:31:00', '2024-03-31T12:32:00.5+02:00']

function file(lines: string[], eol = '\n'): string {
  return lines.join(eol) + eol
}

t.test('preferred dialect', async t => {
  const d = detectDialect(file(ISO.map((ts, i) => `Room ${i},${i}.5,${ts}`)), true)
  t.same(d, PREFERRED_DIALECT)
})

t.test('each delimiter', async t => {
  for (const delim of [',', ';', '\t', '|'] as const) {
    const d = detectDialect(file(ISO.map((ts, i) => `Room ${i}${delim}${i}.5${delim}${ts}`)), true)
    t.equal(d.delimiter, delim, JSON.stringify(delim))
    t.same(d.columns, { id: 0, value: 1, time: 2 })
  }
})

t.test('semicolon with decimal commas and ISO comma fractions', async t => {
  const d = detectDialect(file(['a;1,5;2024-03-31 12:00:00,123', 'b;2,25;2024-03-31 12:01:00,5']), true)
  t.equal(d.delimiter, ';')
})

t.test('quoted fields with delimiters inside', async t => {
  const d = detectDialect(file(['"a;b, c",1,2024-03-31', '"x;y, z",2,2024-03-31', '"p;q, r",3,2024-03-31']), true)
  t.equal(d.delimiter, ',')
  t.equal(d.quote, '"')
})

t.test("single-quote dialect when it parses more lines", async t => {
  const d = detectDialect(file(["'a,b',1,2024-03-31", "'c,d',2,2024-03-31"]), true)
  t.equal(d.quote, "'")
  t.equal(d.delimiter, ',')
})

t.test('header detection', async t => {
  const body = ISO.map((ts, i) => `r${i},${i},${ts}`)
  t.equal(detectDialect(file(['id,value,time', ...body]), true).header, true)
  t.equal(detectDialect(file(['name,reading,timestamp', ...body]), true).header, true)
  t.equal(detectDialect(file(['foo,bar,baz', ...body]), true).header, true, 'unknown names: still a header')
  t.equal(detectDialect(file(body), true).header, false)
  t.equal(detectDialect(file(['a,notanumber,2024-03-31', ...body]), true).header, false,
    'value not a number but time parses: a data line (error), not a header')
  t.equal(detectDialect(file(['a,1,notadate', ...body]), true).header, false, 'value parses: data line')
  t.equal(detectDialect(file(['\n', '  ', 'id,value,time', ...body]), true).header, true, 'first non-blank line')
})

t.test('column order from header names', async t => {
  const d1 = detectDialect(file(['Timestamp;DataPointID;Value', '2024-03-31T12:00:00Z;7;1,5', '2024-03-31T12:01:00Z;8;2']), true)
  t.equal(d1.delimiter, ';')
  t.same(d1.columns, { time: 0, id: 1, value: 2 })
  t.equal(d1.timeFormat, 'iso')
  // all-numeric data: only the header can tell which column is which
  const d2 = detectDialect(file(['datapoint,time,value', '1001,1711888200,23.5', '1002,1711888260,24']), true)
  t.same(d2.columns, { id: 0, time: 1, value: 2 })
  t.equal(d2.timeFormat, 'epoch', 'numeric time column read as epoch')
  const d3 = detectDialect(file(['value\tunix\tsensor', '1\t1711888200\ts1']), true)
  t.equal(d3.delimiter, '\t')
  t.same(d3.columns, { value: 0, time: 1, id: 2 })
  t.equal(d3.timeFormat, 'epoch')
  const d4 = detectDialect(file(['data_point_id,value,epoch']), true)
  t.equal(d4.header, true)
  t.equal(d4.timeFormat, 'epoch', 'epoch name without data')
})

t.test('column order from data (ISO timestamps)', async t => {
  t.same(detectDialect(file(['a,2024-03-31T12:00:00Z,1', 'b,2024-03-31T12:01:00Z,2']), true).columns, { id: 0, time: 1, value: 2 })
  t.same(detectDialect(file(['2024-03-31T12:00:00Z,a,1', '2024-03-31T12:01:00Z,b,2']), true).columns, { time: 0, id: 1, value: 2 })
  t.same(detectDialect(file(['2024-03-31T12:00:00Z,1,a', '2024-03-31T12:01:00Z,2,b']), true).columns, { time: 0, value: 1, id: 2 })
  t.same(detectDialect(file(['2024-03-31T12:00:00Z,1,2', '2024-03-31T12:01:00Z,2,3']), true).columns, { time: 0, id: 1, value: 2 },
    'numeric identifiers: time-id-value preferred over time-value-id')
})

t.test('epoch column without header: third column, deterministic rule', async t => {
  const d = detectDialect(file(['s1,23.5,1711888200', 's2,24,1711888260']), true)
  t.same(d.columns, { id: 0, value: 1, time: 2 })
  t.equal(d.timeFormat, 'epoch')
  const d2 = detectDialect(file(['1001,23.5,1711888200123', '1002,24,1711888260123']), true)
  t.same(d2.columns, { id: 0, value: 1, time: 2 }, 'all numeric: the preferred order wins the tie')
  t.equal(d2.timeFormat, 'epoch')
  const d3 = detectDialect(file(['s1,1711888200,23.5', 's2,1711888260,24']), true)
  t.same(d3.columns, { id: 0, value: 1, time: 2 }, 'an epoch column in second place is not recognised without a header')
})

t.test('BOM, CRLF, partial last line, nothing parseable', async t => {
  t.same(detectDialect('\uFEFFa;1;2024-03-31\r\nb;2;2024-03-31\r\n', true).delimiter, ';')
  t.same(sampleLines('\uFEFFx\r\ny\r\n\r\nz', false), ['x', 'y'], 'partial last line dropped')
  t.same(sampleLines('x\r\ny\r\n\r\nz', true), ['x', 'y', 'z'])
  t.same(detectDialect('', true), PREFERRED_DIALECT)
  t.same(detectDialect('garbage\nmore garbage\n', true), { ...PREFERRED_DIALECT, header: true },
    'nothing parses: preferred dialect; the first line looks like a header')
  // a partial last line in a truncated sample does not decide anything
  t.equal(detectDialect('a;1;2024-03-31\nb;2;2024-03-31\nc|3|2024', false).delimiter, ';')
})
