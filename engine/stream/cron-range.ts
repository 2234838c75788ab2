// Cron-based data ranges (spec part 2, "Data range shapes": `{start: <cron>, end: <cron>}`),
// the helper of rangeWindow and of the storage-first rebuild; not an operator itself. Five-field cron expressions (minute hour
// day-of-month month day-of-week) evaluated in UTC with cron-parser.
//
// Semantics (the spec only says the expressions define start and end of the range):
// - The window of an event time t opens at S, the most recent `start` occurrence ≤ t, and
//   closes at the first `end` occurrence after S, or at the next `start` occurrence if that
//   comes first (a new start always opens a new window). The window is [S, close).
// - An observation at or after the close but before the next start belongs to no window: it is
//   ignored. With equal start and end expressions the windows tile time without gaps
//   (`0 0 * * *` twice: one window per UTC day).
import { CronExpressionParser } from 'cron-parser'

/** A window of a cron range: [start, end) in µs. */
export interface CronWindow {
  start: number
  end: number
}

const US_PER_MS = 1000

/**
 * Parses a five-field cron expression; throws an Error with cron-parser's message (or one
 * about the field count) when it is not one.
 */
export function checkCron(expression: string): void {
  const fields = expression.trim().split(/\s+/)
  if (fields.length !== 5 || fields[0] === '') throw new Error(`expected five fields (minute hour day-of-month month day-of-week), got ${fields[0] === '' ? 0 : fields.length}`)
  CronExpressionParser.parse(expression, { tz: 'UTC' }).next()
}

/** Occurrence ≤ `us` (prev: true) or > `us` (prev: false), in µs; undefined if none. */
function occurrence(expression: string, us: number, prev: boolean): number | undefined {
  // cron-parser's prev() and next() exclude the current date; occurrences fall on whole
  // minutes, so "≤ t" is "< floor(t in ms) + 1 ms".
  const ms = Math.floor(us / US_PER_MS)
  try {
    const e = CronExpressionParser.parse(expression, { tz: 'UTC', currentDate: prev ? ms + 1 : ms })
    return (prev ? e.prev() : e.next()).getTime() * US_PER_MS
  } catch {
    return undefined // no occurrence within cron-parser's search limit
  }
}

/**
 * The windows of one `{start, end}` range. Remembers the last window and the next start after
 * it, so consecutive observations of one window cost no cron evaluation (cron-parser takes
 * tens of µs per step).
 */
export class CronRange {
  private cached: { start: number; close: number; nextStart: number } | undefined

  constructor(readonly startExpression: string, readonly endExpression: string) {}

  /** The window holding event time `us`, or undefined when `us` falls between windows. */
  windowOf(us: number): CronWindow | undefined {
    let c = this.cached
    if (!c || us < c.start || us >= c.nextStart) {
      const start = occurrence(this.startExpression, us, true)
      if (start === undefined) return undefined
      const nextStart = occurrence(this.startExpression, start, false) ?? Infinity
      const end = occurrence(this.endExpression, start, false) ?? Infinity
      c = this.cached = { start, close: Math.min(end, nextStart), nextStart }
    }
    return us < c.close ? { start: c.start, end: c.close } : undefined
  }
}
