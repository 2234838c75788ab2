// Local wall-clock time of a µs instant in an IANA time zone (DESIGN.md: project time zone,
// default UTC), for occupancy schedules and calendar days. The zone offset is asked of
// luxon about twice per day of time (hourly on DST change days) and cached, so a year of
// 15-minute buckets costs ~750 offset look-ups, not 35,000 date objects.
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

/** Local wall-clock reading of instants in one zone (one per zone; it caches offsets). */
export interface ZoneCalendar {
  at(time: number): LocalTime
  /** The instant (µs) of local midnight starting local day `day` (see LocalTime.day). */
  midnight(day: number): number
}

export function isValidZone(zone: string): boolean {
  return IANAZone.isValidZone(zone)
}

export function zoneCalendar(zone: string): ZoneCalendar {
  const z = IANAZone.create(zone)
  // Per UTC day: one offset when the day starts and ends with the same offset (all days
  // but the DST changes), else per hour (offsets change on the hour in practice).
  const days = new Map<number, number | Map<number, number>>()
  const offsetMs = (time: number): number => {
    const ms = Math.floor(time / 1000)
    const d = Math.floor(ms / DAY_MS)
    let o = days.get(d)
    if (o === undefined) {
      const a = z.offset(d * DAY_MS); const b = z.offset((d + 1) * DAY_MS - 1)
      o = a === b ? a * 60_000 : new Map()
      days.set(d, o)
    }
    if (typeof o === 'number') return o
    const h = Math.floor(time / HOUR)
    let oh = o.get(h)
    if (oh === undefined) { oh = z.offset(h * (HOUR / 1000)) * 60_000; o.set(h, oh) }
    return oh
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
