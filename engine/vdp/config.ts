// Validation of a virtual datapoint's creation body `{pins: {...}, parameters: {...}}` (spec
// part 2, "Pin configuration", "Configuration by type", "Limits") into a VdpConfig. Every
// mistake is a VdpConfigError naming where it is (`pins.P1.data_range: ...`); the API maps it
// to 400. Unknown fields, pins and parameters are errors, not silently ignored.
//
// Decisions where the spec is silent:
// - type names: `formula`, `gradient`, `absolute_humidity` (also accepted as
//   `absolute_air_humidity`, the spec's wording; the config always says absolute_humidity),
//   `counter`. Exact, lower case.
// - data_range: absent → {count: 1} (the spec's default); null → none, every observation
//   forwarded as it is. time: a positive number (decimals allowed) and one unit of s, m, h, d,
//   w (week = 7 d), e.g. "30s", "15m", "1.5h", "7d", at most 366 d. count: a whole number
//   1..100000, also as a string of digits. start/end: five-field cron expressions (minute hour
//   day-of-month month day-of-week), evaluated in UTC.
// - formula pins are P1..P5 (at least one). Counter pins: 1..20 names usable in a formula
//   (letters, digits, `_`, not starting with a digit, not a keyword).
// - absolute humidity units: relative_humidity_unit `count` (a fraction, 0..1; default) or
//   `percent`; temperature_unit `celsius` (default), `kelvin`, `fahrenheit`; pressure_unit `Pa`
//   (default), `hPa`, `kPa`, `bar`, `mbar`. The output is in g/m³.
// - factorization and default_init_value are finite JSON numbers.
import { InvalidInputError } from '../../core/errors.ts'
import { compileFormula, FormulaError, isValidName } from '../../formulas/index.ts'
import { checkCron } from '../stream/cron-range.ts'
import { MAX_WINDOW_SIZE } from '../stream/range-window.ts'
import {
  AGGREGATES, type Aggregate, type DataRange, type PinConfig, PRESSURE_UNITS, RELATIVE_HUMIDITY_UNITS, TEMPERATURE_UNITS,
  TRIGGERS, type Trigger, type VdpConfig, type VdpType,
} from './types.ts'

/** 400 VDP_CONFIG_INVALID (core/errors.ts): answered as it is by the API's error handler. */
export class VdpConfigError extends InvalidInputError {
  override readonly name = 'VdpConfigError'
  /** @param path where the mistake is, e.g. `pins.P1.data_range` */
  constructor(readonly path: string, readonly reason: string) {
    super(path + ': ' + reason, 'VDP_CONFIG_INVALID')
  }
}

export const MAX_FORMULA_PINS = 5
export const MAX_COUNTER_PINS = 20
export const MAX_DURATION_US = 366 * 86_400_000_000

const TYPE_NAMES: Readonly<Record<string, VdpType>> = {
  formula: 'formula',
  gradient: 'gradient',
  absolute_humidity: 'absolute_humidity',
  absolute_air_humidity: 'absolute_humidity',
  counter: 'counter',
}

/** The type of a `type` query value; throws VdpConfigError for an unknown one. */
export function vdpType(type: string): VdpType {
  const t = Object.hasOwn(TYPE_NAMES, type) ? TYPE_NAMES[type] : undefined
  if (!t) throw new VdpConfigError('type', `unknown type '${type}'; expected formula, gradient, absolute_humidity or counter`)
  return t
}

/** Validates a creation body for a virtual datapoint of `type`. */
export function parseVdpConfig(type: string, body: unknown): VdpConfig {
  const t = vdpType(type)
  const b = object(body, 'body', 'expected an object {pins, parameters}')
  for (const k of Object.keys(b)) if (k !== 'pins' && k !== 'parameters') throw new VdpConfigError(k, 'unknown field; the body is {pins, parameters}')
  if (b.pins === undefined || b.pins === null) throw new VdpConfigError('pins', 'required')
  const pins = object(b.pins, 'pins', 'expected an object of pins keyed by name')
  const params = b.parameters === undefined || b.parameters === null ? {} : object(b.parameters, 'parameters', 'expected an object')
  switch (t) {
    case 'formula': return formulaConfig(pins, params)
    case 'gradient': return gradientConfig(pins, params)
    case 'absolute_humidity': return humidityConfig(pins, params)
    case 'counter': return counterConfig(pins, params)
  }
}

// ── per type ────────────────────────────────────────────────────────────────────────────────

const FORMULA_PIN = /^P[1-5]$/

function formulaConfig(pins: Record<string, unknown>, params: Record<string, unknown>): VdpConfig {
  const names = Object.keys(pins)
  for (const n of names) if (!FORMULA_PIN.test(n)) throw new VdpConfigError('pins.' + n, 'formula virtual datapoints take pins P1 to P5')
  if (names.length === 0) throw new VdpConfigError('pins', 'give at least one pin (P1 to P5)')
  names.sort()
  const parsed = names.map((n) => parsePin(n, pins[n]))
  onlyParameters(params, ['formula'], 'formula virtual datapoints take formula')
  return { type: 'formula', pins: parsed, parameters: { formula: formula(params, names) } }
}

function gradientConfig(pins: Record<string, unknown>, params: Record<string, unknown>): VdpConfig {
  for (const n of Object.keys(pins)) if (n !== 'input') throw new VdpConfigError('pins.' + n, 'gradient virtual datapoints take exactly one pin named input')
  if (!Object.hasOwn(pins, 'input')) throw new VdpConfigError('pins.input', 'required')
  onlyParameters(params, ['factorization'], 'gradient virtual datapoints take factorization')
  return { type: 'gradient', pins: [parsePin('input', pins.input)], parameters: { factorization: finite(params, 'factorization', 1) } }
}

const HUMIDITY_PINS = ['relative_humidity', 'temperature', 'pressure']

function humidityConfig(pins: Record<string, unknown>, params: Record<string, unknown>): VdpConfig {
  for (const n of Object.keys(pins)) {
    if (!HUMIDITY_PINS.includes(n)) throw new VdpConfigError('pins.' + n, 'absolute humidity takes pins relative_humidity, temperature and (optional) pressure')
  }
  for (const n of HUMIDITY_PINS.slice(0, 2)) if (!Object.hasOwn(pins, n)) throw new VdpConfigError('pins.' + n, 'required')
  onlyParameters(params, ['relative_humidity_unit', 'temperature_unit', 'pressure_unit'],
    'absolute humidity takes relative_humidity_unit, temperature_unit and pressure_unit')
  return {
    type: 'absolute_humidity',
    pins: HUMIDITY_PINS.filter((n) => Object.hasOwn(pins, n)).map((n) => parsePin(n, pins[n])),
    parameters: {
      relative_humidity_unit: oneOf(params.relative_humidity_unit, RELATIVE_HUMIDITY_UNITS, 'count', 'parameters.relative_humidity_unit'),
      temperature_unit: oneOf(params.temperature_unit, TEMPERATURE_UNITS, 'celsius', 'parameters.temperature_unit'),
      pressure_unit: oneOf(params.pressure_unit, PRESSURE_UNITS, 'Pa', 'parameters.pressure_unit'),
    },
  }
}

function counterConfig(pins: Record<string, unknown>, params: Record<string, unknown>): VdpConfig {
  const names = Object.keys(pins)
  if (names.length === 0) throw new VdpConfigError('pins', 'give at least one pin')
  if (names.length > MAX_COUNTER_PINS) throw new VdpConfigError('pins', `a counter takes at most ${MAX_COUNTER_PINS} pins, got ${names.length}`)
  for (const n of names) {
    if (!isValidName(n)) throw new VdpConfigError('pins.' + n, 'a pin name must be usable in a formula: letters, digits and _, not starting with a digit, not a keyword')
  }
  const parsed = names.map((n) => parsePin(n, pins[n]))
  onlyParameters(params, ['formula', 'default_init_value'], 'counters take formula and default_init_value')
  return {
    type: 'counter',
    pins: parsed,
    parameters: { formula: formula(params, names), default_init_value: finite(params, 'default_init_value', 0) },
  }
}

// ── pins ────────────────────────────────────────────────────────────────────────────────────

const PIN_FIELDS = ['dataPointID', 'data_range', 'aggregate', 'trigger']

/** One pin of the body (spec "Pin configuration"), with the spec's defaults. */
export function parsePin(name: string, value: unknown): PinConfig {
  const path = 'pins.' + name
  const p = object(value, path, 'expected an object {dataPointID, data_range, aggregate, trigger}')
  for (const k of Object.keys(p)) {
    if (!PIN_FIELDS.includes(k)) throw new VdpConfigError(path + '.' + k, 'unknown field; a pin has dataPointID, data_range, aggregate and trigger')
  }
  if (typeof p.dataPointID !== 'string' || p.dataPointID === '') throw new VdpConfigError(path + '.dataPointID', 'required: the input datapoint')
  return {
    name,
    dataPointID: p.dataPointID,
    range: parseDataRange(p.data_range, path + '.data_range'),
    aggregate: oneOf<Aggregate>(p.aggregate, AGGREGATES, 'max', path + '.aggregate'),
    trigger: oneOf<Trigger>(p.trigger, TRIGGERS, 'every_value', path + '.trigger'),
  }
}

const SHAPES = 'give exactly one of time, count or start/end'

/** `data_range` of a pin: absent → {count: 1}, null → none. */
export function parseDataRange(value: unknown, path = 'data_range'): DataRange {
  if (value === undefined) return { kind: 'count', n: 1 }
  if (value === null) return { kind: 'none' }
  const r = object(value, path, 'expected {time: "15m"}, {count: 5} or {start: "<cron>", end: "<cron>"}')
  for (const k of Object.keys(r)) {
    if (!['time', 'count', 'start', 'end'].includes(k)) throw new VdpConfigError(path + '.' + k, 'unknown field; ' + SHAPES)
  }
  const shapes = [r.time !== undefined, r.count !== undefined, r.start !== undefined || r.end !== undefined]
  if (shapes.filter(Boolean).length !== 1) throw new VdpConfigError(path, SHAPES)
  if (r.time !== undefined) {
    const us = typeof r.time === 'string' ? parseDuration(r.time) : undefined
    if (us === undefined) throw new VdpConfigError(path + '.time', `expected a duration such as 30s, 15m, 1.5h, 7d or 2w (at most 366d), got ${show(r.time)}`)
    return { kind: 'time', us }
  }
  if (r.count !== undefined) {
    const n = typeof r.count === 'number' ? r.count : typeof r.count === 'string' && /^\d+$/.test(r.count) ? Number(r.count) : NaN
    if (!Number.isInteger(n) || n < 1 || n > MAX_WINDOW_SIZE) throw new VdpConfigError(path + '.count', `expected a whole number from 1 to ${MAX_WINDOW_SIZE}, got ${show(r.count)}`)
    return { kind: 'count', n }
  }
  return { kind: 'cron', start: cron(r.start, path + '.start'), end: cron(r.end, path + '.end') }
}

const UNIT_US: Readonly<Record<string, number>> = { s: 1e6, m: 60e6, h: 3600e6, d: 86_400e6, w: 604_800e6 }

/** `15m` → µs; undefined when not a positive duration of at most 366 days. */
export function parseDuration(text: string): number | undefined {
  const m = /^(\d+(?:\.\d+)?|\.\d+)\s*([smhdw])$/.exec(text.trim())
  if (!m) return undefined
  const us = Math.round(Number(m[1]) * UNIT_US[m[2]])
  return us >= 1 && us <= MAX_DURATION_US ? us : undefined
}

function cron(value: unknown, path: string): string {
  if (value === undefined) throw new VdpConfigError(path, 'required: a cron range gives both start and end')
  if (typeof value !== 'string') throw new VdpConfigError(path, `expected a five-field cron expression, got ${show(value)}`)
  try {
    checkCron(value)
  } catch (err) {
    throw new VdpConfigError(path, `not a five-field cron expression (minute hour day-of-month month day-of-week): ${(err as Error).message}`)
  }
  return value.trim()
}

// ── parameters ──────────────────────────────────────────────────────────────────────────────

function onlyParameters(params: Record<string, unknown>, allowed: readonly string[], hint: string): void {
  for (const k of Object.keys(params)) if (!allowed.includes(k)) throw new VdpConfigError('parameters.' + k, 'unknown parameter; ' + hint)
}

function formula(params: Record<string, unknown>, pins: readonly string[]): string {
  const f = params.formula
  if (f === undefined || f === null || f === '') throw new VdpConfigError('parameters.formula', 'required')
  if (typeof f !== 'string') throw new VdpConfigError('parameters.formula', `expected a string, got ${show(f)}`)
  try {
    compileFormula(f, pins)
  } catch (err) {
    if (err instanceof FormulaError) throw new VdpConfigError('parameters.formula', err.message)
    throw err
  }
  return f
}

function finite(params: Record<string, unknown>, key: string, fallback: number): number {
  const v = params[key]
  if (v === undefined || v === null) return fallback
  if (typeof v !== 'number' || !Number.isFinite(v)) throw new VdpConfigError('parameters.' + key, `expected a number, got ${show(v)}`)
  return v
}

// ── helpers ─────────────────────────────────────────────────────────────────────────────────

function object(value: unknown, path: string, expected: string): Record<string, unknown> {
  if (typeof value !== 'object' || value === null || Array.isArray(value)) throw new VdpConfigError(path, expected)
  return value as Record<string, unknown>
}

function oneOf<T extends string>(value: unknown, allowed: readonly T[], fallback: T, path: string): T {
  if (value === undefined || value === null) return fallback
  if (typeof value === 'string' && (allowed as readonly string[]).includes(value)) return value as T
  throw new VdpConfigError(path, `expected one of ${allowed.join(', ')}, got ${show(value)}`)
}

function show(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v)
  return s.length > 60 ? s.slice(0, 57) + '...' : s
}
