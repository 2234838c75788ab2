// Runs one analysis function on one mapped component over [start, end) (spec 3 "Analysis";
// issue 12 item 3). Never throws for a problem of the input or the data: every outcome is
// a result with a status.
//
// Result shape: `{ status, signal_color, en: ResultBody, de: ResultBody }`. Each language
// holds the complete result detail of spec 3 (`status`, `kpi` [{name, unit, value}],
// `interpretation`, `recommendation` [], `info` [], `signal_color`), so the API answers
// `result_language=en|de` by picking `result[lang]`; status, colour, units and values are
// the same in both, only the texts differ.
//
// Statuses (spec 3 shows only the success value; these are ours):
//   success             the function gave findings
//   not_applicable      the function does not apply to this component
//   missing_pins        a required pin, or every group of an alternative need, is unmapped
//   invalid_parameters  start >= end, a bound that is not an integer, or an unknown time zone
//   invalid_attributes  an attribute of the component cannot be parsed (info names it)
//   no_data             the pins hold no observations in the range
//   insufficient_data   some data, too little for a sound answer (info says what is needed)
//   failed              the store failed while reading (info carries the message)
// A result that is not a success has no KPIs and signal_color `yellow`: the colour set of
// spec 3 has no grey, and "could not be judged" needs a look, as yellow does.
import type { TimeseriesStore } from '../store/port.ts'
import { AttributeError } from './attributes.ts'
import { isValidZone } from '../../core/clock/zone.ts'
import { readSeries } from './read.ts'
import { tx } from './text.ts'
import type { AnalysisContext, FunctionDefinition, Lang, PinSpec, SignalColor, Text } from './types.ts'
import { LANGS } from './types.ts'

export type AnalysisStatus = 'success' | 'not_applicable' | 'missing_pins' | 'invalid_parameters' | 'invalid_attributes' | 'no_data' | 'insufficient_data' | 'failed'

export interface ResultBody {
  status: AnalysisStatus
  kpi: Array<{ name: string; unit: string; value: number | null }>
  interpretation: string
  recommendation: string[]
  info: string[]
  signal_color: SignalColor
}

export interface AnalysisResult extends Record<Lang, ResultBody> {
  status: AnalysisStatus
  signal_color: SignalColor
}

export interface RunInput {
  fn: FunctionDefinition
  store: TimeseriesStore
  /**
   * The abstract component's alphanumeric_id (e.g. `heating_circuit`). Pass it; when
   * absent, the first component of the function whose needs the mapped pins meet is taken.
   */
  component?: string
  /** Pin alphanumeric_id -> store series id, for the mapped pins. */
  seriesOfPin: ReadonlyMap<string, number>
  /** Attribute key -> value as text (spec 3 attributes are strings); absent = default. */
  attributes: Readonly<Record<string, string>>
  /** µs since the epoch, half-open [start, end). */
  start: number
  end: number
  /** IANA zone for schedules and calendar days (the project's); default UTC. */
  timeZone?: string
}

export async function runAnalysis(input: RunInput): Promise<AnalysisResult> {
  const { fn, start, end } = input
  const timeZone = input.timeZone ?? 'UTC'
  if (!Number.isSafeInteger(start) || !Number.isSafeInteger(end) || start >= end) {
    return failure('invalid_parameters', tx(`The time range must have integer bounds with start before end (start ${start}, end ${end}).`,
      `Der Zeitraum braucht ganzzahlige Grenzen mit Beginn vor Ende (Beginn ${start}, Ende ${end}).`))
  }
  if (!isValidZone(timeZone)) return failure('invalid_parameters', tx(`Unknown time zone ${timeZone}.`, `Unbekannte Zeitzone ${timeZone}.`))
  const mapped = new Set(input.seriesOfPin.keys())
  const component = input.component ?? Object.keys(fn.components).find((c) => missingPins(fn.components[c], mapped).length === 0)
  const spec = component === undefined ? undefined : fn.components[component]
  if (component === undefined || spec === undefined) {
    if (input.component === undefined) {
      return failure('missing_pins', tx(`The mapped pins (${[...mapped].join(', ') || 'none'}) meet the needs of no component of ${fn.nameEN}.`,
        `Die zugeordneten Pins (${[...mapped].join(', ') || 'keine'}) erfüllen für keine Komponente die Anforderungen von ${fn.nameDE}.`))
    }
    return failure('not_applicable', tx(`${fn.nameEN} does not apply to the component ${input.component}.`, `${fn.nameDE} ist auf die Komponente ${input.component} nicht anwendbar.`))
  }
  const missing = missingPins(spec, mapped)
  if (missing.length > 0) {
    return failure('missing_pins', tx(`Pins to map: ${missing.join('; ')}.`, `Zuzuordnende Pins: ${missing.join('; ')}.`))
  }
  const series = (pin: string): number => {
    const s = input.seriesOfPin.get(pin)
    if (s === undefined) throw new Error(`pin ${pin} is not mapped`) // a function reading a pin it did not declare
    return s
  }
  const ctx: AnalysisContext = {
    component, start, end, timeZone, mapped,
    chosen: (need) => chosenGroup(spec, need, mapped) ?? [],
    num: (key, fallback) => {
      const v = input.attributes[key]
      if (v === undefined || v.trim() === '') return fallback
      const x = Number(v.trim().replace(',', '.'))
      if (!Number.isFinite(x)) throw new AttributeError(key, v, 'a number')
      return x
    },
    text: (key) => input.attributes[key],
    mean: async (pin, interval, opts) => {
      const points = await readSeries(input.store, series(pin), { agg: 'mean', start, end, interval })
      const first = Math.floor(start / interval) * interval
      if (!opts?.hold || points[0]?.time === first) return points
      const before = await readSeries(input.store, series(pin), { agg: 'last', before: start })
      return before === undefined ? points : [{ time: first, value: before }, ...points]
    },
    firstAt: (pin, at, within) => readSeries(input.store, series(pin), { agg: 'first', at, within }),
  }
  try {
    const out = await fn.compute(ctx)
    if ('status' in out) return failure(out.status, out.message)
    const body = (lang: Lang): ResultBody => ({
      status: 'success',
      kpi: out.kpi.map((k) => ({ name: k.name[lang], unit: k.unit, value: k.value })),
      interpretation: out.interpretation[lang],
      recommendation: out.recommendation.map((r) => r[lang]),
      info: out.info.map((i) => i[lang]),
      signal_color: out.signal_color,
    })
    return { status: 'success', signal_color: out.signal_color, en: body('en'), de: body('de') }
  } catch (err) {
    if (err instanceof AttributeError) {
      return failure('invalid_attributes', tx(`The attribute ${err.key} (${JSON.stringify(err.value)}) is not ${err.expected}.`,
        `Das Attribut ${err.key} (${JSON.stringify(err.value)}) ist ungültig (erwartet: ${err.expected}).`))
    }
    const message = err instanceof Error ? err.message : String(err)
    return failure('failed', tx(`The analysis failed: ${message}`, `Die Analyse ist fehlgeschlagen: ${message}`))
  }
}

/** The unmet needs of a pin spec, as readable items (`flow_temp`, `burner_state or fuel_power`). */
export function missingPins(spec: PinSpec, mapped: ReadonlySet<string>): string[] {
  const out = spec.required.filter((p) => !mapped.has(p))
  for (const a of spec.alternatives) {
    if (chosenGroup(spec, a.need, mapped) === undefined) out.push(a.groups.map((g) => g.join(' + ')).join(' or '))
  }
  return out
}

function chosenGroup(spec: PinSpec, need: string, mapped: ReadonlySet<string>): string[] | undefined {
  return spec.alternatives.find((a) => a.need === need)?.groups.find((g) => g.every((p) => mapped.has(p)))
}

function failure(status: Exclude<AnalysisStatus, 'success'>, message: Text): AnalysisResult {
  const body = (lang: Lang): ResultBody => ({
    status, kpi: [], interpretation: message[lang], recommendation: [], info: [message[lang]], signal_color: 'yellow',
  })
  return { status, signal_color: 'yellow', en: body('en'), de: body('de') }
}

export { AttributeError, LANGS }
