// Operating hours and cycling on a day built with 10 cycles: 6 short ones (6 min on,
// 12 min off from 01:00) and 4 long ones (30 min on, 30 min off from 04:00), on the
// function's 3-minute grid. Expected: 10 starts, 6 short cycles (60 %), 2.6 operating
// hours, 10 / 2.6 = 3.85 starts an hour, mean run 15.6 min: red.
import t from 'tap'
import { operatingCycles } from '../../../engine/analytics/functions/operating-cycles.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, pins, tempStore, writeSeries } from './helpers.ts'

const on = (t: number) => {
  const m = (t - MON) / MIN
  if (m >= 60 && m < 168) return (m - 60) % 18 < 6
  if (m >= 240 && m < 480) return (m - 240) % 60 < 30
  return false
}
const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))
const expected = { 'Operating hours': 2.6, Starts: 10, 'Starts per operating hour': 3.85, 'Mean run time per cycle': 15.6, 'Short cycles': 6, 'Short cycle share': 60 }

t.test('operating cycles', async (t) => {
  const store = await tempStore(t)
  const end = MON + DAY
  await writeSeries(store, 1, MON, end, MIN, (t) => (on(t) ? 1 : 0)) // burner_state every minute
  await writeSeries(store, 2, MON, end, MIN, (t) => (on(t) ? 20 : 0.3)) // fuel_power kW
  // Written only on change: the state holds until the next sample.
  await writeSeries(store, 3, MON, end, MIN, (t) => (t === MON || on(t) !== on(t - MIN) ? (on(t) ? 1 : 0) : undefined))
  const base = { fn: operatingCycles, store, component: 'boiler', seriesOfPin: pins({ burner_state: 1 }), attributes: {}, start: MON, end }

  t.test('burner state every minute', async (t) => {
    const r = await runAnalysis(base)
    t.equal(r.status, 'success')
    t.same(kpis(r), expected)
    t.equal(r.signal_color, 'red')
    t.equal(r.en.recommendation.length, 1)
    t.equal(r.de.kpi[4].name, 'Kurztakte')
    t.match(r.de.interpretation, /10 Starts/)
  })

  t.test('burner state written on change only', async (t) => {
    t.same(kpis(await runAnalysis({ ...base, seriesOfPin: pins({ burner_state: 3 }) })), expected)
  })

  t.test('alternative: fuel power above 5 % of rated power, or of the largest power seen', async (t) => {
    t.same(kpis(await runAnalysis({ ...base, seriesOfPin: pins({ fuel_power: 2 }), attributes: { rated_power: '100' } })), expected)
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ fuel_power: 2 }) })
    t.same(kpis(r), expected)
    t.match(r.en.info[0], /fuel_power above 1\.00/)
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ fuel_power: 2, burner_state: 1 }) })).en.info[0].startsWith('On/off from burner_state'), true, 'the state is preferred')
  })

  t.test('heat pump compressor; min_cycle_minutes', async (t) => {
    const r = await runAnalysis({ ...base, component: 'heat_pump', seriesOfPin: pins({ compressor_state: 1 }), attributes: { min_cycle_minutes: '4' } })
    t.equal(kpis(r)['Short cycles'], 0)
    t.equal(kpis(r)['Starts'], 10)
    t.equal(r.signal_color, 'red', '3.85 starts an hour')
    // Only the long cycles (04:00-08:00): 4 starts in 2 operating hours.
    const long = await runAnalysis({ ...base, start: MON + 4 * HOUR - MIN })
    t.equal(kpis(long)['Starts per operating hour'], 2)
    t.equal(long.signal_color, 'yellow')
    const calm = await runAnalysis({ ...base, start: MON + 6 * HOUR - MIN })
    t.equal(kpis(calm)['Starts per operating hour'], 2)
    const idle = await runAnalysis({ ...base, start: MON + 9 * HOUR })
    t.equal(kpis(idle)['Operating hours'], 0)
    t.equal(idle.signal_color, 'green')
    t.match(idle.en.interpretation, /did not run/)
  })

  t.test('a 5-minute run off the 3-minute grid is one short cycle', async (t) => {
    await writeSeries(store, 6, MON + 9 * HOUR, MON + 12 * HOUR, MIN, (t) => (t >= MON + 10 * HOUR + MIN && t < MON + 10 * HOUR + 6 * MIN ? 1 : 0))
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ burner_state: 6 }), start: MON + 9 * HOUR, end: MON + 12 * HOUR })
    t.equal(kpis(r).Starts, 1)
    t.equal(kpis(r)['Short cycles'], 1)
    t.equal(kpis(r)['Mean run time per cycle'], 6, '10:01-10:06 fills the 10:03 bucket fully, 10:00 by 2/3')
  })

  t.test('statuses', async (t) => {
    const missing = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 9 }) })
    t.equal(missing.status, 'missing_pins')
    t.match(missing.en.info[0], /burner_state or fuel_power/)
    t.equal((await runAnalysis({ ...base, start: MON - DAY, end: MON })).status, 'no_data')
    // After the last sample the state in force (off) holds: a day without running.
    t.equal((r => kpis(r)['Operating hours'])(await runAnalysis({ ...base, start: end, end: end + DAY })), 0)
    t.equal((await runAnalysis({ ...base, attributes: { min_cycle_minutes: 'ten' } })).status, 'invalid_attributes')
  })
})
