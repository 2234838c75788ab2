// Types of the virtual-datapoint pipeline (spec part 2, "Virtual datapoint", "Pin
// configuration", "Configuration by type"). Time is integer microseconds since the Unix epoch,
// UTC, as everywhere in the program (DESIGN.md "Conventions").

/** One observation of a series: event time in µs and a finite value. */
export interface Obs {
  time: number
  value: number
}

/** The latest value of every pin, aligned with the virtual datapoint's pins (combinePins). */
export interface Combined {
  /** Time of the value whose arrival caused this vector. */
  time: number
  /** `values[i]` belongs to `pins[i]`; null: an optional pin without a value and no default. */
  values: (number | null)[]
}

export const AGGREGATES = ['last', 'first', 'sum', 'mean', 'median', 'max', 'min', 'timeweighted_mean', 'integral'] as const
export type Aggregate = (typeof AGGREGATES)[number]

export const TRIGGERS = ['every_value', 'every_minute', 'every_hour'] as const
export type Trigger = (typeof TRIGGERS)[number]

/**
 * What a pin keeps of its input (spec "Data range shapes"):
 * - time: observations with time > latest − us (event time)
 * - count: the newest n observations by event time
 * - cron: observations since the most recent `start` occurrence, until the next `end`
 * - none: every observation forwarded on its own, in arrival order
 */
export type DataRange =
  | { kind: 'time'; us: number }
  | { kind: 'count'; n: number }
  | { kind: 'cron'; start: string; end: string }
  | { kind: 'none' }

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
