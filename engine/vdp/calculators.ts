// The calculations of the four types of virtual datapoints (spec part 2, "Configuration by
// type" and its rules). Pure apart from the counter's running total. A calculator returns null
// for "emit nothing" and never throws for bad data.
import type { CompiledFormula } from '../../formulas/index.ts'
import type { AbsoluteHumidityParameters, Obs, PressureUnit, TemperatureUnit } from './types.ts'

/** Computes a value from the pins' latest values (aligned with the pins), or null. */
export interface Calculator {
  calculate(values: readonly (number | null)[]): number | null
}

// ── formula ─────────────────────────────────────────────────────────────────────────────────

/** A formula compiled once (with the pins' names, in pin order), evaluated per vector. */
export function formulaCalculator(formula: CompiledFormula): Calculator {
  const evaluate = formula.evaluate
  return { calculate: (values) => evaluate(values) }
}

// ── counter (rule 3) ────────────────────────────────────────────────────────────────────────

/**
 * A formula whose results are accumulated: each output is the previous total plus the
 * formula's result, starting at `total` (the configured default_init_value, or the last stored
 * value when a running counter is restarted). A null result adds nothing and emits nothing; a
 * total that would overflow to ±Infinity is refused the same way.
 */
export class CounterCalculator implements Calculator {
  private sum: number

  constructor(private readonly formula: CompiledFormula, total: number) {
    this.sum = total
  }

  /** The running total: the last value emitted (or the starting total). */
  get total(): number {
    return this.sum
  }

  calculate(values: readonly (number | null)[]): number | null {
    const r = this.formula.evaluate(values)
    if (r === null) return null
    const next = this.sum + r
    if (!Number.isFinite(next)) return null
    this.sum = next
    return next
  }
}

// ── gradient (rule 1) ───────────────────────────────────────────────────────────────────────

const US_PER_S = 1_000_000

/**
 * (x1 − x2) / (y1 − y2) × factorization over the last two observations of `window` (x the
 * values, y the times in Unix seconds). Null with fewer than two observations or equal times.
 * With 3600, a meter in kWh gives kW.
 */
export function gradient(window: readonly Obs[], factorization: number): number | null {
  const n = window.length
  if (n < 2) return null
  const a = window[n - 1]
  const b = window[n - 2]
  if (a.time === b.time) return null
  const g = ((a.value - b.value) / ((a.time - b.time) / US_PER_S)) * factorization
  return Number.isFinite(g) ? g : null
}

// ── absolute humidity (rule 2) ──────────────────────────────────────────────────────────────
//
// Absolute humidity is the mass of water vapour per volume of moist air, in g/m³. From WMO
// Guide to Instruments and Methods of Observation (WMO-No. 8, 2018 edition, Vol. I, Annex 4.B):
//   saturation vapour pressure over water (Magnus form):
//     e_w(t) = 6.112 hPa · exp(17.62 · t / (243.12 + t)),  t in °C, valid −45…60 °C
//   enhancement factor of moist air (real-gas effect, where the total pressure enters):
//     f(p) = 1.0016 + 3.15e−6 · p − 0.074 / p,  p in hPa
//   relative humidity is defined against e'_w = f(p) · e_w(t), so the vapour pressure is
//     e = RH · f(p) · e_w(t)
// and, with water vapour an ideal gas, the vapour density is
//     AH = e · M_w / (R · T),  M_w = 18.01528 g/mol, R = 8.314462618 J/(mol·K), T in K.
// (In the ideal-gas mixing-ratio form AH = r · ρ_dry the pressure cancels exactly, so the
// enhancement factor is where a measured pressure makes a difference: about 0.5 ‰ per 100 hPa.)
// 20 °C, 50 %, 101325 Pa: e_w = 23.326 hPa, f = 1.00472, e = 11.718 hPa, AH = 8.661 g/m³.
//
// Null (emit nothing) for impossible inputs: relative humidity below 0, a temperature at or
// below absolute zero, a pressure at or below 0. Values above 100 % are computed as given
// (sensors read slightly above 100 % in fog).

export const STANDARD_PRESSURE_PA = 101_325
const M_WATER = 18.01528 // g/mol
const R_GAS = 8.314462618 // J/(mol·K)
const KELVIN = 273.15

/** Saturation vapour pressure over water in Pa at `celsius` (WMO Magnus formula). */
export function saturationVapourPressure(celsius: number): number {
  return 611.2 * Math.exp((17.62 * celsius) / (243.12 + celsius))
}

/** Enhancement factor of moist air at total pressure `pa` (WMO). */
export function enhancementFactor(pa: number): number {
  const hPa = pa / 100
  return 1.0016 + 3.15e-6 * hPa - 0.074 / hPa
}

/** Absolute humidity in g/m³ from relative humidity as a fraction (0..1), °C and Pa. */
export function absoluteHumidity(fraction: number, celsius: number, pa: number): number | null {
  const kelvin = celsius + KELVIN
  if (!(fraction >= 0) || !(kelvin > 0) || !(pa > 0)) return null
  const e = fraction * enhancementFactor(pa) * saturationVapourPressure(celsius)
  const ah = (e * M_WATER) / (R_GAS * kelvin)
  return Number.isFinite(ah) ? ah : null
}

const TO_PA: Readonly<Record<PressureUnit, number>> = { Pa: 1, hPa: 100, kPa: 1000, bar: 100_000, mbar: 100 }

function toCelsius(t: number, unit: TemperatureUnit): number {
  switch (unit) {
    case 'celsius': return t
    case 'kelvin': return t - KELVIN
    case 'fahrenheit': return ((t - 32) * 5) / 9
  }
}

/**
 * Values [relative_humidity, temperature, pressure] in the configured units; a null pressure
 * (no pressure pin, or no value yet) is the standard atmosphere, 101325 Pa.
 */
export function humidityCalculator(units: AbsoluteHumidityParameters): Calculator {
  const rhScale = units.relative_humidity_unit === 'percent' ? 0.01 : 1
  const paScale = TO_PA[units.pressure_unit]
  return {
    calculate: ([rh, t, p]) => {
      if (rh === null || t === null) return null
      const pa = p === null || p === undefined ? STANDARD_PRESSURE_PA : p * paScale
      return absoluteHumidity(rh * rhScale, toCelsius(t, units.temperature_unit), pa)
    },
  }
}
