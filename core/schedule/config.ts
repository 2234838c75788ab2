// The configuration of a `schedule` controls app (issue 31 item 2; contract-31): a weekly
// program of switching times with a value per pin, the program of a holiday, and what the
// edge does around it (priority, alive time-out, auto-recovery, reset values). Pure: the API
// validates a request body with it (a 400 naming the field and the reason), the edge agent
// reads the same shape from APPDEF.
//
//   {"priority": 13, "alive_timeout_s": 900, "auto_recovery": true,
//    "reset_values": {"supply_temp_setpoint": null},
//    "week": [{"days": ["mon","tue"], "time": "06:00", "values": {"supply_temp_setpoint": 21}}],
//    "holiday": [{"time": "00:00", "values": {"supply_temp_setpoint": 16}}]}
//
// Values are numbers or null (null releases the app's priority). Two entries may share a day
// and time only when they set different pins (else which one wins would be a guess).

export const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'] as const
export type Day = typeof DAYS[number]

export type PinValues = Record<string, number | null>

export interface WeekEntry { days: Day[]; time: string; values: PinValues }
export interface HolidayEntry { time: string; values: PinValues }

export interface ScheduleConfig {
  /** 1..16 (1 most urgent); the project's maximum is the API's rule. */
  priority: number
  alive_timeout_s: number
  auto_recovery: boolean
  /** Written when the edge has been disconnected longer than alive_timeout_s; null releases. */
  reset_values: PinValues
  week: WeekEntry[]
  /** The program of a holiday: replaces that day's week entries ([] = nothing switches). */
  holiday: HolidayEntry[]
}

/** One problem of a request body: a JSON path (`week[2].time`) and why it is refused. */
export interface FieldError { field: string; reason: string }

export const DEFAULT_PRIORITY = 13
export const DEFAULT_ALIVE_TIMEOUT_S = 900
export const MIN_ALIVE_TIMEOUT_S = 60
export const MAX_ALIVE_TIMEOUT_S = 604_800
/** Entries per program: a week of quarter hours, far beyond any heating schedule. */
export const MAX_ENTRIES = 700

const KEYS = new Set(['priority', 'alive_timeout_s', 'auto_recovery', 'reset_values', 'week', 'holiday'])
const TIME = /^([01]\d|2[0-3]):([0-5]\d)$/

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)

/**
 * The problems of a configuration body (empty: valid). `pins`: the pin names of the mapped
 * component that are mapped to a datapoint; values may name only those.
 */
export function validateScheduleConfig(body: unknown, pins: readonly string[]): FieldError[] {
  const errors: FieldError[] = []
  const err = (field: string, reason: string) => { errors.push({ field, reason }) }
  if (!isObject(body)) return [{ field: 'configuration', reason: 'must be a JSON object' }]
  for (const k of Object.keys(body)) if (!KEYS.has(k)) err(k, `unknown field (known: ${[...KEYS].join(', ')})`)
  const p = body.priority
  if (p !== undefined && (typeof p !== 'number' || !Number.isInteger(p) || p < 1 || p > 16)) err('priority', 'must be an integer from 1 to 16')
  const a = body.alive_timeout_s
  if (a !== undefined && (typeof a !== 'number' || !Number.isInteger(a) || a < MIN_ALIVE_TIMEOUT_S || a > MAX_ALIVE_TIMEOUT_S)) {
    err('alive_timeout_s', `must be an integer from ${MIN_ALIVE_TIMEOUT_S} to ${MAX_ALIVE_TIMEOUT_S} (seconds)`)
  }
  if (body.auto_recovery !== undefined && typeof body.auto_recovery !== 'boolean') err('auto_recovery', 'must be true or false')
  if (body.reset_values !== undefined) values(body.reset_values, 'reset_values', pins, err, true)
  if (body.week === undefined) err('week', 'is required: at least one switching time')
  else program(body.week, 'week', pins, err, true)
  if (body.holiday !== undefined) program(body.holiday, 'holiday', pins, err, false)
  return errors
}

/** A valid body with its defaults filled in (validate first: this does not check). */
export function scheduleConfig(body: Record<string, unknown>): ScheduleConfig {
  const b = body as Partial<ScheduleConfig>
  return {
    priority: b.priority ?? DEFAULT_PRIORITY,
    alive_timeout_s: b.alive_timeout_s ?? DEFAULT_ALIVE_TIMEOUT_S,
    auto_recovery: b.auto_recovery ?? true,
    reset_values: { ...(b.reset_values ?? {}) },
    week: (b.week ?? []).map((e) => ({ days: [...e.days], time: e.time, values: { ...e.values } })),
    holiday: (b.holiday ?? []).map((e) => ({ time: e.time, values: { ...e.values } })),
  }
}

/** The pins a configuration writes (week, holiday, reset values), sorted. */
export function pinsOf(c: ScheduleConfig): string[] {
  const s = new Set(Object.keys(c.reset_values))
  for (const e of [...c.week, ...c.holiday]) for (const k of Object.keys(e.values)) s.add(k)
  return [...s].sort()
}

/** The reset value of each pin the app writes (null where none is configured). */
export function resetValues(c: ScheduleConfig): PinValues {
  const out: PinValues = {}
  for (const pin of pinsOf(c)) out[pin] = c.reset_values[pin] ?? null
  return out
}

type Err = (field: string, reason: string) => void

function values(v: unknown, field: string, pins: readonly string[], err: Err, emptyOk: boolean): void {
  if (!isObject(v)) { err(field, 'must be an object of pin name to number or null'); return }
  const keys = Object.keys(v)
  if (keys.length === 0 && !emptyOk) err(field, 'must set at least one pin')
  for (const k of keys) {
    if (!pins.includes(k)) err(`${field}.${k}`, pins.length ? `not a mapped pin of the component (mapped: ${pins.join(', ')})` : 'not a mapped pin: the component has no pin mapped to a datapoint')
    const x = v[k]
    if (x !== null && (typeof x !== 'number' || !Number.isFinite(x))) err(`${field}.${k}`, 'must be a number or null (null releases)')
  }
}

function program(list: unknown, field: string, pins: readonly string[], err: Err, week: boolean): void {
  if (!Array.isArray(list)) { err(field, 'must be an array of switching times'); return }
  if (week && list.length === 0) err(field, 'must hold at least one switching time')
  if (list.length > MAX_ENTRIES) { err(field, `at most ${MAX_ENTRIES} switching times`); return }
  const seen = new Map<string, string>() // "day time pin" -> field of the entry that set it
  list.forEach((e, i) => {
    const at = `${field}[${i}]`
    if (!isObject(e)) { err(at, 'must be an object with time and values'); return }
    const allowed = week ? ['days', 'time', 'values'] : ['time', 'values']
    for (const k of Object.keys(e)) if (!allowed.includes(k)) err(`${at}.${k}`, `unknown field (known: ${allowed.join(', ')})`)
    let days: string[] = ['holiday']
    if (week) {
      if (!Array.isArray(e.days) || e.days.length === 0) { err(`${at}.days`, `must be a non-empty array of ${DAYS.join(', ')}`); days = [] } else {
        days = []
        e.days.forEach((d, k) => {
          if (typeof d !== 'string' || !(DAYS as readonly string[]).includes(d)) err(`${at}.days[${k}]`, `must be one of ${DAYS.join(', ')}`)
          else if (days.includes(d)) err(`${at}.days[${k}]`, `${d} is listed twice`)
          else days.push(d)
        })
      }
    }
    const timeOk = typeof e.time === 'string' && TIME.test(e.time)
    if (!timeOk) err(`${at}.time`, 'must be a local time HH:MM (00:00 to 23:59)')
    if (e.values === undefined) { err(`${at}.values`, 'is required'); return }
    values(e.values, `${at}.values`, pins, err, false)
    if (!timeOk || !isObject(e.values)) return
    for (const d of days) {
      for (const pin of Object.keys(e.values)) {
        const key = `${d} ${e.time as string} ${pin}`
        const before = seen.get(key)
        if (before) err(`${at}.values.${pin}`, `${d === 'holiday' ? '' : d + ' '}${e.time as string} already sets ${pin} in ${before}`)
        else seen.set(key, at)
      }
    }
  })
}
