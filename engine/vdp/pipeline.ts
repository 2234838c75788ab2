// Assembles the stream of one virtual datapoint from its configuration (DESIGN.md "Data flow":
// pin windows → aggregates → formula). Per pin:
//
//   input → rangeWindow(data_range) → aggregateWith(aggregate) → triggerOn(trigger)
//
// (the shared operators of engine/stream), then combinePins (the latest value of every pin)
// → calculate (formula, counter, humidity).
//
// The gradient is the exception: its rule is over "the last two observations" of its one pin,
// so its window is always the last two raw observations by event time (count 2), whatever
// data_range says, and aggregate is not used; the gradient of that window, stamped with the
// newer observation's time, then goes through the pin's trigger (a minute trigger writes the
// latest gradient once a minute). A late observation that lands between the two newest ones
// recomputes the gradient for the newest time.
//
// Which pins the calculation waits for (combinePins `required`): formula and counter wait for
// every pin the formula refers to (a declared pin the formula does not use never holds it back,
// though its values still cause a calculation); absolute humidity waits for relative_humidity
// and temperature, pressure is optional and is the standard atmosphere until it has a value.
//
// The result is cold: every subscription runs its own windows, triggers and counter total.
// This one builder is what the tests test and what the runtime runs (issue 16): a restart
// only adds `alreadyStored`, which drops replayed input vectors (and the gradient's replayed
// outputs) whose output is already stored, before the calculation, so a counter's
// CounterCalculator never adds an already counted result twice.
import { asyncScheduler, EMPTY, filter, map, type Observable, type SchedulerLike } from 'rxjs'
import { compileFormula } from '../../formulas/index.ts'
import { aggregateWith } from '../stream/aggregate-with.ts'
import { rangeWindow } from '../stream/range-window.ts'
import { triggerOn } from '../stream/trigger.ts'
import { type Calculator, CounterCalculator, formulaCalculator, gradient, humidityCalculator } from './calculators.ts'
import { fusedCombine, fusedGradient, type FusedPin } from './fused-pipeline.ts'
import { calculate } from './operators/calculate.ts'
import { combinePins, type PinSource } from './operators/combine-pins.ts'
import type { DataRange, Obs, PinConfig, VdpConfig } from './types.ts'

export interface PipelineOptions {
  /** Clock of the time triggers and of coalescing; asyncScheduler by default. */
  scheduler?: SchedulerLike
  /** A counter's last stored total, so a restarted counter continues (default: default_init_value). */
  initialCounter?: number
  /** Whether the output at `time` is already stored (a restart's replay): nothing is computed for it. */
  alreadyStored?: (time: number) => boolean
}

/** The window a pin keeps of its input: its data_range, except the gradient's last two raw observations. */
export function inputRange(config: VdpConfig, pin: PinConfig): DataRange {
  return config.type === 'gradient' ? { kind: 'count', n: 2 } : pin.range
}

/**
 * The output observations of a virtual datapoint. `inputs(pinName)` gives the observations of
 * the pin's input datapoint (in any order; windows sort by event time).
 */
export function buildPipeline(config: VdpConfig, inputs: (pinName: string) => Observable<Obs>, opts: PipelineOptions = {}): Observable<Obs> {
  // Every pin on every_value (all a replay accepts): the same stages as plain calls (fused-pipeline.ts).
  if (config.pins.every((p) => p.trigger === 'every_value')) return fusedPipeline(config, inputs, opts)
  return operatorChain(config, inputs, opts)
}

/**
 * The pipeline as RxJS operators, for any triggers. buildPipeline uses it for pins with a time
 * trigger; for all-every_value pins its outputs equal fusedPipeline's (test/engine/vdp/
 * chains-equal.test.ts, a seeded property over every pin kind and window).
 */
export function operatorChain(config: VdpConfig, inputs: (pinName: string) => Observable<Obs>, opts: PipelineOptions = {}): Observable<Obs> {
  const scheduler = opts.scheduler ?? asyncScheduler
  const stored = opts.alreadyStored
  const fresh = <T extends { time: number }>(source: Observable<T>): Observable<T> => (stored ? source.pipe(filter((x) => !stored(x.time))) : source)
  const names = config.pins.map((p) => p.name)
  const pinStream = (pin: PinConfig): Observable<Obs> =>
    inputs(pin.name).pipe(rangeWindow(pin.range), aggregateWith(pin.aggregate), triggerOn(pin.trigger, scheduler))
  const source = (pin: PinConfig, required: boolean): PinSource =>
    ({ source: pinStream(pin), required, coalesce: pin.trigger !== 'every_value' })

  switch (config.type) {
    case 'gradient': {
      const pin = config.pins[0]
      const factor = config.parameters.factorization
      return inputs(pin.name).pipe(
        rangeWindow(inputRange(config, pin)),
        map((w): Obs | null => {
          const value = gradient(w, factor)
          return value === null ? null : { time: w[w.length - 1].time, value }
        }),
        filter((o): o is Obs => o !== null),
        triggerOn(pin.trigger, scheduler),
        fresh,
      )
    }
    case 'formula':
    case 'counter': {
      const compiled = compileFormula(config.parameters.formula, names)
      const used = new Set(compiled.inputs)
      const pins = config.pins.map((p) => source(p, used.has(p.name)))
      let calc: Calculator | (() => Calculator)
      if (config.type === 'formula') {
        calc = formulaCalculator(compiled)
      } else {
        const start = opts.initialCounter ?? config.parameters.default_init_value
        calc = () => new CounterCalculator(compiled, start)
      }
      return combinePins(pins, scheduler).pipe(fresh, calculate(calc))
    }
    case 'absolute_humidity': {
      // Always three slots [relative_humidity, temperature, pressure], whatever the body's order.
      const byName = new Map(config.pins.map((p) => [p.name, p]))
      const slot = (name: string, required: boolean): PinSource => {
        const pin = byName.get(name)
        return pin ? source(pin, required) : { source: EMPTY, required: false } // not configured: no values, completes at once
      }
      const pins = [slot('relative_humidity', true), slot('temperature', true), slot('pressure', false)]
      return combinePins(pins, scheduler).pipe(fresh, calculate(humidityCalculator(config.parameters)))
    }
  }
}

/** buildPipeline for pins that all trigger on every value: fused-pipeline.ts, same slots and calculators as above. */
function fusedPipeline(config: VdpConfig, inputs: (pinName: string) => Observable<Obs>, opts: PipelineOptions): Observable<Obs> {
  const stored = opts.alreadyStored
  const slot = (pin: PinConfig, required: boolean): FusedPin => ({ input: inputs(pin.name), range: pin.range, aggregate: pin.aggregate, required })
  switch (config.type) {
    case 'gradient':
      return fusedGradient(inputs(config.pins[0].name), config.parameters.factorization, stored)
    case 'formula':
    case 'counter': {
      const compiled = compileFormula(config.parameters.formula, config.pins.map((p) => p.name))
      const used = new Set(compiled.inputs)
      const pins = config.pins.map((p) => slot(p, used.has(p.name)))
      if (config.type === 'formula') return fusedCombine(pins, formulaCalculator(compiled), stored)
      const start = opts.initialCounter ?? config.parameters.default_init_value
      return fusedCombine(pins, () => new CounterCalculator(compiled, start), stored)
    }
    case 'absolute_humidity': {
      const byName = new Map(config.pins.map((p) => [p.name, p]))
      const at = (name: string, required: boolean): FusedPin => {
        const pin = byName.get(name)
        return pin ? slot(pin, required) : { range: { kind: 'none' }, aggregate: 'last', required: false }
      }
      return fusedCombine([at('relative_humidity', true), at('temperature', true), at('pressure', false)], humidityCalculator(config.parameters), stored)
    }
  }
}
