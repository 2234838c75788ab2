// Unit conversion of read values (spec 1, "Time-series data" rule 7) with js-quantities.
// The source unit is the datapoint's `unit` tag. `units` names a target unit; `units_system`
// (`metric`/`SI` or `imperial`/`US`) converts to that system's unit of the same kind and
// leaves values already in the system unchanged. Temperatures are absolute (°C → tempC).
// A conversion also says what it delivers: the answer's unit (or currency) tag names the unit
// of the returned values, not the stored one (issue 15: °F values must not carry `°C`).
// `currency_system` converts by exchange rates valid at each observation's time (currency.ts).
import Qty from 'js-quantities'
import { InvalidInputError } from '../core/errors.ts'
import { currencyConverter, type RateLookup } from './currency.ts'

const ALIASES: Record<string, string> = {
  '°C': 'tempC', degC: 'tempC', C: 'tempC', celsius: 'tempC', Celsius: 'tempC',
  '°F': 'tempF', degF: 'tempF', F: 'tempF', fahrenheit: 'tempF', K: 'tempK', kelvin: 'tempK',
  '%': 'percent', 'm³': 'm3', 'm²': 'm2', 'm³/h': 'm3/h', 'l/h': 'l/h', 'ft³': 'ft3',
}

const SYSTEM_UNITS: Record<'metric' | 'imperial', Record<string, string>> = {
  metric: {
    temperature: 'tempC', length: 'm', mass: 'kg', volume: 'm3', area: 'm2', pressure: 'Pa',
    speed: 'km/h', energy: 'kWh', power: 'W', volumetric_flow: 'm3/h',
  },
  imperial: {
    temperature: 'tempF', length: 'ft', mass: 'lb', volume: 'ft3', area: 'sqft', pressure: 'psi',
    speed: 'mph', energy: 'BTU', power: 'BTU/h', volumetric_flow: 'ft3/min',
  },
}
const IMPERIAL = new Set(['tempF', 'degF', 'ft', 'in', 'yd', 'mi', 'lb', 'oz', 'gal', 'ft3', 'sqft', 'psi', 'mph', 'BTU', 'BTU/h', 'ft3/min', 'inHg'])
const SYSTEMS: Record<string, 'metric' | 'imperial'> = { metric: 'metric', si: 'metric', imperial: 'imperial', us: 'imperial' }

/** How a unit is shown in tags: temperatures with the degree sign, others as js-quantities names them. */
const DISPLAY: Record<string, string> = { tempC: '°C', tempF: '°F', tempK: 'K', degC: '°C', degF: '°F' }

function unitOf(text: string, what: string): string {
  const name = ALIASES[text.trim()] ?? text.trim()
  try {
    return Qty(name).units()
  } catch {
    throw new InvalidInputError(`Unknown ${what} '${text}'`)
  }
}

export interface ConversionRequest { units?: string; units_system?: string; currency_system?: string }

/** A conversion of a datapoint's values: by value and observation time, with the tags that describe the result. */
export interface Conversion {
  convert: (value: number, time: number) => number
  /** The datapoint's tags with `unit` (or `units`) and `currency` naming what is delivered. */
  tags: Record<string, string>
}

/** The conversion of values of a datapoint, or undefined when none was asked for or none is needed. */
export function converterFor(dataPointID: string, tags: Record<string, string>, req: ConversionRequest, rates: RateLookup = () => []): Conversion | undefined {
  const unit = unitConverter(dataPointID, tags, req)
  const money = req.currency_system === undefined ? undefined : currencyConverter(dataPointID, tags, req.currency_system, rates)
  if (!unit && !money) return undefined
  const delivered = { ...tags }
  if (unit) delivered[tags.unit !== undefined ? 'unit' : 'units'] = unit.unit
  if (money) delivered.currency = money.currency
  const u = unit?.convert
  const m = money?.convert
  const convert = u && m ? (v: number, t: number) => m(u(v), t) : u ? (v: number) => u(v) : m!
  return { convert, tags: delivered }
}

function unitConverter(dataPointID: string, tags: Record<string, string>, req: ConversionRequest): { convert: (v: number) => number; unit: string } | undefined {
  if (req.units === undefined && req.units_system === undefined) return undefined
  const sourceTag = tags.unit ?? tags.units
  if (sourceTag === undefined) throw new InvalidInputError(`Datapoint '${dataPointID}' has no unit tag: its values cannot be converted`)
  const source = unitOf(sourceTag, `source unit of datapoint '${dataPointID}':`)
  let target: string
  let shown: string
  if (req.units !== undefined) {
    target = unitOf(req.units, 'unit')
    shown = DISPLAY[ALIASES[req.units.trim()] ?? req.units.trim()] ?? req.units.trim()
  } else {
    const system = SYSTEMS[req.units_system!.toLowerCase()]
    if (!system) throw new InvalidInputError(`Unknown units_system '${req.units_system}': use metric (SI) or imperial (US)`)
    if ((system === 'imperial') === IMPERIAL.has(source)) return undefined
    const kind = Qty(source).kind()
    const unit = SYSTEM_UNITS[system][kind]
    if (!unit) throw new InvalidInputError(`No ${system} unit for values of kind '${kind}' (unit '${sourceTag}')`)
    target = unit
    shown = DISPLAY[unit] ?? unit
  }
  try {
    const convert = Qty.swiftConverter(source, target)
    // 12 significant digits: 20 °C is 68 °F, not 67.99999999999994.
    return { convert: (v) => Number(convert(v).toPrecision(12)), unit: shown }
  } catch {
    throw new InvalidInputError(`Cannot convert '${sourceTag}' to '${req.units ?? target}'`)
  }
}
