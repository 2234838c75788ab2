// Calendar rules in an IANA zone: the next instant a local wall time occurs (switching times of
// the controls-app schedules of issue 31: weekly times, holidays, in the project's zone).
// Across DST changes a wall time is kept as people read it:
// - missing (spring forward, e.g. 02:30 in Europe/Berlin on the last Sunday of March): it runs
//   at the next valid minute, the end of the gap (03:00 local);
// - occurring twice (fall back, 02:30 on the last Sunday of October): it runs once, at the
//   first occurrence; the repeated hour does not run it again.
// µs in, µs out. Offsets come from luxon's IANAZone (minutes east of UTC at an instant).
import { IANAZone } from 'luxon'
import { MICROS_PER_MS } from './clock.ts'

const MINUTE_MS = 60_000
const DAY_MS = 86_400_000
/** Offsets lie within ±18 h of UTC; one change per 36 h at most, as in every zone in use. */
const SPAN_MS = 18 * 3_600_000

/** A local date: days since 1970-01-01 (local), its ISO weekday (1 = Monday) and YYYY-MM-DD. */
export interface LocalDate { day: number; weekday: number; date: string }

export interface WallTime {
  hour: number
  minute: number
}

export interface NextOptions {
  /** Whether the rule runs on a local date (weekdays, holidays); default every day. */
  on?: (d: LocalDate) => boolean
  /** How many local days ahead to look before giving up (default 400). */
  horizonDays?: number
}

/**
 * The first instant strictly after `afterUs` at which the local wall time in `zone` is `time`
 * on a date `on` accepts (see the header for missing and repeated times); undefined when no
 * accepted date lies within the horizon.
 */
export function nextLocalTime(afterUs: number, zone: string, time: WallTime, opts: NextOptions = {}): number | undefined {
  if (!Number.isInteger(time.hour) || time.hour < 0 || time.hour > 23 || !Number.isInteger(time.minute) || time.minute < 0 || time.minute > 59) {
    throw new RangeError(`not a wall time: ${time.hour}:${time.minute}`)
  }
  const z = IANAZone.create(zone)
  if (!z.isValid) throw new RangeError(`unknown time zone '${zone}'`)
  const afterMs = Math.floor(afterUs / MICROS_PER_MS)
  const offsetMs = (ms: number) => z.offset(ms) * MINUTE_MS
  // Start one local day early: the occurrence on the local date before may still lie ahead.
  const first = Math.floor((afterMs + offsetMs(afterMs)) / DAY_MS) - 1
  const horizon = opts.horizonDays ?? 400
  for (let day = first; day <= first + horizon + 1; day++) {
    const local = localDate(day)
    if (opts.on && !opts.on(local)) continue
    const at = occurrence(day * DAY_MS + (time.hour * 60 + time.minute) * MINUTE_MS, offsetMs)
    // µs of a whole minute; strictly after: a switching time that ran at `afterUs` is done.
    if (at * MICROS_PER_MS > afterUs) return at * MICROS_PER_MS
  }
  return undefined
}

/**
 * The instant (µs) at which local day `day` (days since 1970-01-01, local) reads `time` in
 * `zone`, with the rules of the header: the first occurrence of a repeated time, the end of
 * the gap for a missing one.
 */
export function localInstant(day: number, time: WallTime, zone: string): number {
  const z = IANAZone.create(zone)
  if (!z.isValid) throw new RangeError(`unknown time zone '${zone}'`)
  return occurrence(day * DAY_MS + (time.hour * 60 + time.minute) * MINUTE_MS, (ms) => z.offset(ms) * MINUTE_MS) * MICROS_PER_MS
}

/** Parses "HH:MM" (24 h). */
export function wallTime(text: string): WallTime {
  const m = /^([01]\d|2[0-3]):([0-5]\d)$/.exec(text)
  if (!m) throw new RangeError(`not a wall time (HH:MM): ${text}`)
  return { hour: Number(m[1]), minute: Number(m[2]) }
}

/** The local date of day number `day`. */
export function localDate(day: number): LocalDate {
  const d = new Date(day * DAY_MS)
  return { day, weekday: ((day + 3) % 7 + 7) % 7 + 1, date: d.toISOString().slice(0, 10) }
}

/**
 * The earliest instant (ms) whose local wall time is `wall` (local ms since the epoch), or
 * the end of the gap when `wall` falls into one.
 */
function occurrence(wall: number, offsetMs: (ms: number) => number): number {
  const offsets = new Set([offsetMs(wall - SPAN_MS), offsetMs(wall), offsetMs(wall + SPAN_MS)])
  let best: number | undefined
  for (const o of offsets) {
    const t = wall - o
    if (offsetMs(t) === o && (best === undefined || t < best)) best = t
  }
  if (best !== undefined) return best
  // In a gap: the first instant whose local time passes `wall` (local time rises with the
  // instant inside the search range, as there is no fall-back within it).
  let lo = wall - Math.max(...offsets) // local time before `wall`
  let hi = wall - Math.min(...offsets) // local time after it
  while (hi - lo > MINUTE_MS) {
    const mid = lo + Math.floor((hi - lo) / 2 / MINUTE_MS) * MINUTE_MS
    if (mid + offsetMs(mid) >= wall) hi = mid
    else lo = mid
  }
  return hi
}
