// The aggregates of a window (spec part 2, "Pin configuration", aggregation table).
// Pure functions over a window in ascending event time; an empty window has no aggregate.
//
// Decisions where the spec is silent:
// - median of an even count is the mean of the two middle values (as the formula language's
//   median()).
// - timeweighted_mean: each value is weighted by how long it was active, i.e. the time until
//   the next observation of the window. The newest value has weight 0: how long it will stay
//   active is not known yet, and weighting it "until now" would make the result depend on the
//   wall clock instead of on the data (the pipeline runs in event time). A window of one
//   observation, or one whose observations all share a time, gives the newest value.
// - integral: step (left-rectangle) integration, each value held until the next observation,
//   the same model as timeweighted_mean (integral = timeweighted_mean × span). Unit: value ×
//   seconds (like the gradient, which divides by Unix seconds); e.g. kW in → kJ (kW·s) out,
//   divide by 3600 for kWh. Fewer than two observations give 0 (spec).
import type { Aggregate, Obs } from './types.ts'

const US_PER_S = 1_000_000

/** The `kind` aggregate of `obs` (ascending time), or null for an empty window. */
export function aggregateWindow(kind: Aggregate, obs: readonly Obs[]): number | null {
  const n = obs.length
  if (n === 0) return null
  switch (kind) {
    case 'last': return obs[n - 1].value
    case 'first': return obs[0].value
    case 'sum': return sum(obs)
    case 'mean': return sum(obs) / n
    case 'median': return median(obs)
    case 'max': {
      let m = obs[0].value
      for (let i = 1; i < n; i++) if (obs[i].value > m) m = obs[i].value
      return m
    }
    case 'min': {
      let m = obs[0].value
      for (let i = 1; i < n; i++) if (obs[i].value < m) m = obs[i].value
      return m
    }
    case 'timeweighted_mean': {
      const span = obs[n - 1].time - obs[0].time
      if (span <= 0) return obs[n - 1].value
      return heldArea(obs) / span
    }
    case 'integral':
      return n < 2 ? 0 : heldArea(obs) / US_PER_S
  }
}

function sum(obs: readonly Obs[]): number {
  let s = 0
  for (const o of obs) s += o.value
  return s
}

function median(obs: readonly Obs[]): number {
  const xs = Float64Array.from(obs, (o) => o.value).sort()
  const mid = xs.length >> 1
  return xs.length % 2 === 1 ? xs[mid] : (xs[mid - 1] + xs[mid]) / 2
}

/** Σ value_i × (time_{i+1} − time_i): each value held until the next observation (µs). */
function heldArea(obs: readonly Obs[]): number {
  let area = 0
  for (let i = 0; i + 1 < obs.length; i++) area += obs[i].value * (obs[i + 1].time - obs[i].time)
  return area
}
