// The library of analysis functions (spec 3 "Analysis function": `id`, `alphanumeric_id`,
// `nameDE`, `nameEN`). Ids are stable: never renumber or reuse one; append new functions.
// Each function file declares the components it applies to and its pins (PinSpec in
// ../types.ts: required, optional, alternative groups) and why it samples as it does.
import type { AnalysisFunction, FunctionDefinition, PinSpec } from '../types.ts'
import { comfort } from './comfort.ts'
import { controlQuality } from './control-quality.ts'
import { energySignature } from './energy-signature.ts'
import { heatingCurve } from './heating-curve.ts'
import { operatingCycles } from './operating-cycles.ts'
import { sensorHealth } from './sensor-health.ts'
import { simultaneousHeatingCooling } from './simultaneous-heating-cooling.ts'
import { temperatureSpread } from './temperature-spread.ts'

const entry = (id: number, def: FunctionDefinition): AnalysisFunction => ({ id, ...def })

export const FUNCTIONS: readonly AnalysisFunction[] = [
  entry(1, comfort),
  entry(2, heatingCurve),
  entry(3, operatingCycles),
  entry(4, temperatureSpread),
  entry(5, controlQuality),
  entry(6, simultaneousHeatingCooling),
  entry(7, energySignature),
  entry(8, sensorHealth),
]

export function functionById(id: number): AnalysisFunction | undefined {
  return FUNCTIONS.find((f) => f.id === id)
}

export function functionByAlphanumericId(alphanumericId: string): AnalysisFunction | undefined {
  return FUNCTIONS.find((f) => f.alphanumeric_id === alphanumericId)
}

/** Functions applicable to a component (spec 3 `GET /v2/analytics/functions?component_alphanumeric_id=`). */
export function functionsFor(componentAlphanumericId: string): AnalysisFunction[] {
  return FUNCTIONS.filter((f) => Object.hasOwn(f.components, componentAlphanumericId))
}

/** The data of a function without its code: what the API lists (spec 3 fields plus pins). */
export function describeFunction(f: AnalysisFunction): { id: number; alphanumeric_id: string; nameDE: string; nameEN: string; components: Record<string, PinSpec> } {
  return { id: f.id, alphanumeric_id: f.alphanumeric_id, nameDE: f.nameDE, nameEN: f.nameEN, components: f.components }
}
