// The console's pure helpers, run in Node (they touch no DOM): the datapoint search, live
// points merged into a series (late and repeated times), uPlot's aligned columns, the
// position of a formula error, chart spans. The browser tests cover them in use.
import t from 'tap'

// Plain browser modules without type declarations: loaded by a computed path, typed here.
const load = (path: string): Promise<any> => import(new URL(`../../console/${path}`, import.meta.url).href)
const { matches } = await load('views/datapoints.js').catch(() => ({ matches: undefined }))
const series = await load('lib/series.js')
const fe = await load('lib/formula-error.js')

t.test('search: words in the identifier or a tag, key=value, * for any value', async (t) => {
  t.ok(matches, 'datapoints.js loads outside a browser')
  const dp = { dataPointID: 'AHU1/Supply_Temp', tags: { zone: 'North', unit: 'degC' } }
  t.ok(matches(dp, 'ahu1 supply'), 'all words, any case')
  t.notOk(matches(dp, 'ahu1 return'), 'every word must occur')
  t.ok(matches(dp, 'zone=north'), 'a tag by key and value')
  t.ok(matches(dp, 'zone=*'), 'any value of a key')
  t.notOk(matches(dp, 'zone=south'))
  t.notOk(matches(dp, 'floor=*'), 'a key it does not have')
  t.ok(matches(dp, 'degc'), 'a word in a tag')
  t.ok(matches(dp, '  '), 'an empty search matches all')
})

t.test('live points: appended, put in place when late, a repeated time replaces', async (t) => {
  const s: [number, number][] = [[10, 1], [20, 2], [30, 3]]
  series.insertPoints(s, [[40, 4]])
  series.insertPoints(s, [[15, 1.5], [20, 22], [5, 0]])
  t.same(s, [[5, 0], [10, 1], [15, 1.5], [20, 22], [30, 3], [40, 4]])
  series.trimBefore(s, 15)
  t.same(s.map((p) => p[0]), [15, 20, 30, 40], 'a following chart drops what left its window')
})

t.test('aligned columns: the union of times, null where a series has no point', async (t) => {
  t.same(series.align([[[1, 10], [3, 30]], [[2, 20], [3, 31]]]), [[1, 2, 3], [10, null, 30], [null, 20, 31]])
  t.same(series.align([[], []]), [[], [], []])
  t.equal(series.valueOf({ time: 'x', value: 1 }), 1)
  t.equal(series.valueOf({ time: 'x', mean: 2 }), 2, 'sampled')
  t.equal(series.valueOf({ time: 'x', max: 3 }), 3, 'another aggregate')
})

t.test('formula errors: the position the message names, as an offset in the text', async (t) => {
  t.same(fe.formulaErrorPosition("parameters.formula: Syntax error at line 2, column 9: expected expression but found '*'"), { line: 2, column: 9 })
  t.equal(fe.formulaErrorPosition('pins.P1: No read access to datapoint x'), undefined, 'no position, none made up')
  const text = 'a = P1 * 2;\nb = a + * 3;'
  t.equal(text[fe.offsetOf(text, 2, 9)], '*')
  t.equal(fe.offsetOf(text, 1, 1), 0)
  t.equal(fe.offsetOf(text, 9, 1), text.length, 'a line past the end stays within the text')
})

t.test('chart spans', async (t) => {
  const { spanMs } = await load('views/chart.js')
  t.equal(spanMs('24h'), 86400e3)
  t.equal(spanMs('90m'), 5400e3)
  t.equal(spanMs('2w'), 14 * 86400e3)
  t.equal(spanMs('24 h'), undefined)
  t.equal(spanMs(null), undefined)
  const { spanText } = await load('views/chart.js')
  t.same([spanText(86400e3), spanText(7 * 86400e3), spanText(3600e3), spanText(90 * 60e3), spanText(1)], ['1d', '1w', '1h', '90m', '1m'], 'the relative range a plot view keeps')
})

t.test('controls apps: the 400 of a configuration, one problem per line', async (t) => {
  const { configProblems } = await load('views/apps.js')
  t.same(configProblems("Invalid configuration: configuration.week[0].time: must be HH:mm; configuration.colour: unknown field; configuration.holiday[1].values.a; b: x"),
    ['configuration.week[0].time: must be HH:mm', 'configuration.colour: unknown field', 'configuration.holiday[1].values.a; b: x'], 'split only where the next problem\'s path begins')
  t.same(configProblems("configuration.week[0].values.flow_temp_setpoint: 35 is outside the write bounds [10,30] of datapoint 'hc1.flow_sp'"),
    ["configuration.week[0].values.flow_temp_setpoint: 35 is outside the write bounds [10,30] of datapoint 'hc1.flow_sp'"], 'a message without the prefix stays whole')
})
