// Types of the virtual-datapoint pipeline (spec part 2, "Virtual datapoint", "Pin
// configuration", "Configuration by type"). Time is integer microseconds since the Unix epoch,
// UTC, as everywhere in the program (DESIGN.md "Conventions").
import type { Aggregate, Trigger, WindowRange } from '../stream/types.ts'

// The stream's types under the names the virtual-datapoint code and spec use.
export { AGGREGATES, TRIGGERS, type Aggregate, type Obs, type Trigger } from '../stream/types.ts'
/** A pin's `data_range` (spec "Data range shapes"): the window the pin keeps. */
export type DataRange = WindowRange

/** The latest value of every pin, aligned with the virtual datapoint's pins (combinePins). */
export interface Combined {
  /** Time of the value whose arrival caused this vector. */
  time: number
  /** `values[i]` belongs to `pins[i]`; null: an optional pin without a value and no default. */
  values: (number | null)[]
}

export interface PinConfig {
  /** The pin's name in the creation body (P1..P5, `input`, `temperature`, a counter's names). */
  name: string
  /** The input datapoint. */
  dataPointID: string
  range: DataRange
  aggregate: Aggregate
  trigger: Trigger
}

export const VDP_TYPES = ['formula', 'gradient', 'absolute_humidity', 'counter'] as const
export type VdpType = (typeof VDP_TYPES)[number]

export const RELATIVE_HUMIDITY_UNITS = ['count', 'percent'] as const
export type RelativeHumidityUnit = (typeof RELATIVE_HUMIDITY_UNITS)[number]
export const TEMPERATURE_UNITS = ['celsius', 'kelvin', 'fahrenheit'] as const
export type TemperatureUnit = (typeof TEMPERATURE_UNITS)[number]
export const PRESSURE_UNITS = ['Pa', 'hPa', 'kPa', 'bar', 'mbar'] as const
export type PressureUnit = (typeof PRESSURE_UNITS)[number]

// Parameter names are the spec's (snake_case), so a parsed configuration can be shown as is.
export interface FormulaParameters { formula: string }
export interface GradientParameters { factorization: number }
export interface AbsoluteHumidityParameters {
  relative_humidity_unit: RelativeHumidityUnit
  temperature_unit: TemperatureUnit
  pressure_unit: PressureUnit
}
export interface CounterParameters { formula: string; default_init_value: number }

/** A validated virtual-datapoint configuration (config.ts builds it from a creation body). */
export type VdpConfig =
  | { type: 'formula'; pins: PinConfig[]; parameters: FormulaParameters }
  | { type: 'gradient'; pins: PinConfig[]; parameters: GradientParameters }
  | { type: 'absolute_humidity'; pins: PinConfig[]; parameters: AbsoluteHumidityParameters }
  | { type: 'counter'; pins: PinConfig[]; parameters: CounterParameters }
