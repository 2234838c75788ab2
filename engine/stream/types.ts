// Types of the shared stream operators (DESIGN.md "Layout": engine/stream holds the windows,
// aggregates, triggers and the storage-first replay that virtual datapoints, alerts, rollups
// and replay all use). Nothing here knows who consumes it. The names of aggregates and
// triggers are the spec's (part 2, "Pin configuration"), so a configuration can be shown as
// is. Time is integer microseconds since the Unix epoch, UTC (DESIGN.md "Conventions").

/** One observation of a series: event time in µs and a finite value. */
export interface Obs {
  time: number
  value: number
}

export const AGGREGATES = ['last', 'first', 'sum', 'mean', 'median', 'max', 'min', 'timeweighted_mean', 'integral'] as const
export type Aggregate = (typeof AGGREGATES)[number]

export const TRIGGERS = ['every_value', 'every_minute', 'every_hour'] as const
export type Trigger = (typeof TRIGGERS)[number]

/**
 * What a window keeps of its input (spec part 2, "Data range shapes"):
 * - time: observations with time > latest − us (event time)
 * - count: the newest n observations by event time
 * - cron: observations since the most recent `start` occurrence, until the next `end`
 * - none: every observation forwarded on its own, in arrival order
 */
export type WindowRange =
  | { kind: 'time'; us: number }
  | { kind: 'count'; n: number }
  | { kind: 'cron'; start: string; end: string }
  | { kind: 'none' }
