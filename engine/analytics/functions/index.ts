// The library of analysis functions (spec 3 "Analysis function": `id`, `alphanumeric_id`,
// `nameDE`, `nameEN`). Ids are stable: never renumber or reuse one; append new functions.
// Each function file declares the components it applies to and its pins (PinSpec).
import type { AnalysisFunction, FunctionDefinition } from '../types.ts'
import { comfort } from './comfort.ts'

const entry = (id: number, def: FunctionDefinition): AnalysisFunction => ({ id, ...def })

export const FUNCTIONS: readonly AnalysisFunction[] = [
  entry(1, comfort),
]

export function functionById(id: number): AnalysisFunction | undefined {
  return FUNCTIONS.find((f) => f.id === id)
}

/** Functions applicable to a component (spec 3 `GET /v2/analytics/functions?component_alphanumeric_id=`). */
export function functionsFor(componentAlphanumericId: string): AnalysisFunction[] {
  return FUNCTIONS.filter((f) => Object.hasOwn(f.components, componentAlphanumericId))
}
