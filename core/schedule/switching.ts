// The switching times of a schedule (issue 31 item 2; contract-31): the weekly program on
// ordinary days, the holiday program on holidays, in the project's zone. Across DST changes a
// wall time is kept as people read it (core/clock/calendar.ts): a time missing on the spring
// day runs at the next valid minute (the end of the gap), a time occurring twice in autumn
// runs once, at its first occurrence. Entries of one day that fall on the same instant (02:30
// moved to 03:00 beside a 03:00 entry) become one switching; the later wall time wins a pin
// both set. Deterministic and pure: the API resolves ranges with it, the edge runs it.
import { localInstant, wallTime, type WallTime } from '../clock/calendar.ts'
import { DAY_US } from '../clock/clock.ts'
import { zoneCalendar } from '../clock/zone.ts'
import { DAYS, type PinValues, type ScheduleConfig } from './config.ts'
import { dateOf, holidayLookup, type HolidayRule } from './holidays.ts'

export interface Switching {
  /** µs since the epoch */
  timeUs: number
  /** The local wall time it runs at, YYYY-MM-DDTHH:mm (03:00 for a 02:30 moved out of the gap). */
  local: string
  values: PinValues
  /** The holiday whose program this is. */
  holiday?: string
}

/** Ranges longer than this are refused (a caller's mistake, not a schedule). */
export const MAX_RANGE_US = 2 * 366 * DAY_US
/** How far back the value in force is searched (a holiday program may be empty for weeks). */
const LOOK_BACK_DAYS = 400
const STEP_DAYS = 8

interface Planned { wall: WallTime; minute: number; index: number; values: PinValues }

/** The switching times with fromUs <= timeUs < toUs, in time order. */
export function switchingTimes(config: ScheduleConfig, holidays: readonly HolidayRule[], zone: string, fromUs: number, toUs: number): Switching[] {
  if (toUs - fromUs > MAX_RANGE_US) throw new RangeError(`a range of at most ${MAX_RANGE_US / DAY_US} days is resolved at once`)
  return new Resolver(config, holidays, zone).between(fromUs, toUs)
}

/**
 * The value in force of each pin at `atUs`: the value of the last switching at or before it
 * that set the pin (the program wraps around the week). A pin no switching set within the
 * look-back (400 days) is absent.
 */
export function valuesInForce(config: ScheduleConfig, holidays: readonly HolidayRule[], zone: string, atUs: number): PinValues {
  return new Resolver(config, holidays, zone).inForce(atUs)
}

/** The first switching strictly after `afterUs` (within 400 days), or undefined. */
export function nextSwitching(config: ScheduleConfig, holidays: readonly HolidayRule[], zone: string, afterUs: number): Switching | undefined {
  return new Resolver(config, holidays, zone).next(afterUs)
}

/** One configuration in one zone; reusable for several questions (the edge keeps one per app). */
export class Resolver {
  private readonly cal
  private readonly holidayOn
  private readonly week: Planned[][] // per ISO weekday - 1
  private readonly holidayProgram: Planned[]

  constructor (config: ScheduleConfig, holidays: readonly HolidayRule[], private readonly zone: string) {
    this.cal = zoneCalendar(zone)
    this.holidayOn = holidayLookup(holidays)
    const plan = (time: string, index: number, values: PinValues): Planned => {
      const wall = wallTime(time)
      return { wall, minute: wall.hour * 60 + wall.minute, index, values }
    }
    const byTime = (a: Planned, b: Planned) => a.minute - b.minute || a.index - b.index
    this.week = DAYS.map((d) => config.week.flatMap((e, i) => (e.days.includes(d) ? [plan(e.time, i, e.values)] : [])).sort(byTime))
    this.holidayProgram = config.holiday.map((e, i) => plan(e.time, i, e.values)).sort(byTime)
  }

  between(fromUs: number, toUs: number): Switching[] {
    const out: Switching[] = []
    if (toUs <= fromUs) return out
    // One local day either side: an entry of the day before may lie after fromUs (DST, zone offsets).
    const first = this.cal.at(fromUs).day - 1
    const last = this.cal.at(toUs).day + 1
    for (let day = first; day <= last; day++) {
      for (const s of this.day(day)) if (s.timeUs >= fromUs && s.timeUs < toUs) out.push(s)
    }
    return out
  }

  next(afterUs: number): Switching | undefined {
    // The usual next one lies within a day: look there first, then in weeks.
    const soon = this.between(afterUs + 1, afterUs + 1 + DAY_US)
    if (soon.length > 0) return soon[0]
    for (let from = afterUs + 1 + DAY_US; from < afterUs + LOOK_BACK_DAYS * DAY_US; from += STEP_DAYS * DAY_US) {
      const s = this.between(from, from + STEP_DAYS * DAY_US)
      if (s.length > 0) return s[0]
    }
    return undefined
  }

  inForce(atUs: number): PinValues {
    const out: PinValues = {}
    const want = new Set(this.pins())
    for (let to = atUs + 1; to > atUs - LOOK_BACK_DAYS * DAY_US && want.size > 0; to -= STEP_DAYS * DAY_US) {
      const list = this.between(to - STEP_DAYS * DAY_US, to)
      for (let i = list.length - 1; i >= 0 && want.size > 0; i--) {
        for (const [pin, v] of Object.entries(list[i].values)) {
          if (want.delete(pin)) out[pin] = v
        }
      }
    }
    return out
  }

  private pins(): string[] {
    const s = new Set<string>()
    for (const p of [...this.week.flat(), ...this.holidayProgram]) for (const k of Object.keys(p.values)) s.add(k)
    return [...s]
  }

  /** The switchings of local day `day`, merged per instant, in time order. */
  private day(day: number): Switching[] {
    const holiday = this.holidayOn(day)
    const weekday = ((day + 3) % 7 + 7) % 7 // 0 = Monday (1970-01-01 was a Thursday)
    const plan = holiday === undefined ? this.week[weekday] : this.holidayProgram
    const out: Switching[] = []
    for (const p of plan) {
      const timeUs = localInstant(day, p.wall, this.zone)
      const prev = out[out.length - 1]
      if (prev && prev.timeUs === timeUs) { Object.assign(prev.values, p.values); continue }
      const s: Switching = { timeUs, local: this.local(timeUs), values: { ...p.values } }
      if (holiday !== undefined) s.holiday = holiday
      out.push(s)
    }
    return out
  }

  private local(timeUs: number): string {
    const l = this.cal.at(timeUs)
    const hh = String(Math.floor(l.minute / 60)).padStart(2, '0')
    const mm = String(l.minute % 60).padStart(2, '0')
    return `${dateOf(l.day)}T${hh}:${mm}`
  }
}
