// Switching times of a schedule (core/schedule/switching.ts): both DST changes of
// Europe/Berlin, holidays replacing a day's program, the value in force wrapping around the
// week, and a property test against a minute-by-minute reference built on luxon.
import t from 'tap'
import { DateTime } from 'luxon'
import { scheduleConfig, DAYS, type Day, type ScheduleConfig } from '../../core/schedule/config.ts'
import { nextSwitching, switchingTimes, valuesInForce, type Switching } from '../../core/schedule/switching.ts'
import { holidaysIn, type HolidayRule } from '../../core/schedule/holidays.ts'

const Z = 'Europe/Berlin'
const us = (iso: string) => Date.parse(iso) * 1000
const utc = (s: Switching) => new Date(s.timeUs / 1000).toISOString().slice(0, 16)
const every: Day[] = [...DAYS]

t.test('spring day: a time in the gap runs at 03:00; entries meeting there merge, the later wall time wins', async (t) => {
  const c = scheduleConfig({ week: [
    { days: every, time: '02:30', values: { a: 1, b: 1 } },
    { days: ['sun'], time: '03:00', values: { a: 2 } },
    { days: every, time: '06:00', values: { a: 3 } },
  ] })
  // 2026-03-29 is the last Sunday of March: 02:00 CET jumps to 03:00 CEST (01:00Z).
  const s = switchingTimes(c, [], Z, us('2026-03-28T00:00Z'), us('2026-03-30T06:00Z'))
  t.same(s.map((x) => [utc(x), x.local, x.values]), [
    ['2026-03-28T01:30', '2026-03-28T02:30', { a: 1, b: 1 }],
    ['2026-03-28T05:00', '2026-03-28T06:00', { a: 3 }],
    ['2026-03-29T01:00', '2026-03-29T03:00', { a: 2, b: 1 }],
    ['2026-03-29T04:00', '2026-03-29T06:00', { a: 3 }],
    ['2026-03-30T00:30', '2026-03-30T02:30', { a: 1, b: 1 }],
    ['2026-03-30T04:00', '2026-03-30T06:00', { a: 3 }],
  ])
})

t.test('autumn day: a repeated time runs once, at its first occurrence', async (t) => {
  const c = scheduleConfig({ week: [{ days: every, time: '02:30', values: { a: 1 } }, { days: every, time: '02:59', values: { a: 2 } }] })
  // 2026-10-25: 03:00 CEST falls back to 02:00 CET (01:00Z); 02:00-02:59 local happen twice.
  const s = switchingTimes(c, [], Z, us('2026-10-24T12:00Z'), us('2026-10-26T12:00Z'))
  t.same(s.map((x) => [utc(x), x.local]), [
    ['2026-10-25T00:30', '2026-10-25T02:30'], ['2026-10-25T00:59', '2026-10-25T02:59'],
    ['2026-10-26T01:30', '2026-10-26T02:30'], ['2026-10-26T01:59', '2026-10-26T02:59'],
  ])
})

t.test('a holiday replaces the day\'s program; an empty holiday program switches nothing', async (t) => {
  const week = [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as Day[], time: '06:00', values: { sp: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'] as Day[], time: '22:00', values: { sp: 16 } },
  ]
  const holidays: HolidayRule[] = [{ name: 'Reformation Day', date: '2025-10-31' }, { name: 'Christmas', date: '2000-12-24', end: '2000-12-26', yearly: true }]
  const withProgram = scheduleConfig({ week, holiday: [{ time: '00:00', values: { sp: 16 } }] })
  const fri = switchingTimes(withProgram, holidays, Z, us('2025-10-30T23:00Z'), us('2025-11-01T00:00Z'))
  t.same(fri.map((x) => [x.local, x.values, x.holiday]), [['2025-10-31T00:00', { sp: 16 }, 'Reformation Day']])
  const none = scheduleConfig({ week })
  t.same(switchingTimes(none, holidays, Z, us('2025-10-30T23:00Z'), us('2025-11-01T00:00Z')), [], 'Friday skipped')
  t.same(switchingTimes(none, holidays, Z, us('2031-12-23T23:00Z'), us('2031-12-27T23:00Z')).map((x) => x.local), [], 'yearly range, years later')
  t.same(valuesInForce(none, holidays, Z, us('2031-12-26T12:00Z')), { sp: 16 }, 'in force: the 22:00 of the Tuesday before')
  t.same(nextSwitching(none, holidays, Z, us('2031-12-24T00:00Z'))?.local, '2031-12-29T06:00', 'next: Monday after Christmas')
})

t.test('the value in force wraps around the week, per pin', async (t) => {
  const c = scheduleConfig({ week: [
    { days: ['sat'], time: '08:00', values: { a: 1 } },
    { days: ['wed'], time: '12:00', values: { b: null } },
  ] })
  // Monday 2026-06-01: a was set on Saturday, b on the Wednesday before (5 days back).
  t.same(valuesInForce(c, [], Z, us('2026-06-01T10:00Z')), { a: 1, b: null })
  t.same(valuesInForce(c, [], Z, us('2026-06-06T06:00Z')), { a: 1, b: null }, 'at the very instant of the switching it is in force')
  t.same(nextSwitching(c, [], Z, us('2026-06-06T06:00Z'))?.local, '2026-06-10T12:00', 'strictly after')
  t.throws(() => switchingTimes(c, [], Z, 0, us('2026-01-01T00:00Z')), RangeError)
  t.same(switchingTimes(c, [], Z, 10, 10), [])
})

// ---- property test against a reference that scans minutes with luxon ----

function rng(seed: number) {
  return () => { seed = (seed + 0x6d2b79f5) | 0; let x = Math.imul(seed ^ (seed >>> 15), 1 | seed); x ^= x + Math.imul(x ^ (x >>> 7), 61 | x); return ((x ^ (x >>> 14)) >>> 0) / 4294967296 }
}

/** Reference: for each local day, each entry at the first UTC minute reading its wall time, or the first after it. */
function reference(c: ScheduleConfig, holidays: HolidayRule[], zone: string, fromUs: number, toUs: number) {
  const out = new Map<number, { local: string; values: Record<string, number | null>; holiday?: string; order: number[] }>()
  const fromMs = fromUs / 1000; const toMs = toUs / 1000
  const start = DateTime.fromMillis(fromMs, { zone }).startOf('day').minus({ days: 1 })
  const end = DateTime.fromMillis(toMs, { zone }).plus({ days: 1 })
  for (let d = start; d <= end; d = d.plus({ days: 1 }).startOf('day')) {
    const date = d.toISODate()!
    const hol = holidaysIn(holidays, date, date)[0]?.name
    const entries = hol ? c.holiday.map((e, i) => ({ ...e, i })) : c.week.map((e, i) => ({ ...e, i })).filter((e) => e.days.includes(DAYS[d.weekday - 1]))
    for (const e of entries) {
      const want = `${date}T${e.time}`
      const minute = Number(e.time.slice(0, 2)) * 60 + Number(e.time.slice(3))
      let at: number | undefined
      // Elapsed minutes since local midnight differ from wall minutes by the DST shift (< 2 h): start 2 h early.
      for (let ms = d.startOf('day').toMillis() + Math.max(0, minute - 120) * 60_000; ms < d.endOf('day').toMillis(); ms += 60_000) {
        if (DateTime.fromMillis(ms, { zone }).toFormat("yyyy-MM-dd'T'HH:mm") >= want) { at = ms; break }
      }
      if (at === undefined || at < fromMs || at >= toMs) continue
      const prev = out.get(at)
      const local = DateTime.fromMillis(at, { zone }).toFormat("yyyy-MM-dd'T'HH:mm")
      if (!prev) out.set(at, { local, values: { ...e.values }, order: [minute, e.i], ...(hol ? { holiday: hol } : {}) })
      else {
        // the later wall time (then the later entry) wins a pin both set
        const later = minute > prev.order[0] || (minute === prev.order[0] && e.i > prev.order[1])
        prev.values = later ? { ...prev.values, ...e.values } : { ...e.values, ...prev.values }
        if (later) prev.order = [minute, e.i]
      }
    }
  }
  return [...out.entries()].sort((a, b) => a[0] - b[0]).map(([ms, v]) => ({ timeUs: ms * 1000, local: v.local, values: v.values, ...(v.holiday ? { holiday: v.holiday } : {}) }))
}

t.test('property: switching times equal the minute-scanning reference (random programs, DST weeks, holidays)', async (t) => {
  const r = rng(31)
  const pick = <T>(xs: readonly T[]) => xs[Math.floor(r() * xs.length)]
  const time = () => r() < 0.5 ? `0${1 + Math.floor(r() * 3)}:${pick(['00', '01', '30', '59'])}` : `${String(Math.floor(r() * 24)).padStart(2, '0')}:${String(Math.floor(r() * 60)).padStart(2, '0')}`
  const windows = ['2024-03-27', '2024-10-24', '2025-03-27', '2025-10-23', '2026-03-26', '2026-10-22', '2026-07-01', '2026-12-28']
  let compared = 0
  for (let round = 0; round < 60; round++) {
    const seen = new Set<string>()
    const entries = Array.from({ length: 1 + Math.floor(r() * 5) }, () => ({ days: DAYS.filter(() => r() < 0.5), time: time(), values: { [pick(['a', 'b'])]: r() < 0.2 ? null : Math.round(r() * 30) } }))
      .filter((e) => e.days.length > 0 && e.days.every((d) => !seen.has(`${d}${e.time}${Object.keys(e.values)[0]}`)) && (e.days.forEach((d) => seen.add(`${d}${e.time}${Object.keys(e.values)[0]}`)), true))
    if (entries.length === 0) continue
    const c = scheduleConfig({ week: entries, holiday: r() < 0.5 ? [] : [{ time: time(), values: { a: 99 } }] })
    const base = pick(windows)
    const holidays: HolidayRule[] = r() < 0.5 ? [] : [{ name: 'H', date: base.replace(/-(\d\d)$/, (_, d) => `-${String(Math.min(28, Number(d) + 2)).padStart(2, '0')}`), yearly: r() < 0.5 }]
    const zone = r() < 0.8 ? Z : pick(['America/New_York', 'UTC', 'Australia/Sydney'])
    const from = us(`${base}T00:00Z`) + Math.floor(r() * 24) * 3_600_000_000
    const to = from + (2 + Math.floor(r() * 4)) * 86_400_000_000
    const got = switchingTimes(c, holidays, zone, from, to)
    const want = reference(c, holidays, zone, from, to)
    t.same(got, want, `round ${round} ${zone} ${base} ${JSON.stringify(entries)} ${JSON.stringify(holidays)}`)
    compared += want.length
    // next/in-force agree with the list
    for (let i = 1; i < got.length; i++) t.equal(nextSwitching(c, holidays, zone, got[i - 1].timeUs)?.timeUs, got[i].timeUs)
  }
  t.ok(compared > 200, `compared ${compared} switching times`)
})
