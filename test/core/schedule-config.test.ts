// The configuration of a schedule app (core/schedule/config.ts): a valid body passes, each
// mistake is named by its JSON path and a reason, defaults are filled in.
import t from 'tap'
import { pinsOf, resetValues, scheduleConfig, validateScheduleConfig } from '../../core/schedule/config.ts'

const PINS = ['supply_temp_setpoint', 'pump']
const GOOD = {
  priority: 13, alive_timeout_s: 900, auto_recovery: true,
  reset_values: { supply_temp_setpoint: null },
  week: [
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '06:00', values: { supply_temp_setpoint: 21 } },
    { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '22:00', values: { supply_temp_setpoint: 16, pump: null } },
  ],
  holiday: [{ time: '00:00', values: { supply_temp_setpoint: 16 } }],
}

t.test('the contract\'s example is valid; defaults fill what is left out', async (t) => {
  t.same(validateScheduleConfig(GOOD, PINS), [])
  const minimal = { week: [{ days: ['sat'], time: '00:00', values: { pump: 1 } }] }
  t.same(validateScheduleConfig(minimal, PINS), [])
  const c = scheduleConfig(minimal)
  t.same(c, { priority: 13, alive_timeout_s: 900, auto_recovery: true, reset_values: {}, week: minimal.week, holiday: [] })
  t.same(pinsOf(scheduleConfig(GOOD)), ['pump', 'supply_temp_setpoint'])
  t.same(resetValues(scheduleConfig({ ...GOOD, reset_values: { pump: 0 } })), { pump: 0, supply_temp_setpoint: null }, 'null where no reset value is set')
})

t.test('each mistake names its field and the reason', async (t) => {
  const week = (e: object) => ({ week: [{ days: ['mon'], time: '06:00', values: { pump: 1 }, ...e }] })
  const cases: [unknown, string, RegExp][] = [
    [null, 'configuration', /object/],
    [[], 'configuration', /object/],
    [{ ...GOOD, colour: 'red' }, 'colour', /unknown field/],
    [{ ...GOOD, priority: 0 }, 'priority', /1 to 16/],
    [{ ...GOOD, priority: 13.5 }, 'priority', /integer/],
    [{ ...GOOD, alive_timeout_s: 59 }, 'alive_timeout_s', /60 to 604800/],
    [{ ...GOOD, alive_timeout_s: 604_801 }, 'alive_timeout_s', /60 to 604800/],
    [{ ...GOOD, auto_recovery: 'yes' }, 'auto_recovery', /true or false/],
    [{ ...GOOD, reset_values: { fan: 1 } }, 'reset_values.fan', /not a mapped pin .*supply_temp_setpoint, pump/],
    [{ ...GOOD, reset_values: { pump: 'off' } }, 'reset_values.pump', /number or null/],
    [{ ...GOOD, reset_values: [] }, 'reset_values', /object/],
    [{ priority: 13 }, 'week', /required/],
    [{ week: [] }, 'week', /at least one/],
    [{ week: 'mon 06:00' }, 'week', /array/],
    [{ week: [7] }, 'week[0]', /object/],
    [week({ days: [] }), 'week[0].days', /non-empty/],
    [week({ days: ['monday'] }), 'week[0].days[0]', /one of mon, tue/],
    [week({ days: ['mon', 'mon'] }), 'week[0].days[1]', /twice/],
    [week({ time: '24:00' }), 'week[0].time', /HH:MM/],
    [week({ time: '6:00' }), 'week[0].time', /HH:MM/],
    [week({ time: 600 }), 'week[0].time', /HH:MM/],
    [week({ values: {} }), 'week[0].values', /at least one pin/],
    [week({ values: undefined }), 'week[0].values', /required/],
    [week({ values: { pump: Number.NaN } }), 'week[0].values.pump', /number or null/],
    [week({ values: { fan: 1 } }), 'week[0].values.fan', /not a mapped pin/],
    [week({ every: 'day' }), 'week[0].every', /unknown field/],
    [{ week: [{ days: ['mon', 'tue'], time: '06:00', values: { pump: 1 } }, { days: ['tue'], time: '06:00', values: { pump: 0 } }] }, 'week[1].values.pump', /tue 06:00 already sets pump in week\[0\]/],
    [{ ...GOOD, holiday: {} }, 'holiday', /array/],
    [{ ...GOOD, holiday: [{ days: ['mon'], time: '00:00', values: { pump: 1 } }] }, 'holiday[0].days', /unknown field/],
    [{ ...GOOD, holiday: [{ time: '07:00', values: { pump: 1 } }, { time: '07:00', values: { pump: 2 } }] }, 'holiday[1].values.pump', /07:00 already sets pump in holiday\[0\]/],
  ]
  for (const [body, field, reason] of cases) {
    const errors = validateScheduleConfig(body, PINS)
    const hit = errors.find((e) => e.field === field)
    t.ok(hit, `${JSON.stringify(body)?.slice(0, 90)} → ${field} (got ${JSON.stringify(errors)})`)
    if (hit) t.match(hit.reason, reason, field)
  }
  t.same(validateScheduleConfig({ ...GOOD, week: [{ days: ['mon'], time: '06:00', values: { pump: 1, supply_temp_setpoint: 2 } }, { days: ['mon'], time: '06:00', values: { pump: 1 } }] }, PINS).map((e) => e.field),
    ['week[1].values.pump'], 'a shared time is refused only for the pin both set')
  t.match(validateScheduleConfig({ week: [{ days: ['mon'], time: '06:00', values: { pump: 1 } }] }, [])[0], { field: 'week[0].values.pump', reason: /no pin mapped/ })
  t.equal(validateScheduleConfig({ week: Array.from({ length: 701 }, () => ({})) }, PINS)[0]?.reason, 'at most 700 switching times')
})
