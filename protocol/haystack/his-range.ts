// The `range` of Haystack's hisRead op (project-haystack.org/doc/Ops#hisRead), resolved to a
// half-open span of instants [start, end) in µs, as every Lintel read (DESIGN.md: bounds are
// half-open; Haystack 4 ranges are inclusive of the start and exclusive of the end):
//   "today", "yesterday"     the local day of `now` (or the one before) in the point's zone
//   "YYYY-MM-DD"             that local day, midnight to the next midnight
//   "YYYY-MM-DD,YYYY-MM-DD"  midnight of the first day to midnight after the LAST day (both
//                            days included, as the standard says for date ranges)
//   "DT,DT"                  two Zinc date-times: from the first to the second
//   "DT"                     a Zinc date-time: everything from it on (end undefined)
// Days are local days of the zone, so a day across a DST change is 23 or 25 hours long.
// A Zinc date-time is `YYYY-MM-DDThh:mm[:ss[.fff]]` with `Z` or `±hh:mm`, optionally followed
// by a space and a Haystack time-zone name (`New_York`, `UTC`); the offset alone fixes the
// instant, so the zone name is accepted as written (the answer speaks the point's zone).
import { DateTime } from 'luxon'

export interface HisSpan {
  /** µs since the epoch, inclusive. */
  start: number
  /** µs since the epoch, exclusive; undefined for "from a date-time on". */
  end: number | undefined
}

/** A range the standard does not allow, or an impossible one; the message says which. */
export class HisRangeError extends Error {
  override name = 'HisRangeError'
}

const DATE = /^(\d{4})-(\d{2})-(\d{2})$/
const DATE_TIME = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2})(?: ([A-Za-z][\w\-+]*(?:\/[\w\-+]+)*))?$/

/** Resolves `range` for a point whose zone is `zone` (IANA) at the instant `nowUs`. */
export function parseHisRange(range: string, zone: string, nowUs: number): HisSpan {
  const text = range.trim()
  if (text === 'today' || text === 'yesterday') {
    const today = DateTime.fromMillis(Math.floor(nowUs / 1000), { zone }).startOf('day')
    const day = text === 'today' ? today : today.minus({ days: 1 })
    return { start: midnight(day.toISODate()!, zone), end: midnight(day.plus({ days: 1 }).toISODate()!, zone) }
  }
  const parts = text.split(',').map((p) => p.trim())
  if (parts.length > 2 || parts.some((p) => p === '')) throw new HisRangeError(unknown(range))
  if (parts.every((p) => DATE.test(p))) {
    const [first, last = first] = parts
    const start = midnight(first, zone)
    const end = midnight(DateTime.fromISO(checkDate(last), { zone: 'UTC' }).plus({ days: 1 }).toISODate()!, zone)
    if (end <= start) throw new HisRangeError(`hisRead range '${range}': the end date ${last} lies before the start date ${first}`)
    return { start, end }
  }
  if (parts.every((p) => DATE_TIME.test(p))) {
    const start = instant(parts[0])
    if (parts.length === 1) return { start, end: undefined }
    const end = instant(parts[1])
    if (end < start) throw new HisRangeError(`hisRead range '${range}': the end ${parts[1]} lies before the start ${parts[0]}`)
    return { start, end }
  }
  throw new HisRangeError(unknown(range))
}

const unknown = (range: string) =>
  `hisRead range '${range}' is not one the standard defines: use today, yesterday, a date (2024-03-31), two dates ` +
  '(2024-03-01,2024-03-31), two date-times (2024-03-31T00:00:00+01:00 Berlin,2024-04-01T00:00:00+02:00 Berlin) or one date-time (from it on)'

function checkDate(date: string): string {
  if (!DateTime.fromISO(date, { zone: 'UTC' }).isValid) throw new HisRangeError(`hisRead range: '${date}' is not a calendar date`)
  return date
}

/** µs of the local midnight starting `date` in `zone` (luxon moves a midnight inside a DST gap to its end). */
function midnight(date: string, zone: string): number {
  const d = DateTime.fromISO(checkDate(date), { zone })
  if (!d.isValid) throw new HisRangeError(`hisRead: unknown time zone '${zone}'`)
  return d.startOf('day').toMillis() * 1000
}

/** µs of a Zinc date-time (fractions below a µs are cut off, as everywhere in Lintel). */
function instant(text: string): number {
  const m = DATE_TIME.exec(text)!
  const [, y, mo, d, h, mi, s = '00', frac = '', offset] = m
  const ms = Date.parse(`${y}-${mo}-${d}T${h}:${mi}:${s}${offset}`)
  if (Number.isNaN(ms) || !DateTime.fromISO(`${y}-${mo}-${d}T${h}:${mi}:${s}`, { zone: 'UTC' }).isValid) {
    throw new HisRangeError(`hisRead range: '${text}' is not a valid date-time`)
  }
  const micros = frac === '' ? 0 : Number((frac.slice(1) + '000000').slice(0, 6))
  return ms * 1000 + micros
}
