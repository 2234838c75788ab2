// Simultaneous heating and cooling on one day: heating valve 40 % from 00 to 12, cooling
// valve 30 % from 10 to 24, both written on change: 2 h of 24 together (8.3 %), overlap 30 %.
import t from 'tap'
import { simultaneousHeatingCooling } from '../../../engine/analytics/functions/simultaneous-heating-cooling.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, hourOf, pins, tempStore, writeSeries } from './helpers.ts'

const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))

t.test('simultaneous heating and cooling', async (t) => {
  const store = await tempStore(t)
  const end = MON + DAY
  await store.append([{ series: 1, time: MON, value: 40 }, { series: 1, time: MON + 12 * HOUR, value: 0 }])
  await store.append([{ series: 2, time: MON, value: 0 }, { series: 2, time: MON + 10 * HOUR, value: 30 }])
  // The same as fractions 0-1, every 5 minutes; cooling only 11:30-12:00 (0.5 h, 2.1 %).
  await writeSeries(store, 3, MON, end, 5 * MIN, (t) => (hourOf(t) < 12 ? 0.4 : 0))
  await writeSeries(store, 4, MON, end, 5 * MIN, (t) => (hourOf(t) >= 11.5 && hourOf(t) < 12 ? 0.3 : 0.02))
  const base = { fn: simultaneousHeatingCooling, store, component: 'room', seriesOfPin: pins({ heating_valve: 1, cooling_valve: 2 }), attributes: {}, start: MON, end }

  t.test('per cent, written on change', async (t) => {
    const r = await runAnalysis(base)
    t.same(kpis(r), { 'Hours of simultaneous heating and cooling': 2, 'Share of time': 8.3, 'Mean overlap of the valves': 30, 'Hours evaluated': 24 })
    t.equal(r.signal_color, 'red')
    t.equal(r.de.recommendation.length, 1)
  })

  t.test('fractions every 5 minutes, air handling unit', async (t) => {
    const r = await runAnalysis({ ...base, component: 'air_handling_unit', seriesOfPin: pins({ heating_valve: 3, cooling_valve: 4 }) })
    t.same(kpis(r), { 'Hours of simultaneous heating and cooling': 0.5, 'Share of time': 2.1, 'Mean overlap of the valves': 30, 'Hours evaluated': 24 })
    t.equal(r.signal_color, 'yellow')
    t.match(r.en.info[0], /0-1/)
  })

  t.test('positions written before the range hold in it', async (t) => {
    const r = await runAnalysis({ ...base, start: MON + 11 * HOUR })
    t.equal(kpis(r)['Hours of simultaneous heating and cooling'], 1)
    t.equal(kpis(r)['Hours evaluated'], 13)
    t.equal(kpis(r)['Share of time'], 7.7)
  })

  t.test('no overlap', async (t) => {
    const r = await runAnalysis({ ...base, start: MON + 12 * HOUR })
    t.equal(kpis(r)['Share of time'], 0)
    t.equal(kpis(r)['Hours evaluated'], 12)
    t.equal(r.signal_color, 'green')
    t.same(r.en.recommendation, [])
  })

  t.test('statuses', async (t) => {
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ heating_valve: 1 }) })).status, 'missing_pins')
    t.equal((await runAnalysis({ ...base, component: 'heating_circuit' })).status, 'not_applicable')
    t.equal((await runAnalysis({ ...base, start: MON - DAY, end: MON })).status, 'no_data')
    t.equal((await runAnalysis({ ...base, start: end, end: end + DAY })).status, 'success', 'positions before the range hold')
  })
})
