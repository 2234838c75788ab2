import t from 'tap'
import { checkCron, CronRange } from '../../../engine/stream/cron-range.ts'

const iso = (s: string) => Date.parse(s) * 1000

t.test('checkCron: five fields only', async (t) => {
  for (const ok of ['0 8 * * *', '*/15 * * * *', '0 8 * * mon-fri', '30 6 1 1,4,7,10 *', ' 0 8 * * 1-5 ']) t.doesNotThrow(() => checkCron(ok), ok)
  for (const bad of ['', '* * * *', '0 0 8 * * *', '@daily', '61 * * * *', '0 25 * * *', '0 0 30 2 *', 'every day', '*/0 * * * *']) {
    t.throws(() => checkCron(bad), bad)
  }
})

t.test('windowOf: [start, end) in UTC', async (t) => {
  const r = new CronRange('0 8 * * 1-5', '0 17 * * 1-5') // weekdays 08-17 UTC
  const win = { start: iso('2024-03-29T08:00:00Z'), end: iso('2024-03-29T17:00:00Z') } // a Friday
  t.same(r.windowOf(iso('2024-03-29T08:00:00Z')), win, 'start inclusive')
  t.same(r.windowOf(iso('2024-03-29T16:59:59.999999Z') + 999), win)
  t.equal(r.windowOf(iso('2024-03-29T17:00:00Z')), undefined, 'end exclusive')
  t.equal(r.windowOf(iso('2024-03-30T12:00:00Z')), undefined, 'Saturday: between windows')
  t.equal(r.windowOf(iso('2024-03-29T07:59:59Z')), undefined, 'before the start of the day')
  t.same(r.windowOf(iso('2024-04-01T09:00:00Z')), { start: iso('2024-04-01T08:00:00Z'), end: iso('2024-04-01T17:00:00Z') }, 'Monday')
  t.same(r.windowOf(iso('2024-03-29T12:00:00Z')), win, 'going back works (cache refreshed)')
})

t.test('windowOf: µs just below a start belongs to the previous window', async (t) => {
  const r = new CronRange('0 * * * *', '0 * * * *')
  const h = iso('2024-03-31T01:00:00Z')
  t.same(r.windowOf(h - 1), { start: h - 3_600_000_000, end: h })
  t.same(r.windowOf(h), { start: h, end: h + 3_600_000_000 })
})
