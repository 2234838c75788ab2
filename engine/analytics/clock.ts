// Local wall-clock time of a µs instant in an IANA time zone (DESIGN.md: project time zone,
// default UTC), for occupancy schedules and calendar days. The zone offset is asked of
// luxon once per hour of time and cached, so a year of 15-minute buckets costs ~8,800
// offset look-ups, not 35,000 date objects.
import { IANAZone } from 'luxon'

const HOUR = 3_600_000_000
const DAY_MS = 86_400_000

export interface LocalTime {
  /** 1 = Monday ... 7 = Sunday (ISO). */
  weekday: number
  /** Minutes since local midnight. */
  minute: number
  /** Days since 1970-01-01 in local time (a key for calendar days). */
  day: number
}

export interface Clock {
  at(time: number): LocalTime
  /** The instant (µs) of local midnight starting local day `day` (see LocalTime.day). */
  midnight(day: number): number
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

export function clock(zone: string): Clock {
  const z = IANAZone.create(zone)
  const cache = new Map<number, number>()
  const offsetMs = (time: number): number => {
    const h = Math.floor(time / HOUR)
    let o = cache.get(h)
    if (o === undefined) { o = z.offset(h * (HOUR / 1000)) * 60_000; cache.set(h, o) }
    return o
  }
  return {
    at(time) {
      const local = Math.floor(time / 1000) + offsetMs(time)
      const day = Math.floor(local / DAY_MS)
      const minute = Math.floor((local - day * DAY_MS) / 60_000)
      // 1970-01-01 was a Thursday (ISO 4).
      const weekday = ((day + 3) % 7 + 7) % 7 + 1
      return { weekday, minute, day }
    },
    midnight(day) {
      // Offset at the naive UTC instant, corrected once (exact except inside a DST jump at midnight).
      const naive = day * DAY_MS
      const first = naive - z.offset(naive) * 60_000
      return (naive - z.offset(first) * 60_000) * 1000
    },
  }
}
