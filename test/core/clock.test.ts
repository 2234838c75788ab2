// The clock and schedules of core/clock: the virtual clock runs timers in due order with now()
// at their due time (what the runtimes' tests rely on instead of sleeping), the system clock
// never fires early, and the calendar primitive of issue 31's schedules keeps wall times across
// DST: a missing time runs at the end of the gap, a repeated one runs once. A seeded property
// compares nextLocalTime with a minute-by-minute scan in zones with and without DST.
import t from 'tap'
import { IANAZone } from 'luxon'
import { every, MINUTE_US, SECOND_US, systemClock, DAY_US, HOUR_US } from '../../core/clock/clock.ts'
import { VirtualClock } from '../../core/clock/virtual-clock.ts'
import { localDate, nextLocalTime, wallTime } from '../../core/clock/calendar.ts'
import { nextCron } from '../../core/clock/cron.ts'

const us = (iso: string) => Date.parse(iso) * 1000
const iso = (u: number | undefined) => (u === undefined ? 'none' : new Date(u / 1000).toISOString())

t.test('virtual clock: due order, now() at each due time, timers set by timers, cancel', async (t) => {
  const c = new VirtualClock(0)
  const seen: string[] = []
  c.after(() => seen.push(`b@${c.now()}`), 20)
  c.after(() => { seen.push(`a@${c.now()}`); c.after(() => seen.push(`c@${c.now()}`), 5) }, 10)
  c.after(() => seen.push(`b2@${c.now()}`), 20)
  const cancel = c.after(() => seen.push('never'), 15)
  cancel(); cancel()
  t.equal(c.pending, 4 - 1)
  t.equal(c.advance(14), 1)
  t.same(seen, ['a@10'])
  t.equal(c.now(), 14)
  t.equal(c.advance(100), 3)
  t.same(seen, ['a@10', 'c@15', 'b@20', 'b2@20'], 'equal due times in the order they were set')
  t.equal(c.now(), 114)
  t.equal(c.pending, 0)
  t.throws(() => c.advanceTo(100), RangeError, 'never backwards')
  c.at(() => seen.push(`past@${c.now()}`), 50)
  t.equal(c.nextAt, 114, 'a time in the past is due now')
  c.advance(0)
  t.equal(seen.at(-1), 'past@114')
})

t.test('every(): a day of minute ticks on the virtual clock, no drift, cancel stops it', async (t) => {
  const c = new VirtualClock(0)
  const ticks: number[] = []
  const cancel = every(c, () => ticks.push(c.now()), MINUTE_US)
  c.advance(DAY_US)
  t.equal(ticks.length, 1440)
  t.ok(ticks.every((x, i) => x === (i + 1) * MINUTE_US), 'each on its minute')
  cancel()
  c.advance(DAY_US)
  t.equal(ticks.length, 1440)
  t.equal(c.pending, 0)
  t.throws(() => every(c, () => {}, 0), RangeError)
})

t.test('settle(): promise chains started by a timer finish before the next timer runs', async (t) => {
  const c = new VirtualClock(0)
  const log: string[] = []
  c.after(() => { void Promise.resolve().then(() => Promise.resolve()).then(() => log.push('first done')) }, 10)
  c.after(() => log.push('second'), 20)
  t.equal(await c.settle(30), 2)
  t.same(log, ['first done', 'second'])
})

t.test('system clock: µs integers, a timer never fires before its time, cancel works', async (t) => {
  // The clock's timers are unref'd (they never keep a process alive): hold the loop open here.
  const hold = setInterval(() => {}, 1_000)
  t.teardown(() => clearInterval(hold))
  const a = systemClock.now()
  t.ok(Number.isSafeInteger(a) && Math.abs(a - Date.now() * 1000) < 1_000_000)
  const due = systemClock.now() + 30_000
  const at = await new Promise<number>((resolve) => { systemClock.at(() => resolve(systemClock.now()), due) })
  t.ok(at >= due, `fired at ${at}, due ${due}`)
  let ran = false
  const cancel = systemClock.after(() => { ran = true }, 1_000)
  cancel()
  await new Promise<void>((resolve) => { systemClock.after(resolve, 20_000) }) // a later timer ran, so the cancelled one would have
  t.equal(ran, false)
})

t.test('calendar: a switching time in Europe/Berlin across both DST changes', async (t) => {
  const z = 'Europe/Berlin'
  t.equal(iso(nextLocalTime(us('2024-03-30T12:00:00Z'), z, wallTime('02:30'))), '2024-03-31T01:00:00.000Z', 'missing 02:30 on the spring day runs at 03:00 local, the next valid minute')
  t.equal(iso(nextLocalTime(us('2024-03-31T01:00:00Z'), z, wallTime('02:30'))), '2024-04-01T00:30:00.000Z', 'then the next day, at 02:30 CEST')
  t.equal(iso(nextLocalTime(us('2024-10-26T12:00:00Z'), z, wallTime('02:30'))), '2024-10-27T00:30:00.000Z', 'repeated 02:30 in autumn: the first (CEST) one')
  t.equal(iso(nextLocalTime(us('2024-10-27T00:30:00Z'), z, wallTime('02:30'))), '2024-10-28T01:30:00.000Z', 'and not again in the repeated hour: next day, CET')
  t.equal(iso(nextLocalTime(us('2024-10-27T01:00:00Z'), z, wallTime('02:30'))), '2024-10-28T01:30:00.000Z', 'from inside the repeated hour too')
  t.equal(iso(nextLocalTime(us('2024-07-01T05:59:59.999999Z'), z, wallTime('08:00'))), '2024-07-01T06:00:00.000Z')
  t.equal(iso(nextLocalTime(us('2024-07-01T06:00:00Z'), z, wallTime('08:00'))), '2024-07-02T06:00:00.000Z', 'strictly after: a time that ran is done')
})

t.test('calendar: weekdays and holidays, a zone west of UTC, the horizon', async (t) => {
  const z = 'America/New_York'
  const workdays = (holidays: Set<string>) => (d: { weekday: number; date: string }) => d.weekday <= 5 && !holidays.has(d.date)
  // Friday 2024-07-05 18:00 local is after 07:00: next is Monday 07-08, unless it is a holiday.
  const fri = us('2024-07-05T22:00:00Z')
  t.equal(iso(nextLocalTime(fri, z, wallTime('07:00'), { on: workdays(new Set()) })), '2024-07-08T11:00:00.000Z')
  t.equal(iso(nextLocalTime(fri, z, wallTime('07:00'), { on: workdays(new Set(['2024-07-08'])) })), '2024-07-09T11:00:00.000Z')
  // 23:30 local is already the next UTC day.
  t.equal(iso(nextLocalTime(us('2024-01-10T12:00:00Z'), z, wallTime('23:30'))), '2024-01-11T04:30:00.000Z')
  t.equal(nextLocalTime(fri, z, wallTime('07:00'), { on: () => false, horizonDays: 30 }), undefined)
  t.same(localDate(19_912), { day: 19_912, weekday: 1, date: '2024-07-08' })
  t.throws(() => wallTime('24:00'), RangeError)
  t.throws(() => nextLocalTime(fri, 'Mars/Base', wallTime('07:00')), RangeError)
})

t.test('calendar, seeded property: nextLocalTime equals a minute-by-minute scan', async (t) => {
  // The scan: for each local date, the first minute whose local time reaches the wall time on
  // that date; the answer is the earliest of those after the start.
  let seed = 20_261_127
  const rand = () => { seed = (seed * 1_103_515_245 + 12_345) % 2 ** 31; return seed / 2 ** 31 }
  const zones = ['Europe/Berlin', 'America/New_York', 'Australia/Lord_Howe', 'Asia/Kathmandu', 'UTC']
  // Starts near the DST changes of 2024 (both hemispheres) and at random through the year.
  const near = ['2024-03-30T00:00:00Z', '2024-03-09T12:00:00Z', '2024-10-26T00:00:00Z', '2024-11-02T12:00:00Z', '2024-04-06T00:00:00Z', '2024-10-05T00:00:00Z'].map(us)
  let checked = 0
  for (let i = 0; i < 60; i++) {
    const zone = zones[i % zones.length]
    const z = IANAZone.create(zone)
    const start = i % 2 === 0 ? near[i % near.length] + Math.floor(rand() * 2 * DAY_US) : us('2024-01-01T00:00:00Z') + Math.floor(rand() * 365 * DAY_US)
    const time = { hour: Math.floor(rand() * 24), minute: Math.floor(rand() * 60) }
    const wall = (time.hour * 60 + time.minute) * 60_000
    // Offsets change on whole quarter hours of UTC in these zones: one look-up per quarter.
    const quarters = new Map<number, number>()
    const offset = (ms: number) => { const q = Math.floor(ms / 900_000); let o = quarters.get(q); if (o === undefined) { o = z.offset(q * 900_000) * 60_000; quarters.set(q, o) } return o }
    const local = (ms: number) => ms + offset(ms)
    const firstMinute = Math.floor(start / 1000 / 60_000) * 60_000 - 86_400_000
    const crossing = new Map<number, number>()
    for (let ms = firstMinute; ms < firstMinute + 3 * 86_400_000; ms += 60_000) {
      const l = local(ms)
      const day = Math.floor(l / 86_400_000)
      for (const d of [day - 1, day]) if (!crossing.has(d) && l >= d * 86_400_000 + wall) crossing.set(d, ms)
    }
    const want = Math.min(...[...crossing.values()].filter((ms) => ms * 1000 > start)) * 1000
    const got = nextLocalTime(start, zone, time)
    if (got !== want) t.fail(`${zone} ${time.hour}:${time.minute} after ${iso(start)}: ${iso(got)} != ${iso(want)}`)
    checked++
  }
  t.equal(checked, 60)
})

t.test('cron in a zone', async (t) => {
  t.equal(iso(nextCron('0 8 * * 1-5', us('2024-07-05T07:00:00Z'), 'Europe/Berlin')), '2024-07-08T06:00:00.000Z', 'weekdays at 08:00 Berlin')
  t.equal(iso(nextCron('*/15 * * * *', us('2024-07-05T07:00:00Z'))), '2024-07-05T07:15:00.000Z', 'strictly after, UTC by default')
  t.equal(nextCron('0 * * * *', 0) % HOUR_US, 0)
  t.equal(SECOND_US, 1_000_000)
  t.throws(() => nextCron('not cron', 0))
})
