// The holiday calendar of a project (issue 31 item 2; contract-31): single dates, date ranges
// (end inclusive) and yearly recurring ones. A yearly rule recurs on its month and day in every
// year (the year of `date` only makes it a real date; 29 February recurs in leap years only);
// a yearly range may cross the new year (24 Dec .. 1 Jan). Pure: dates are local calendar
// dates of the project's zone, counted as days since 1970-01-01.
import type { FieldError } from './config.ts'

export interface HolidayRule {
  name: string
  /** YYYY-MM-DD */
  date: string
  /** YYYY-MM-DD, inclusive, not before `date` */
  end?: string
  yearly?: boolean
}

export interface Holiday { date: string; name: string }

export const MAX_HOLIDAY_RULES = 1000
/** A range longer than a year is not a holiday but a season. */
export const MAX_RANGE_DAYS = 366
const MAX_NAME = 200
const DAY_MS = 86_400_000
const KEYS = new Set(['name', 'date', 'end', 'yearly'])

/** Days since 1970-01-01 of a real YYYY-MM-DD date, else undefined. */
export function dayOf(date: unknown): number | undefined {
  if (typeof date !== 'string') return undefined
  const m = /^(\d{4})-(\d{2})-(\d{2})$/.exec(date)
  if (!m) return undefined
  const [y, mo, d] = [Number(m[1]), Number(m[2]), Number(m[3])]
  const ms = Date.UTC(y, mo - 1, d)
  const back = new Date(ms)
  if (back.getUTCFullYear() !== y || back.getUTCMonth() !== mo - 1 || back.getUTCDate() !== d) return undefined
  return ms / DAY_MS
}

/** YYYY-MM-DD of a day number. */
export function dateOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10)
}

/** The problems of a holiday list (empty: valid); fields like `[3].end`. */
export function validateHolidays(list: unknown, field = 'holidays'): FieldError[] {
  const errors: FieldError[] = []
  const err = (f: string, reason: string) => { errors.push({ field: f, reason }) }
  if (!Array.isArray(list)) return [{ field, reason: 'must be an array of holidays {name, date, end?, yearly?}' }]
  if (list.length > MAX_HOLIDAY_RULES) return [{ field, reason: `at most ${MAX_HOLIDAY_RULES} holidays` }]
  list.forEach((r, i) => {
    const at = `${field}[${i}]`
    if (typeof r !== 'object' || r === null || Array.isArray(r)) { err(at, 'must be an object {name, date, end?, yearly?}'); return }
    const o = r as Record<string, unknown>
    for (const k of Object.keys(o)) if (!KEYS.has(k)) err(`${at}.${k}`, 'unknown field (known: name, date, end, yearly)')
    if (typeof o.name !== 'string' || o.name.trim().length === 0 || o.name.length > MAX_NAME) err(`${at}.name`, `must be a non-empty string of at most ${MAX_NAME} characters`)
    const start = dayOf(o.date)
    if (start === undefined) err(`${at}.date`, 'must be a date YYYY-MM-DD')
    if (o.yearly !== undefined && typeof o.yearly !== 'boolean') err(`${at}.yearly`, 'must be true or false')
    if (o.end !== undefined) {
      const end = dayOf(o.end)
      if (end === undefined) err(`${at}.end`, 'must be a date YYYY-MM-DD')
      else if (start !== undefined && end < start) err(`${at}.end`, `is before date ${o.date as string}`)
      else if (start !== undefined && end - start + 1 > MAX_RANGE_DAYS) err(`${at}.end`, `a holiday spans at most ${MAX_RANGE_DAYS} days`)
      else if (start !== undefined && o.yearly === true && end - start + 1 > 365) err(`${at}.end`, 'a yearly holiday spans less than a year')
    }
  })
  return errors
}

/**
 * The holidays on the dates fromDate..toDate (inclusive, YYYY-MM-DD), one per date in date
 * order; where rules overlap the first rule in the list names the day.
 */
export function holidaysIn(rules: readonly HolidayRule[], fromDate: string, toDate: string): Holiday[] {
  const from = dayOf(fromDate); const to = dayOf(toDate)
  if (from === undefined || to === undefined) throw new RangeError(`not a date range: ${fromDate} .. ${toDate}`)
  const byDay = new Map<number, string>()
  for (const r of rules) {
    for (const [a, b] of occurrences(r, from, to)) {
      for (let d = Math.max(a, from); d <= Math.min(b, to); d++) if (!byDay.has(d)) byDay.set(d, r.name)
    }
  }
  return [...byDay.entries()].sort((x, y) => x[0] - y[0]).map(([d, name]) => ({ date: dateOf(d), name }))
}

/** A lookup of one rule list: the holiday's name on a day number, or undefined. */
export function holidayLookup(rules: readonly HolidayRule[]): (day: number) => string | undefined {
  const cache = new Map<number, Map<number, string>>() // year -> day -> name
  return (day) => {
    const year = new Date(day * DAY_MS).getUTCFullYear()
    let m = cache.get(year)
    if (!m) {
      m = new Map()
      const a = Date.UTC(year, 0, 1) / DAY_MS; const b = Date.UTC(year + 1, 0, 1) / DAY_MS - 1
      for (const h of holidaysIn(rules, dateOf(a), dateOf(b))) m.set(dayOf(h.date)!, h.name)
      cache.set(year, m)
    }
    return m.get(day)
  }
}

/** The [first, last] day spans of a rule that may touch from..to. */
function occurrences(r: HolidayRule, from: number, to: number): [number, number][] {
  const start = dayOf(r.date)!
  const len = (r.end === undefined ? start : dayOf(r.end)!) - start
  if (!r.yearly) return [[start, start + len]]
  const [, mo, d] = r.date.split('-').map(Number)
  const out: [number, number][] = []
  // One year before `from` too: a yearly range that crosses the new year reaches into it.
  for (let y = new Date(from * DAY_MS).getUTCFullYear() - 1; y <= new Date(to * DAY_MS).getUTCFullYear(); y++) {
    const ms = Date.UTC(y, mo - 1, d)
    if (new Date(ms).getUTCMonth() !== mo - 1) continue // 29 February of a common year
    out.push([ms / DAY_MS, ms / DAY_MS + len])
  }
  return out
}
