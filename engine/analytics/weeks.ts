// Week arithmetic of the weekly analysis run (spec 3 "States": Monday to Monday), in the
// project's time zone (DESIGN.md: IANA name per project, default UTC). µs in, µs out; luxon
// keeps a week 7 calendar days long across DST changes.
import { DateTime } from 'luxon'

const toDt = (us: number, zone: string) => DateTime.fromMillis(Math.floor(us / 1000), { zone })
const toUs = (dt: DateTime) => dt.toMillis() * 1000

/** Monday 00:00 of the week holding `us`. */
export const weekStart = (us: number, zone = 'UTC'): number => toUs(toDt(us, zone).startOf('week'))

/** The Monday 00:00 a week after the Monday `us`. */
export const nextWeek = (us: number, zone = 'UTC'): number => toUs(toDt(us, zone).plus({ weeks: 1 }))

/** The first Monday 00:00 at or after `us`: the first whole week an instance enabled at `us` covers. */
export const firstWholeWeek = (us: number, zone = 'UTC'): number => {
  const w = weekStart(us, zone)
  return w === us ? w : nextWeek(w, zone)
}

/** `YYYY-MM-DD HH:MM:SS+00:00`, the form of spec 3's result timestamps (UTC). */
export const specTimestamp = (us: number): string => new Date(Math.floor(us / 1000)).toISOString().slice(0, 19).replace('T', ' ') + '+00:00'
