// Shapes shared by the analysis functions (engine/analytics/functions/) and the runner
// (run.ts). Spec 3 "Analytics": a function applies to abstract components, needs some of
// their pins (some optional, some groups replacing one another) and gives KPIs, an
// interpretation, recommendations, info and a signal colour, in English and German.
import type { Point } from './read.ts'

/** A text in both result languages (spec 3 `result_language`: `en`, `de`). */
export interface Text { en: string; de: string }
export type Lang = keyof Text
export const LANGS: readonly Lang[] = ['en', 'de']

export type SignalColor = 'red' | 'yellow' | 'green'

/**
 * The pins one function needs on one component.
 * - `required`: every one must be mapped.
 * - `alternatives`: each entry is one need met by the first of its `groups` whose pins are
 *   all mapped (groups replace one another, in order of preference); a need no group meets
 *   makes the run fail with `missing_pins`.
 * - `optional`: used when mapped.
 */
export interface PinSpec {
  required: string[]
  optional: string[]
  alternatives: Array<{ need: string; groups: string[][] }>
}

export interface Kpi { name: Text; unit: string; value: number | null }

/** What a function found. */
export interface Findings {
  signal_color: SignalColor
  kpi: Kpi[]
  interpretation: Text
  recommendation: Text[]
  info: Text[]
}

/** Why a function could not give findings (no exception: run.ts turns it into a result). */
export interface Shortfall {
  status: 'no_data' | 'insufficient_data' | 'invalid_attributes'
  message: Text
}

/** What a function gets to work with; reads go through read.ts, never raw rows. */
export interface AnalysisContext {
  component: string
  start: number
  end: number
  timeZone: string
  /** Mapped pins of the component (those with a series). */
  mapped: ReadonlySet<string>
  /** The pins of the group chosen for an alternative need (see PinSpec). */
  chosen(need: string): string[]
  /** Attribute as a finite number, `fallback` when absent; AttributeError when present but not a number. */
  num(key: string, fallback: number): number
  /** Attribute text or undefined. */
  text(key: string): string | undefined
  /**
   * Interval means of a pin over [start, end) (read.ts), ascending, empty buckets left out.
   * `hold`: the pin is a state that may be written only on change; when the bucket holding
   * `start` is empty, the last value before `start` is put there (the state in force).
   */
  mean(pin: string, interval: number, opts?: { hold?: boolean }): Promise<Point[]>
  /** Value of the first observation in [t, t + within) for each t (counter readings). */
  firstAt(pin: string, times: readonly number[], within: number): Promise<Array<number | undefined>>
}

export interface FunctionDefinition {
  alphanumeric_id: string
  nameEN: string
  nameDE: string
  /** Component alphanumeric_id -> the pins the function needs there. */
  components: Record<string, PinSpec>
  compute(ctx: AnalysisContext): Promise<Findings | Shortfall>
}

export interface AnalysisFunction extends FunctionDefinition { id: number }
