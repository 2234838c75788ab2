import t from 'tap'
import { parseDataRange, parseDuration, parseVdpConfig, VdpConfigError, vdpType } from '../../../engine/vdp/config.ts'

const pin = (dataPointID: string, extra: object = {}) => ({ dataPointID, ...extra })

/** The message of the VdpConfigError thrown by parsing. */
function error(type: string, body: unknown): string {
  try {
    parseVdpConfig(type, body)
  } catch (err) {
    if (err instanceof VdpConfigError) return err.message
    throw err
  }
  throw new Error('no error for ' + JSON.stringify(body))
}

t.test('formula: defaults of a pin, pins sorted P1..P5', async (t) => {
  const c = parseVdpConfig('formula', { pins: { P2: pin('b'), P1: pin('a', { aggregate: 'mean', trigger: 'every_minute', data_range: { time: '15m' } }) }, parameters: { formula: 'P1 + P2' } })
  t.same(c, {
    type: 'formula',
    pins: [
      { name: 'P1', dataPointID: 'a', range: { kind: 'time', us: 15 * 60_000_000 }, aggregate: 'mean', trigger: 'every_minute' },
      { name: 'P2', dataPointID: 'b', range: { kind: 'count', n: 1 }, aggregate: 'max', trigger: 'every_value' },
    ],
    parameters: { formula: 'P1 + P2' },
  })
})

t.test('formula: pins and parameters errors', async (t) => {
  const f = { formula: 'P1' }
  t.equal(error('formula', { pins: { P1: pin('a'), P6: pin('b') }, parameters: f }), 'pins.P6: formula virtual datapoints take pins P1 to P5')
  t.equal(error('formula', { pins: { p1: pin('a') }, parameters: f }), 'pins.p1: formula virtual datapoints take pins P1 to P5')
  t.equal(error('formula', { pins: {}, parameters: f }), 'pins: give at least one pin (P1 to P5)')
  t.equal(error('formula', { parameters: f }), 'pins: required')
  t.equal(error('formula', { pins: { P1: pin('a') } }), 'parameters.formula: required')
  t.equal(error('formula', { pins: { P1: pin('a') }, parameters: { formula: 5 } }), 'parameters.formula: expected a string, got 5')
  t.equal(error('formula', { pins: { P1: pin('a') }, parameters: { formula: 'P1', x: 1 } }), 'parameters.x: unknown parameter; formula virtual datapoints take formula')
  t.match(error('formula', { pins: { P1: pin('a') }, parameters: { formula: 'P1 + P2' } }), /^parameters\.formula: Unknown name 'P2' at line 1, column 6/)
  t.match(error('formula', { pins: { P1: pin('a') }, parameters: { formula: 'P1 +' } }), /^parameters\.formula: Syntax error at line 1/)
  t.equal(error('formula', { pins: { P1: pin('a') }, parameters: f, description: 'x' }), 'description: unknown field; the body is {pins, parameters}')
  t.equal(error('formula', [1]), 'body: expected an object {pins, parameters}')
})

t.test('pin errors', async (t) => {
  const body = (p: unknown) => ({ pins: { P1: p }, parameters: { formula: 'P1' } })
  t.equal(error('formula', body('a')), 'pins.P1: expected an object {dataPointID, data_range, aggregate, trigger}')
  t.equal(error('formula', body({})), 'pins.P1.dataPointID: required: the input datapoint')
  t.equal(error('formula', body(pin('a', { agg: 'max' }))), 'pins.P1.agg: unknown field; a pin has dataPointID, data_range, aggregate and trigger')
  t.equal(error('formula', body(pin('a', { aggregate: 'avg' }))), 'pins.P1.aggregate: expected one of last, first, sum, mean, median, max, min, timeweighted_mean, integral, got "avg"')
  t.equal(error('formula', body(pin('a', { trigger: 'every_second' }))), 'pins.P1.trigger: expected one of every_value, every_minute, every_hour, got "every_second"')
  t.equal(error('formula', body(pin('a', { data_range: { time: '1h', count: 2 } }))), 'pins.P1.data_range: give exactly one of time, count or start/end')
  t.equal(error('formula', body(pin('a', { data_range: {} }))), 'pins.P1.data_range: give exactly one of time, count or start/end')
  t.equal(error('formula', body(pin('a', { data_range: { size: 2 } }))), 'pins.P1.data_range.size: unknown field; give exactly one of time, count or start/end')
  t.equal(error('formula', body(pin('a', { data_range: { start: '0 8 * * *' } }))), 'pins.P1.data_range.end: required: a cron range gives both start and end')
  t.match(error('formula', body(pin('a', { data_range: { start: '0 8 * *', end: '0 9 * * *' } }))), /^pins\.P1\.data_range\.start: not a five-field cron expression .*expected five fields/)
  t.match(error('formula', body(pin('a', { data_range: { start: '0 8 * * *', end: '0 24 * * *' } }))), /^pins\.P1\.data_range\.end: not a five-field cron expression/)
  t.equal(error('formula', body(pin('a', { data_range: { count: 0 } }))), 'pins.P1.data_range.count: expected a whole number from 1 to 100000, got 0')
  t.equal(error('formula', body(pin('a', { data_range: { count: '2.5' } }))), 'pins.P1.data_range.count: expected a whole number from 1 to 100000, got "2.5"')
  t.equal(error('formula', body(pin('a', { data_range: { time: '15' } }))), 'pins.P1.data_range.time: expected a duration such as 30s, 15m, 1.5h, 7d or 2w (at most 366d), got "15"')
})

t.test('data ranges', async (t) => {
  t.same(parseDataRange(undefined), { kind: 'count', n: 1 }, 'the spec default')
  t.same(parseDataRange(null), { kind: 'none' })
  t.same(parseDataRange({ count: 5 }), { kind: 'count', n: 5 })
  t.same(parseDataRange({ count: '5' }), { kind: 'count', n: 5 }, 'count as a string')
  t.same(parseDataRange({ time: '90s' }), { kind: 'time', us: 90_000_000 })
  t.same(parseDataRange({ start: '0 8 * * 1-5', end: ' 0 17 * * 1-5' }), { kind: 'cron', start: '0 8 * * 1-5', end: '0 17 * * 1-5' })
})

t.test('durations', async (t) => {
  t.equal(parseDuration('30s'), 30e6)
  t.equal(parseDuration('15m'), 900e6)
  t.equal(parseDuration('1.5h'), 5400e6)
  t.equal(parseDuration('7d'), 7 * 86_400e6)
  t.equal(parseDuration('2w'), 14 * 86_400e6)
  t.equal(parseDuration('366d'), 366 * 86_400e6)
  for (const bad of ['367d', '0s', '15', 'm', '-1h', '1y', '15M', '1h30m', '']) t.equal(parseDuration(bad), undefined, bad)
})

t.test('gradient', async (t) => {
  const c = parseVdpConfig('gradient', { pins: { input: pin('meter') }, parameters: {} })
  t.same(c.parameters, { factorization: 1 })
  t.equal(c.pins.length, 1)
  t.same(parseVdpConfig('gradient', { pins: { input: pin('meter') }, parameters: { factorization: 3600 } }).parameters, { factorization: 3600 })
  t.equal(error('gradient', { pins: { P1: pin('m') } }), 'pins.P1: gradient virtual datapoints take exactly one pin named input')
  t.equal(error('gradient', { pins: {} }), 'pins.input: required')
  t.equal(error('gradient', { pins: { input: pin('m') }, parameters: { factorization: '3600' } }), 'parameters.factorization: expected a number, got "3600"')
  t.equal(error('gradient', { pins: { input: pin('m') }, parameters: { formula: 'x' } }), 'parameters.formula: unknown parameter; gradient virtual datapoints take factorization')
})

t.test('absolute humidity: type names, pins, units', async (t) => {
  const body = { pins: { temperature: pin('t'), relative_humidity: pin('rh') } }
  const c = parseVdpConfig('absolute_humidity', body)
  t.equal(c.type, 'absolute_humidity')
  t.same(c.pins.map((p) => p.name), ['relative_humidity', 'temperature'])
  t.same(c.parameters, { relative_humidity_unit: 'count', temperature_unit: 'celsius', pressure_unit: 'Pa' })
  t.equal(parseVdpConfig('absolute_air_humidity', body).type, 'absolute_humidity', 'the spec wording is accepted')
  const full = parseVdpConfig('absolute_humidity', {
    pins: { pressure: pin('p'), temperature: pin('t'), relative_humidity: pin('rh') },
    parameters: { relative_humidity_unit: 'percent', temperature_unit: 'fahrenheit', pressure_unit: 'hPa' },
  })
  t.same(full.pins.map((p) => p.name), ['relative_humidity', 'temperature', 'pressure'])
  t.equal(error('absolute_humidity', { pins: { temperature: pin('t') } }), 'pins.relative_humidity: required')
  t.equal(error('absolute_humidity', { pins: { ...body.pins, dew: pin('d') } }), 'pins.dew: absolute humidity takes pins relative_humidity, temperature and (optional) pressure')
  t.equal(error('absolute_humidity', { ...body, parameters: { pressure_unit: 'psi' } }), 'parameters.pressure_unit: expected one of Pa, hPa, kPa, bar, mbar, got "psi"')
  t.equal(error('absolute_humidity', { ...body, parameters: { temperature_unit: 'C' } }), 'parameters.temperature_unit: expected one of celsius, kelvin, fahrenheit, got "C"')
  t.equal(error('absolute_humidity', { ...body, parameters: { relative_humidity_unit: '%' } }), 'parameters.relative_humidity_unit: expected one of count, percent, got "%"')
})

t.test('counter', async (t) => {
  const c = parseVdpConfig('counter', { pins: { flow: pin('f'), dt: pin('d') }, parameters: { formula: 'flow * dt' } })
  t.same(c.pins.map((p) => p.name), ['flow', 'dt'], 'body order')
  t.same(c.parameters, { formula: 'flow * dt', default_init_value: 0 })
  t.same(parseVdpConfig('counter', { pins: { a: pin('a') }, parameters: { formula: 'a', default_init_value: 12.5 } }).parameters, { formula: 'a', default_init_value: 12.5 })
  const many = Object.fromEntries(Array.from({ length: 21 }, (_, i) => ['p' + i, pin('d' + i)]))
  t.equal(error('counter', { pins: many, parameters: { formula: 'p1' } }), 'pins: a counter takes at most 20 pins, got 21')
  t.equal(error('counter', { pins: { '1a': pin('a') }, parameters: { formula: '1' } }), 'pins.1a: a pin name must be usable in a formula: letters, digits and _, not starting with a digit, not a keyword')
  t.equal(error('counter', { pins: { if: pin('a') }, parameters: { formula: '1' } }), 'pins.if: a pin name must be usable in a formula: letters, digits and _, not starting with a digit, not a keyword')
  t.equal(error('counter', { pins: {}, parameters: { formula: '1' } }), 'pins: give at least one pin')
  t.equal(error('counter', { pins: { a: pin('a') } }), 'parameters.formula: required')
  t.equal(error('counter', { pins: { a: pin('a') }, parameters: { formula: 'a', default_init_value: 'x' } }), 'parameters.default_init_value: expected a number, got "x"')
})

t.test('type names', async (t) => {
  t.equal(vdpType('counter'), 'counter')
  t.equal(error('humidity', {}), "type: unknown type 'humidity'; expected formula, gradient, absolute_humidity or counter")
  t.equal(error('Formula', {}), "type: unknown type 'Formula'; expected formula, gradient, absolute_humidity or counter")
  t.equal(error('toString', {}), "type: unknown type 'toString'; expected formula, gradient, absolute_humidity or counter")
  const e = new VdpConfigError('pins', 'x')
  t.ok(e instanceof Error)
  t.equal(e.name, 'VdpConfigError')
  t.equal(e.path, 'pins')
})
