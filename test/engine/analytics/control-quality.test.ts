// Control quality on one day: setpoint 21 °C written once; the room at 21 °C for 20 hours
// and 23 °C for 4 hours: within ±1 K 20/24 = 83.3 %, bias 8/24 = 0.33 K, RMS sqrt(16/24).
import t from 'tap'
import { controlQuality } from '../../../engine/analytics/functions/control-quality.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, hourOf, pins, tempStore, writeSeries } from './helpers.ts'

const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))

t.test('control quality', async (t) => {
  const store = await tempStore(t)
  const end = MON + DAY
  await writeSeries(store, 1, MON, end, 5 * MIN, (t) => (hourOf(t) >= 12 && hourOf(t) < 16 ? 23 : 21))
  await store.append([{ series: 2, time: MON, value: 21 }])
  // Supply air swinging ±2 K around 18 °C every quarter hour; fan off 00-06.
  await writeSeries(store, 3, MON, end, 15 * MIN, (t) => 18 + ((t - MON) / (15 * MIN) % 2 === 0 ? 2 : -2))
  await store.append([{ series: 4, time: MON, value: 18 }])
  await store.append([{ series: 5, time: MON, value: 0 }, { series: 5, time: MON + 6 * HOUR, value: 1 }])
  const base = { fn: controlQuality, store, component: 'room', seriesOfPin: pins({ room_temp: 1, room_temp_setpoint: 2 }), attributes: {}, start: MON, end }

  t.test('room', async (t) => {
    const r = await runAnalysis(base)
    t.same(kpis(r), { 'Share of time within tolerance': 83.3, 'Mean deviation (bias)': 0.33, 'Mean absolute deviation': 0.33, 'RMS deviation': 0.82, 'Hours evaluated': 24 })
    t.equal(r.signal_color, 'yellow')
    t.match(r.en.recommendation[0], /stays above its setpoint/)
    t.match(r.de.interpretation, /83,3 %/)
  })

  t.test('air handling unit: oscillation, fan gate', async (t) => {
    const ahu = { ...base, component: 'air_handling_unit', seriesOfPin: pins({ supply_air_temp: 3, supply_air_temp_setpoint: 4 }) }
    const r = await runAnalysis(ahu)
    t.same(kpis(r), { 'Share of time within tolerance': 0, 'Mean deviation (bias)': 0, 'Mean absolute deviation': 2, 'RMS deviation': 2, 'Hours evaluated': 24 })
    t.equal(r.signal_color, 'red')
    t.match(r.en.recommendation[0], /swings around/)
    const gated = await runAnalysis({ ...ahu, seriesOfPin: pins({ supply_air_temp: 3, supply_air_temp_setpoint: 4, fan_state: 5 }) })
    t.equal(kpis(gated)['Hours evaluated'], 18)
  })

  t.test('heating circuit tolerance 3 K', async (t) => {
    const r = await runAnalysis({ ...base, component: 'heating_circuit', seriesOfPin: pins({ flow_temp: 1, flow_temp_setpoint: 2 }) })
    t.equal(kpis(r)['Share of time within tolerance'], 100)
    t.equal(r.signal_color, 'green')
    t.same(r.en.recommendation, [])
  })

  t.test('statuses', async (t) => {
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ room_temp: 1 }) })).status, 'missing_pins')
    t.equal((await runAnalysis({ ...base, start: end, end: end + DAY })).status, 'no_data')
    // A setpoint without any value.
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ room_temp: 1, room_temp_setpoint: 99 }) })).status, 'insufficient_data')
    // The setpoint written once before the range still holds in it.
    const later = await runAnalysis({ ...base, start: MON + HOUR, end: MON + 6 * HOUR })
    t.equal(kpis(later)['Share of time within tolerance'], 100)
  })
})
