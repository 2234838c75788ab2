// The holiday calendar (core/schedule/holidays.ts): single dates, ranges (end inclusive),
// yearly ones (also across the new year and on 29 February), validation naming the field.
import t from 'tap'
import { holidayLookup, holidaysIn, validateHolidays, dayOf, type HolidayRule } from '../../core/schedule/holidays.ts'

const RULES: HolidayRule[] = [
  { name: 'Reformation Day', date: '2026-10-31' },
  { name: 'Christmas', date: '2020-12-24', end: '2020-12-26', yearly: true },
  { name: 'Plant shutdown', date: '2026-08-03', end: '2026-08-14' },
  { name: 'New Year', date: '2000-12-31', end: '2001-01-01', yearly: true },
  { name: 'Leap', date: '2024-02-29', yearly: true },
  { name: 'Boxing day again', date: '2026-12-26' },
]

t.test('single dates, ranges and yearly rules', async (t) => {
  t.same(validateHolidays(RULES), [])
  t.same(holidaysIn(RULES, '2026-10-30', '2026-11-01'), [{ date: '2026-10-31', name: 'Reformation Day' }])
  t.same(holidaysIn(RULES, '2027-10-30', '2027-11-01'), [], 'a single date does not recur')
  const aug = holidaysIn(RULES, '2026-08-01', '2026-08-31')
  t.equal(aug.length, 12, 'a range counts both ends')
  t.same([aug[0].date, aug[11].date], ['2026-08-03', '2026-08-14'])
  t.same(holidaysIn(RULES, '2026-12-23', '2027-01-02').map((h) => `${h.date} ${h.name}`), [
    '2026-12-24 Christmas', '2026-12-25 Christmas', '2026-12-26 Christmas', '2026-12-31 New Year', '2027-01-01 New Year',
  ], 'yearly ranges recur in other years (before the rule\'s year too), across the new year; overlaps named by the first rule')
  t.same(holidaysIn(RULES, '2027-01-01', '2027-01-01'), [{ date: '2027-01-01', name: 'New Year' }], 'the new-year range reaches into a range starting on 1 January')
  t.same(holidaysIn(RULES, '2027-02-28', '2027-03-01'), [], '29 February recurs in leap years only')
  t.same(holidaysIn(RULES, '2028-02-29', '2028-02-29'), [{ date: '2028-02-29', name: 'Leap' }])
  t.same(holidaysIn([], '2026-01-01', '2026-12-31'), [])
  t.throws(() => holidaysIn(RULES, '2026-02-30', '2026-03-01'), RangeError)
  const on = holidayLookup(RULES)
  t.equal(on(dayOf('2031-12-25')!), 'Christmas')
  t.equal(on(dayOf('2031-12-27')!), undefined)
})

t.test('validation names the field and the reason', async (t) => {
  const cases: [unknown, string, RegExp][] = [
    [{}, 'holidays', /array/],
    [[3], 'holidays[0]', /object/],
    [[{ date: '2026-01-01' }], 'holidays[0].name', /non-empty/],
    [[{ name: ' ', date: '2026-01-01' }], 'holidays[0].name', /non-empty/],
    [[{ name: 'x', date: '2026-02-30' }], 'holidays[0].date', /YYYY-MM-DD/],
    [[{ name: 'x', date: '26-01-01' }], 'holidays[0].date', /YYYY-MM-DD/],
    [[{ name: 'x', date: '2026-01-05', end: '2026-01-04' }], 'holidays[0].end', /before date 2026-01-05/],
    [[{ name: 'x', date: '2026-01-05', end: '2027-01-06' }], 'holidays[0].end', /at most 366 days/],
    [[{ name: 'x', date: '2026-01-05', end: '2026-13-01' }], 'holidays[0].end', /YYYY-MM-DD/],
    [[{ name: 'x', date: '2026-01-01', end: '2027-01-01', yearly: true }], 'holidays[0].end', /less than a year/],
    [[{ name: 'x', date: '2026-01-01', yearly: 'yes' }], 'holidays[0].yearly', /true or false/],
    [[{ name: 'x', date: '2026-01-01', when: 'always' }], 'holidays[0].when', /unknown field/],
  ]
  for (const [list, field, reason] of cases) {
    const errors = validateHolidays(list)
    const hit = errors.find((e) => e.field === field)
    t.ok(hit, `${JSON.stringify(list)} → ${field} (got ${JSON.stringify(errors)})`)
    if (hit) t.match(hit.reason, reason)
  }
  t.match(validateHolidays(Array.from({ length: 1001 }, () => ({ name: 'x', date: '2026-01-01' })))[0], { reason: /at most 1000/ })
})
