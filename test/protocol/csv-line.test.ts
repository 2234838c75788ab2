import t from 'tap'
import { type CsvDialect, type CsvRow, FieldSplitter, LineParser, PREFERRED_DIALECT } from '../../protocol/csv/line.ts'
import {
  ERR_IDENTIFIER_BACKSLASH, ERR_IDENTIFIER_EMPTY, errDatetime, errFloat, lineErrorMessage,
} from '../../protocol/csv/errors.ts'

const T = Date.UTC(2024, 2, 31, 12, 30) * 1000 // 2024-03-31T12:30:00Z

function parse(line: string, d: Partial<CsvDialect> = {}): CsvRow | string {
  const p = new LineParser({ ...PREFERRED_DIALECT, ...d })
  const r = p.parse(line, 0, line.length, 7)
  return r ?? p.error
}

function fields(line: string, delimiter: CsvDialect['delimiter'] = ',', quote: CsvDialect['quote'] = '"'): string[] {
  const sp = new FieldSplitter(delimiter, quote)
  const n = sp.split(line, 0, line.length)
  return Array.from({ length: n }, (_, i) => sp.fieldText(line, i, n))
}

t.test('error texts', async t => {
  t.equal(ERR_IDENTIFIER_BACKSLASH, 'Identifier contains a backslash')
  t.equal(ERR_IDENTIFIER_EMPTY, 'Identifier is empty')
  t.equal(errFloat('abc'), "Cannot parse float: 'abc'")
  t.equal(errDatetime('x'), "Cannot parse datetime: 'x'")
  t.equal(lineErrorMessage(3, ERR_IDENTIFIER_EMPTY), 'Error in line 3: Identifier is empty')
})

t.test('preferred dialect row', async t => {
  t.same(parse('Room 1,23.5,2024-03-31T12:30:00Z'), { id: 'Room 1', time: T, value: 23.5, line: 7 })
})

t.test('field splitting', async t => {
  t.same(fields('a,b,c'), ['a', 'b', 'c'])
  t.same(fields('a,b,c,d,e'), ['a', 'b', 'c'], 'only the first three fields are read')
  t.same(fields('a,b'), ['a', 'b'])
  t.same(fields('a'), ['a'])
  t.same(fields('a,b,'), ['a', 'b', ''])
  t.same(fields(',,'), ['', '', ''])
  t.same(fields('  a  , b ,c  '), ['a', 'b', 'c'], 'unquoted fields trimmed')
  t.same(fields('"a,b",1,2'), ['a,b', '1', '2'], 'delimiter inside quotes')
  t.same(fields('"say ""hi""",1,2'), ['say "hi"', '1', '2'], 'doubled quotes')
  t.same(fields('"""",1,2'), ['"', '1', '2'])
  t.same(fields('"",1,2'), ['', '1', '2'])
  t.same(fields('  " a "  ,1,2'), [' a ', '1', '2'], 'quoted content verbatim, blanks outside ignored')
  t.same(fields('"ab"cd,1,2'), ['abcd', '1', '2'], 'text after the closing quote appended')
  t.same(fields('O\'Brien "x",1,2'), ['O\'Brien "x"', '1', '2'], 'quotes inside unquoted fields are literal')
  t.same(fields('"open,1,2'), ['open,1,2'], 'unclosed quote takes the rest of the line')
  t.same(fields('a;b;c', ';'), ['a', 'b', 'c'])
  t.same(fields('a\tb\tc', '\t'), ['a', 'b', 'c'])
  t.same(fields('a b\t c \t\td', '\t'), ['a b', 'c', ''], 'tab delimiter: blanks trimmed, tabs split')
  t.same(fields('a|b|c', '|'), ['a', 'b', 'c'])
  t.same(fields("'a,b',1,2", ',', "'"), ['a,b', '1', '2'], 'single-quote dialect')
  t.same(fields("'it''s',1,2", ',', "'"), ["it's", '1', '2'])
})

t.test('identifiers with blanks, slashes, quotes and non-ASCII', async t => {
  const ts = '2024-03-31T12:30:00Z'
  for (const [line, id] of [
    [`Building A/Floor 2/Room 17,1,${ts}`, 'Building A/Floor 2/Room 17'],
    [`"Room ""North"", 2",1,${ts}`, 'Room "North", 2'],
    [`Raum Größe – Süd 温度 🌡,1,${ts}`, 'Raum Größe – Süd 温度 🌡'],
    [`it's "quoted",1,${ts}`, 'it\'s "quoted"'],
    [`"  padded  ",1,${ts}`, '  padded  '],
  ]) {
    const r = parse(line)
    t.equal(typeof r === 'object' ? r.id : r, id, line)
  }
})

t.test('the four errors and their order', async t => {
  t.equal(parse(',1,2024-03-31'), ERR_IDENTIFIER_EMPTY)
  t.equal(parse('  ,1,2024-03-31'), ERR_IDENTIFIER_EMPTY, 'blank identifier is empty')
  t.equal(parse('"",1,2024-03-31'), ERR_IDENTIFIER_EMPTY, 'empty quoted identifier')
  t.equal(parse(',x,y'), ERR_IDENTIFIER_EMPTY, 'empty identifier first')
  t.equal(parse('a\\b,1,2024-03-31'), ERR_IDENTIFIER_BACKSLASH)
  t.equal(parse('"a\\b",1,2024-03-31'), ERR_IDENTIFIER_BACKSLASH, 'also when quoted')
  t.equal(parse('a\\b,x,y'), ERR_IDENTIFIER_BACKSLASH, 'backslash before float')
  t.equal(parse('a,abc,2024-03-31'), errFloat('abc'))
  t.equal(parse('a,abc,nodate'), errFloat('abc'), 'float before datetime')
  t.equal(parse('a, 1x ,2024-03-31'), errFloat('1x'), 'field shown trimmed')
  t.equal(parse('a,"x,y",2024-03-31'), errFloat('x,y'), 'field shown unquoted')
  t.equal(parse('a,1,nodate'), errDatetime('nodate'))
  t.equal(parse('a,1,2024-02-30'), errDatetime('2024-02-30'))
  for (const v of ['NaN', 'Infinity', '-Infinity', '', '1e999', '0x1F'])
    t.equal(parse(`a,${v},2024-03-31`), errFloat(v), `value ${JSON.stringify(v)}`)
})

t.test('too many and too few fields', async t => {
  t.equal(parse('Room 1, floor 2,23.5,2024-03-31'), errFloat('floor 2'), 'unquoted id containing the delimiter')
  t.same(parse('a,1,2024-03-31T12:30:00Z,extra,more'), { id: 'a', time: T, value: 1, line: 7 }, 'extra fields ignored')
  t.equal(parse('a'), errFloat(''), 'one field: value missing')
  t.equal(parse('a,1'), errDatetime(''), 'two fields: time missing')
  t.equal(parse('a,x'), errFloat('x'))
})

t.test('values', async t => {
  const v = (s: string, d: Partial<CsvDialect> = {}) => {
    const r = parse(`a${d.delimiter ?? ','}${s}${d.delimiter ?? ','}2024-03-31`, d)
    return typeof r === 'object' ? r.value : r
  }
  t.equal(v('+1.5'), 1.5)
  t.equal(v('-2e3'), -2000)
  t.equal(v('"7.25"'), 7.25, 'quoted number')
  t.equal(v('1,5', { delimiter: ';' }), 1.5, 'decimal comma with ;')
  t.equal(v('1,5', { delimiter: '\t' }), 1.5, 'decimal comma with tab')
  t.equal(v('"1,5"'), errFloat('1,5'), 'no decimal comma with , delimiter')
})

t.test('column orders and epoch time', async t => {
  const E = 1711888200
  t.same(parse(`2024-03-31T12:30:00Z,a,1`, { columns: { time: 0, id: 1, value: 2 } }), { id: 'a', time: T, value: 1, line: 7 })
  t.same(parse(`a,2024-03-31T12:30:00Z,1`, { columns: { id: 0, time: 1, value: 2 } }), { id: 'a', time: T, value: 1, line: 7 })
  t.same(parse(`1,2024-03-31T12:30:00Z,a`, { columns: { value: 0, time: 1, id: 2 } }), { id: 'a', time: T, value: 1, line: 7 })
  t.same(parse(`a,1,${E}`, { timeFormat: 'epoch' }), { id: 'a', time: E * 1e6, value: 1, line: 7 })
  t.same(parse(`a,1,${E}123`, { timeFormat: 'epoch' }), { id: 'a', time: E * 1e6 + 123_000, value: 1, line: 7 })
  t.equal(parse(`a,1,2024-03-31`, { timeFormat: 'epoch' }), errDatetime('2024-03-31'))
  t.equal(parse(`a,1,${E}`), errDatetime(String(E)), 'ISO dialect rejects epoch numbers')
  t.equal(parse(`2024-03-31`, { columns: { time: 0, id: 1, value: 2 } }), ERR_IDENTIFIER_EMPTY, 'missing identifier is empty')
})

t.test('identifier reuse keeps results correct', async t => {
  const p = new LineParser(PREFERRED_DIALECT)
  const lines = ['abc,1,2024-03-31', 'abc,2,2024-03-31', 'abd,3,2024-03-31', 'ab\\c,4,2024-03-31', 'abc,5,2024-03-31', 'x'.repeat(40) + ',6,2024-03-31']
  const out = lines.map(l => p.parse(l, 0, l.length, 1)?.id ?? p.error)
  t.same(out, ['abc', 'abc', 'abd', ERR_IDENTIFIER_BACKSLASH, 'abc', 'x'.repeat(40)])
})

t.test('identifiers with control characters are line errors (issue 9)', async t => {
  t.equal(parse('a\u0000b,1,2024-03-31T12:30:00Z'), 'Identifier contains the control character U+0000')
  t.equal(parse('"q\u0007",1,2024-03-31T12:30:00Z'), 'Identifier contains the control character U+0007', 'quoted')
  t.equal(parse('c1\u0090,1,2024-03-31T12:30:00Z'), 'Identifier contains the control character U+0090')
  t.equal(parse('in\tside;1;2024-03-31T12:30:00Z', { delimiter: ';' }), 'Identifier contains the control character U+0009')
  t.same(parse('\tpadded\t;1;2024-03-31T12:30:00Z', { delimiter: ';' }), { id: 'padded', time: T, value: 1, line: 7 }, 'surrounding tabs are trimmed, as before')
  const p = new LineParser(PREFERRED_DIALECT)
  t.ok(p.parse('same\u0001,1,2024-03-31T12:30:00Z', 0, 27, 1) === undefined && p.parse('same\u0001,2,2024-03-31T12:30:00Z', 0, 27, 2) === undefined, 'also when the identifier repeats')
})
