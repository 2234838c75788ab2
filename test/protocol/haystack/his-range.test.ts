// hisRead ranges (protocol/haystack/his-range.ts) against the forms of the standard's Ops page
// (project-haystack.org/doc/Ops#hisRead): today, yesterday, a date, two dates (both days
// included), two date-times, one date-time (from it on); days are local days of the point's
// zone, so DST days last 23 and 25 hours; anything else is refused with a message naming it.
import t from 'tap'
import { parseHisRange } from '../../../protocol/haystack/his-range.ts'

const us = (iso: string) => Date.parse(iso) * 1000
const H = 3_600_000_000

t.test('a date is its local day in the zone, midnight to midnight', async (t) => {
  t.same(parseHisRange('2011-06-07', 'America/New_York', 0), { start: us('2011-06-07T04:00:00Z'), end: us('2011-06-08T04:00:00Z') })
  t.same(parseHisRange('2024-03-15', 'UTC', 0), { start: us('2024-03-15T00:00:00Z'), end: us('2024-03-16T00:00:00Z') })
})

t.test('two dates include the last day whole', async (t) => {
  t.same(parseHisRange('2011-06-07,2011-06-09', 'America/New_York', 0), { start: us('2011-06-07T04:00:00Z'), end: us('2011-06-10T04:00:00Z') })
  t.same(parseHisRange(' 2024-01-01 , 2024-12-31 ', 'UTC', 0), { start: us('2024-01-01T00:00:00Z'), end: us('2025-01-01T00:00:00Z') }, 'a leap year: 366 days')
  t.throws(() => parseHisRange('2024-03-02,2024-03-01', 'UTC', 0), /end date 2024-03-01 lies before the start date 2024-03-02/)
})

t.test('DST days last 23 and 25 hours', async (t) => {
  const spring = parseHisRange('2024-03-31', 'Europe/Berlin', 0)
  t.equal(spring.start, us('2024-03-30T23:00:00Z'))
  t.equal(spring.end! - spring.start, 23 * H)
  const autumn = parseHisRange('2024-10-27', 'Europe/Berlin', 0)
  t.equal(autumn.start, us('2024-10-26T22:00:00Z'))
  t.equal(autumn.end! - autumn.start, 25 * H)
  const ny = parseHisRange('2024-03-10', 'America/New_York', 0)
  t.equal(ny.end! - ny.start, 23 * H, 'New York springs forward on 10 March 2024')
})

t.test('today and yesterday are local days of now in the zone', async (t) => {
  // 2024-03-31 00:30 in Berlin (CET, before the change) is 2024-03-30T23:30Z.
  const now = us('2024-03-30T23:30:00Z')
  t.same(parseHisRange('today', 'Europe/Berlin', now), { start: us('2024-03-30T23:00:00Z'), end: us('2024-03-31T22:00:00Z') })
  t.same(parseHisRange('yesterday', 'Europe/Berlin', now), { start: us('2024-03-29T23:00:00Z'), end: us('2024-03-30T23:00:00Z') })
  t.same(parseHisRange('today', 'UTC', now), { start: us('2024-03-30T00:00:00Z'), end: us('2024-03-31T00:00:00Z') }, 'the same instant is still the 30th in UTC')
})

t.test('date-times: the offset fixes the instant; one date-time reads from it on', async (t) => {
  t.same(parseHisRange('2011-06-07T12:00:00-04:00 New_York,2011-06-07T14:00:00-04:00 New_York', 'America/New_York', 0),
    { start: us('2011-06-07T16:00:00Z'), end: us('2011-06-07T18:00:00Z') })
  t.same(parseHisRange('2024-03-31T03:00:00+02:00 Berlin', 'Europe/Berlin', 0), { start: us('2024-03-31T01:00:00Z'), end: undefined })
  t.same(parseHisRange('2024-01-01T00:00:00Z UTC,2024-01-01T00:00:01.5Z UTC', 'UTC', 0), { start: us('2024-01-01T00:00:00Z'), end: us('2024-01-01T00:00:01Z') + 500_000 })
  t.same(parseHisRange('2024-01-01T00:00:00.1234567Z', 'UTC', 0).start, us('2024-01-01T00:00:00Z') + 123_456, 'below a µs is cut off')
  t.same(parseHisRange('2024-01-01T10:15Z', 'UTC', 0).start, us('2024-01-01T10:15:00Z'), 'seconds are optional in Zinc')
  t.throws(() => parseHisRange('2024-01-02T00:00:00Z,2024-01-01T00:00:00Z', 'UTC', 0), /end 2024-01-01T00:00:00Z lies before the start/)
})

t.test('other texts are refused by name', async (t) => {
  for (const bad of ['', 'tomorrow', 'last week', '2024-13-01', '2024-02-30', '2024-01-01,', '2024-01-01,2024-01-02,2024-01-03',
    '2024-01-01,2024-01-01T00:00:00Z', '2024-01-01T25:00:00Z', '2024-01-01T00:00:00', '20240101']) {
    t.throws(() => parseHisRange(bad, 'UTC', 0), { name: 'HisRangeError' }, `'${bad}'`)
  }
  t.throws(() => parseHisRange('tomorrow', 'UTC', 0), /hisRead range 'tomorrow' is not one the standard defines: use today, yesterday/)
  t.throws(() => parseHisRange('2024-02-30', 'UTC', 0), /'2024-02-30' is not a calendar date/)
})
