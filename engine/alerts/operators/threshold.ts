// evaluateThresholds: raises and resets of a threshold alert from the observations of its
// datapoint (issue 13 item 1; rules in ../config.ts). One operator, state in the closure
// (STYLE.md), started from a checkpoint so a restarted alert continues where it stopped.
//
// Per observation (event time t, value v):
//   - for every level, `since[level]` is the start of the current uninterrupted run in which
//     its raise condition (v >= upper or v <= lower) holds; cleared when it does not hold;
//   - candidate = the most severe level whose run has lasted its duration_seconds;
//   - the current level is kept while its hold condition (v >= upper_reset or v <= lower_reset)
//     holds, so hysteresis never lets a level flap;
//   - next = the more severe of candidate and kept; a change is a transition: `raise` when
//     next is a level (escalation or de-escalation, previous_level says from where), `reset`
//     when nothing holds any more (level = the level that ended).
// Every observation also advances `last` (the checkpoint's position in the stream).
import { Observable, type OperatorFunction } from 'rxjs'
import type { Obs } from '../../stream/types.ts'
import { LEVELS, severity, type Level, type Thresholds } from '../config.ts'

export interface ThresholdState {
  level: Level | null
  since: Partial<Record<Level, number>>
  /** Event time (µs) of the last observation evaluated; -Infinity before the first. */
  last: number
}

export interface AlertTransitionOut {
  kind: 'raise' | 'reset'
  level: Level
  previous_level: Level | null
  value: number | null
  time: number
  /** The checkpoint right after this transition. */
  state: ThresholdState
}

export const initialThresholdState = (): ThresholdState => ({ level: null, since: {}, last: -Infinity })

export class ThresholdEvaluator {
  private readonly levels: { level: Level; upper?: number; lower?: number; upperReset?: number; lowerReset?: number; durationUs: number }[]

  constructor (thresholds: Thresholds, readonly state: ThresholdState = initialThresholdState()) {
    this.levels = LEVELS.filter((l) => thresholds[l]).map((l) => {
      const t = thresholds[l]!
      return { level: l, upper: t.upper, lower: t.lower, upperReset: t.upper_reset ?? t.upper, lowerReset: t.lower_reset ?? t.lower, durationUs: (t.duration_seconds ?? 0) * 1e6 }
    })
  }

  /** Evaluates one observation; the transition it causes, if any. Older observations than the last one are ignored. */
  step(o: Obs): AlertTransitionOut | undefined {
    const s = this.state
    if (o.time <= s.last) return undefined
    s.last = o.time
    const v = o.value
    let candidate: Level | null = null
    let kept: Level | null = null
    for (const l of this.levels) {
      const raise = (l.upper !== undefined && v >= l.upper) || (l.lower !== undefined && v <= l.lower)
      if (raise) {
        if (s.since[l.level] === undefined) s.since[l.level] = o.time
        if (o.time - s.since[l.level]! >= l.durationUs) candidate = l.level // levels are in severity order
      } else delete s.since[l.level]
      if (s.level === l.level && ((l.upperReset !== undefined && v >= l.upperReset) || (l.lowerReset !== undefined && v <= l.lowerReset))) kept = l.level
    }
    const next = severity(candidate) >= severity(kept) ? candidate : kept
    if (next === s.level) return undefined
    const previous = s.level
    s.level = next
    const snapshot = { level: s.level, since: { ...s.since }, last: s.last }
    return next === null
      ? { kind: 'reset', level: previous!, previous_level: null, value: v, time: o.time, state: snapshot }
      : { kind: 'raise', level: next, previous_level: previous, value: v, time: o.time, state: snapshot }
  }
}

/** The transitions of a threshold alert over a stream of observations (event-time order). */
export function evaluateThresholds(thresholds: Thresholds, from?: ThresholdState): OperatorFunction<Obs, AlertTransitionOut> {
  return (source) => new Observable<AlertTransitionOut>((subscriber) => {
    const evaluator = new ThresholdEvaluator(thresholds, from ? structuredClone(from) : undefined)
    return source.subscribe({
      next: (o) => {
        const t = evaluator.step(o)
        if (t) subscriber.next(t)
      },
      error: (err) => subscriber.error(err),
      complete: () => subscriber.complete(),
    })
  })
}
