// Parsing of component attributes (spec 3: attribute values are strings; `value_type`
// string/json/float). Defaults apply when an attribute is absent; a value that is present
// but cannot be parsed is an AttributeError, which the runner reports as
// `invalid_attributes` instead of guessing.

/** An attribute value that cannot be parsed; run.ts turns it into `invalid_attributes`. */
export class AttributeError extends Error {
  constructor (readonly key: string, readonly value: string, readonly expected: string) {
    super(`attribute ${key}: ${JSON.stringify(value)} is not ${expected}`)
  }
}

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const

/** Occupied periods per ISO weekday (index 0 = Monday), in minutes since local midnight, [from, to). */
export type WeekSchedule = Array<Array<[number, number]>>

/** Monday to Friday 07:00-18:00 (issue 12 default of `occupied_hours`). */
export const DEFAULT_SCHEDULE: WeekSchedule = DAYS.map((_, i) => (i < 5 ? [[420, 1080]] : []))

/**
 * `occupied_hours`: JSON object, keys mon..sun, each ["HH:MM","HH:MM"] or a list of such
 * pairs; a day left out is unoccupied. "24:00" may end a period.
 */
export function parseSchedule(key: string, value: string | undefined): WeekSchedule {
  if (value === undefined || value.trim() === '') return DEFAULT_SCHEDULE
  const bad = () => new AttributeError(key, value, 'a JSON object like {"mon":["07:00","18:00"]}')
  let obj: unknown
  try { obj = JSON.parse(value) } catch { throw bad() }
  if (obj === null || typeof obj !== 'object' || Array.isArray(obj)) throw bad()
  const week: WeekSchedule = DAYS.map(() => [])
  for (const [day, spans] of Object.entries(obj as Record<string, unknown>)) {
    const d = DAYS.indexOf(day.toLowerCase() as typeof DAYS[number])
    if (d < 0 || !Array.isArray(spans)) throw bad()
    const list = spans.length > 0 && Array.isArray(spans[0]) ? spans : [spans]
    for (const span of list) {
      if (!Array.isArray(span) || span.length !== 2) throw bad()
      const [a, b] = span.map(minutes)
      if (a === undefined || b === undefined || a >= b) throw bad()
      week[d].push([a, b])
    }
  }
  return week
}

function minutes(s: unknown): number | undefined {
  if (typeof s !== 'string') return undefined
  const m = /^(\d{1,2}):(\d{2})$/.exec(s.trim())
  if (!m) return undefined
  const v = Number(m[1]) * 60 + Number(m[2])
  return Number(m[2]) < 60 && v <= 1440 ? v : undefined
}

export function isScheduled(week: WeekSchedule, weekday: number, minute: number): boolean {
  return week[weekday - 1].some(([a, b]) => minute >= a && minute < b)
}
