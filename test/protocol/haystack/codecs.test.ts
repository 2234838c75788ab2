// Zinc and Hayson (protocol/haystack/zinc.ts, hayson.ts) against haystack-core (J2 Innovations),
// an implementation nobody here wrote: what we write, it reads to the same values; what it
// writes, we read to the same values. Plus the cases a client can get wrong: escapes, zones,
// special numbers, nesting limits, and the streaming writers giving the whole-grid text.
import t from 'tap'
import { HGrid, ZincReader } from 'haystack-core'
import { fromHayson, haysonGrid, haysonHeader, haysonRow, HAYSON_END, readHaysonGrid, toHayson, type Json } from '../../../protocol/haystack/hayson.ts'
import { Coord, DateTime, Grid, HDate, HTime, MARKER, NA_VALUE, Num, REMOVE, Ref, Sym, Uri, XStr, errorGrid, type Dict, type HVal } from '../../../protocol/haystack/values.ts'
import { readZincGrid, readZincValue, readZincValues, zincGrid, zincHeader, zincRow, zincValue } from '../../../protocol/haystack/zinc.ts'

// 2024-03-31T01:30:00Z: half an hour before Berlin's clocks go forward.
const T = Date.UTC(2024, 2, 31, 1, 30) * 1000
const ROW: Dict = {
  marker: MARKER, na: NA_VALUE, remove: REMOVE, yes: true, no: false,
  int: new Num(42), neg: new Num(-0.5), unit: new Num(21.5, '°C'), pct: new Num(99, '%'), big: new Num(1.5e21), inf: new Num(Infinity), ninf: new Num(-Infinity), nan: new Num(NaN),
  str: 'tab\there "quoted" back\\slash $dollar\nnewline ü €', empty: '',
  uri: new Uri('http://example.org/a b?c="d"'), ref: new Ref('p:demo-r:1.2~x'), refDis: new Ref('abc', 'Room "1"'), sym: new Sym('hot-water'),
  date: new HDate('2024-02-29'), time: new HTime('23:59:59.125'),
  utc: new DateTime(T, 'UTC'), berlin: new DateTime(T, 'Europe/Berlin'), ny: new DateTime(T + 123_000, 'America/New_York'),
  coord: new Coord(37.55, -77.45), xstr: new XStr('Span', 'today'),
  list: [new Num(1), 'two', [MARKER]], dict: { a: new Num(1), b: MARKER, c: { d: 'e' } },
  grid: Grid.ofRows([{ x: new Num(1) }, { y: 'z' }], { inner: MARKER }),
}
const GRID = new Grid({ dis: 'All kinds', when: new DateTime(T, 'Europe/Berlin') }, Object.keys(ROW).map((name) => ({ name, meta: (name === 'unit' ? { unit: '°C' } : {}) as Dict })), [ROW, { str: 'second' }])

/** Hayson of haystack-core, without the keys it writes for absent values. */
const plain = (x: unknown): Json => JSON.parse(JSON.stringify(x)) as Json

t.test('haystack-core reads our Zinc to the values our Hayson names', async (t) => {
  const theirs = ZincReader.readValue(zincGrid(GRID)) as HGrid
  const json = plain(theirs.toJSON()) as { rows: Record<string, Json>[]; meta: Record<string, Json> }
  const mine = haysonGrid(GRID) as { rows: Record<string, Json>[]; meta: Record<string, Json> }
  for (const k of Object.keys(ROW)) {
    if (k === 'grid' || k === 'nan') continue
    // haystack-core leaves out tz of a UTC dateTime (Hayson: UTC when absent).
    if (k === 'utc') { t.same({ tz: 'UTC', ...json.rows[0][k] as object }, mine.rows[0][k], k); continue }
    t.same(json.rows[0][k], plain(mine.rows[0][k]), k)
  }
  t.ok(Number.isNaN((theirs.getRows()[0].get('nan') as unknown as { value: number }).value), 'NaN')
  t.same(json.meta.dis, 'All kinds')
  t.equal(json.rows[1].str, 'second')
  t.same((plain((theirs.getRows()[0].get("grid") as unknown as HGrid).toJSON()) as { rows: Json }).rows, [{ x: 1 }, { y: 'z' }], 'a nested grid')
  t.same(json.rows[0].berlin, { _kind: 'dateTime', val: '2024-03-31T03:30:00+02:00', tz: 'Berlin' }, 'the offset of the instant in the zone (summer time began at 02:00)')
  t.match(json.rows[0].utc, { _kind: 'dateTime', val: '2024-03-31T01:30:00Z' })
})

t.test('haystack-core reads our Hayson to the same values as our Zinc', async (t) => {
  const fromJson = HGrid.make(haysonGrid(GRID) as never)
  const fromZinc = ZincReader.readValue(zincGrid(GRID)) as HGrid
  t.equal(fromJson.toZinc(), fromZinc.toZinc())
})

t.test('we read what haystack-core writes, Zinc and Hayson', async (t) => {
  const theirs = ZincReader.readValue(zincGrid(GRID)) as HGrid
  const a = readZincGrid(theirs.toZinc())
  const b = readHaysonGrid(JSON.parse(JSON.stringify(theirs.toJSON())))
  for (const g of [a, b]) {
    const r = g.rows[0]
    for (const k of Object.keys(ROW)) {
      if (k === 'grid') continue
      // haystack-core writes a Ref's dis in Hayson but not in Zinc.
      if (k === 'refDis' && g === a) { t.same(r[k], new Ref('abc'), k); continue }
      t.same(r[k], ROW[k], k)
    }
    t.same((r.grid as Grid).rows, [{ x: new Num(1) }, { y: 'z' }])
    t.equal(g.rows[1].str, 'second')
    t.equal(g.meta.dis, 'All kinds')
  }
})

t.test('streaming writers give the whole-grid text', async (t) => {
  let z = zincHeader(GRID.meta, GRID.cols)
  let j = haysonHeader(GRID.meta, GRID.cols)
  GRID.rows.forEach((r, i) => { z += zincRow(r, GRID.cols); j += haysonRow(r, i === 0) })
  j += HAYSON_END
  t.equal(z, zincGrid(GRID))
  t.same(JSON.parse(j), JSON.parse(JSON.stringify(haysonGrid(GRID))))
})

t.test('Zinc values and grids of the standard', async (t) => {
  t.same(readZincValue('@p:demo:r:23a3f4a1-2b4f5b6c "RTU-1 Fan"'), new Ref('p:demo:r:23a3f4a1-2b4f5b6c', 'RTU-1 Fan'))
  t.same(readZincValue('2010-11-28T07:23:02.773-08:00 Los_Angeles'), new DateTime(Date.UTC(2010, 10, 28, 15, 23, 2, 773) * 1000, 'America/Los_Angeles'))
  t.same(readZincValue('2009-11-09T15:39:00Z'), new DateTime(Date.UTC(2009, 10, 9, 15, 39) * 1000, 'UTC'))
  t.same(readZincValue('-34.5kW'), new Num(-34.5, 'kW'))
  t.same(readZincValue('1_000'), new Num(1000))
  t.same(readZincValue('5.4e-45'), new Num(5.4e-45))
  t.same(readZincValue('75°F'), new Num(75, '°F'))
  t.same(readZincValue('"\\u00e9\\$"'), 'é$')
  t.same(readZincValues('2024-01-01,2024-01-31'), [new HDate('2024-01-01'), new HDate('2024-01-31')])
  t.equal(zincValue(new DateTime(T, 'Europe/Berlin')), '2024-03-31T03:30:00+02:00 Berlin')
  const g = readZincGrid('ver:"3.0" database:"test" dis:"Site Energy Summary"\nsiteName dis:"Sites", val dis:"Value" unit:"kW"\n"Site 1", 356.214kW\n"Site 2", 463.028kW\n')
  t.same(g.meta, { database: 'test', dis: 'Site Energy Summary' })
  t.same(g.cols, [{ name: 'siteName', meta: { dis: 'Sites' } }, { name: 'val', meta: { dis: 'Value', unit: 'kW' } }])
  t.same(g.rows, [{ siteName: 'Site 1', val: new Num(356.214, 'kW') }, { siteName: 'Site 2', val: new Num(463.028, 'kW') }])
  t.same(readZincGrid('ver:"3.0"\nempty\n').rows, [], 'the empty grid')
  t.same(readZincGrid('ver:"3.0"\na,b\n1,\n,N\n').rows, [{ a: new Num(1) }, {}], 'empty cells and N are absent')
})

t.test('bad Zinc: the line and character of the fault', async (t) => {
  t.throws(() => readZincGrid('ver:"3.0"\na,b\n1,"open\n'), /Invalid Zinc at line 3, character \d+: unterminated string/)
  t.throws(() => readZincGrid('hello'), /a grid starts with ver/)
  t.throws(() => readZincGrid('ver:"9.9"\na\n'), /unsupported Zinc version/)
  t.throws(() => readZincValue('2024-02-30'), /invalid date/)
  t.throws(() => readZincValue('2024-01-01T00:00:00Z Nowhere'), /unknown time zone 'Nowhere'/)
  t.throws(() => readZincValue('['.repeat(70) + ']'.repeat(70)), /nested deeper than 64/)
  t.throws(() => readZincValue('Q'), /unknown value 'Q'/)
})

t.test('bad Hayson: what is wrong', async (t) => {
  t.throws(() => fromHayson({ _kind: 'teapot' }), /unknown _kind "teapot"/)
  t.throws(() => fromHayson({ _kind: 'ref' }), /ref needs a string "val"/)
  t.throws(() => fromHayson({ _kind: 'dateTime', val: '2024-01-01T00:00:00Z', tz: 'Mars' }), /unknown time zone "Mars"/)
  t.throws(() => readHaysonGrid([]), /a grid must be a JSON object/)
  t.throws(() => readHaysonGrid({ _kind: 'grid', rows: [1] }), /a row must be an object/)
  let deep: Json = 1
  for (let i = 0; i < 70; i++) deep = [deep]
  t.throws(() => fromHayson(deep), /nested deeper than 64/)
  t.same(readHaysonGrid({ _kind: 'grid', meta: { ver: '3.0' }, rows: [{ a: 1 }, { b: 'x' }] }).cols.map((c) => c.name), ['a', 'b'], 'columns left out: the rows\' tags')
  t.same(toHayson(new Num(5, 'kW')), { _kind: 'number', val: 5, unit: 'kW' })
  t.same(toHayson(new Num(-Infinity)), { _kind: 'number', val: '-INF' })
})

t.test('error grids', async (t) => {
  t.equal(zincGrid(errorGrid('Unknown id', 'NOT_FOUND')), 'ver:"3.0" err dis:"Unknown id" errTrace:"NOT_FOUND"\nempty\n')
  const theirs = ZincReader.readValue(zincGrid(errorGrid('Bad "thing"'))) as HGrid
  t.same(theirs.getError(), { type: '', trace: '', dis: 'Bad "thing"' })
  const v: HVal = readHaysonGrid(JSON.parse(JSON.stringify(haysonGrid(errorGrid('x', 'y')))))
  t.same((v as Grid).meta, { err: MARKER, dis: 'x', errTrace: 'y' })
})
