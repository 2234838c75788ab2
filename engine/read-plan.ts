// How GET /v2/datapoint/timeseries turns its query into a store read (spec 1, "Time-series
// data" rules 2-6, DESIGN.md "Decisions"): pure, so every rule is tested without a store.
//
// Raw reads:       start+end → all in [start, end) (max ignored);  start only → first `max`
//                  from start;  end only → last `max` before end;  neither → last `max`.
// With samplerate: buckets floor(t / iv) * iv. start+end → all buckets of [start, end);
//                  start only → `max` buckets counted from the bucket holding start, empty
//                  ones included, then empty ones dropped (rule 4);  end only → the `max`
//                  buckets up to the one holding the last instant before end;  neither →
//                  the last `max` non-empty buckets.
// Automatic sampling: start and end given, no samplerate, and more than N raw observations in
// the range → interval ceil((end - start) / N), rounded up to whole seconds. `max` plays no
// part: with both bounds it is ignored (rule 2), so it neither turns sampling off nor limits.
//
// Calendar sample rates (issue 14 item 4, an extension of the spec): `1D`, `1W`, `1M` are a
// calendar day, week (from Monday) and month of the project's time zone, bucketed at local
// midnight. Upper case, because `m` is already minutes and rule 5 makes `31d` exactly 31 x
// 24 h; only the count 1. In UTC, `1D` and `1d` give the same buckets.
import { bucketing } from './store/buckets.ts'
import type { Aggregate, CalendarInterval, Interval, RangeQuery, SampleQuery } from './store/port.ts'

export const UNIT_US = { s: 1_000_000, m: 60_000_000, h: 3_600_000_000, d: 86_400_000_000 } as const
const CALENDAR = { D: 'day', W: 'week', M: 'month' } as const

export interface ReadRequest { start?: number; end?: number; max?: number; interval?: Interval; aggregate?: Aggregate }

export type ReadPlan =
  | { kind: 'raw'; query: RangeQuery }
  | { kind: 'sample'; query: SampleQuery; lastBuckets?: number }

/**
 * The longest fixed sample interval: 36,500 days (100 years). Bucket bounds are computed as
 * integers in the store (SQLite INTEGER, QuestDB LONG): an interval of ~104,250 days and more
 * overflowed there and answered 500 (issue 29); no reading needs buckets longer than this.
 */
export const MAX_SAMPLE_INTERVAL_US = 36_500 * UNIT_US.d

/** `15m` → microseconds; undefined when the text is not an integer followed by s, m, h or d, or over MAX_SAMPLE_INTERVAL_US. */
export function parseSamplerate(text: string): number | undefined {
  const m = /^([1-9]\d{0,9})([smhd])$/.exec(text)
  const us = m ? Number(m[1]) * UNIT_US[m[2] as keyof typeof UNIT_US] : undefined
  return us !== undefined && us <= MAX_SAMPLE_INTERVAL_US ? us : undefined
}

/** `1D`, `1W`, `1M` → a calendar interval in `zone`; undefined for anything else. */
export function parseCalendarRate(text: string, zone: string): CalendarInterval | undefined {
  const m = /^1([DWM])$/.exec(text)
  return m ? { unit: CALENDAR[m[1] as keyof typeof CALENDAR], zone } : undefined
}

export function planRead(r: ReadRequest): ReadPlan {
  const max = r.max ?? 0
  const { start, end, interval } = r
  if (interval === undefined) {
    if (start !== undefined && end !== undefined) return { kind: 'raw', query: { start, end } }
    if (start !== undefined) return { kind: 'raw', query: { start, limit: max, from: 'first' } }
    return { kind: 'raw', query: { end, limit: max, from: 'last' } }
  }
  const agg = r.aggregate !== undefined && r.aggregate !== 'mean' ? { aggregate: r.aggregate } : {}
  if (start !== undefined && end !== undefined) return { kind: 'sample', query: { start, end, interval, ...agg } }
  if (max === 0) return { kind: 'sample', query: { start, end, interval, ...agg } }
  const b = bucketing(interval)
  if (start !== undefined) return { kind: 'sample', query: { start, end: b.add(b.floor(start), max), interval, ...agg } }
  if (end !== undefined) return { kind: 'sample', query: { start: b.add(b.floor(end - 1), -(max - 1)), end, interval, ...agg } }
  return { kind: 'sample', query: { interval, ...agg }, lastBuckets: max }
}

/** Whether automatic sampling is considered: both bounds and no samplerate (`max` ignored, rule 2). */
export function autoSamplingApplies(r: { start?: number; end?: number; samplerate?: string }): boolean {
  return r.start !== undefined && r.end !== undefined && r.samplerate === undefined
}

/** Interval of automatic sampling of [start, end) into at most n buckets, whole seconds. */
export function autoInterval(start: number, end: number, n: number): number {
  const seconds = Math.max(1, Math.ceil((end - start) / n / 1_000_000))
  return seconds * 1_000_000
}
