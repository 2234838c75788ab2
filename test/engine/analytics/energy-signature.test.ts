// Energy signature on 14 days whose signature is known: outdoor temperature 15 - d °C on
// day d (heating degree days d at base 15 °C), consumption 50 + 10 d kWh: slope 10 kWh/Kd,
// base load 50 kWh/d, R² 1; 1,610 kWh and 91 Kd in all.
import t from 'tap'
import { energySignature } from '../../../engine/analytics/functions/energy-signature.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, dayOf, pins, tempStore, writeSeries } from './helpers.ts'

const use = (d: number) => 50 + 10 * d
/** Counter reading at t: whole days before, plus the share of day d so far. */
const counter = (t: number) => {
  const d = dayOf(t)
  let sum = 0
  for (let k = 0; k < d; k++) sum += use(k)
  return sum + use(d) * ((t - MON - d * DAY) / DAY)
}
const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))
const exact = { 'Consumption per degree day (slope)': 10, 'Base load per day': 50, 'Coefficient of determination R²': 1, 'Days evaluated': 14, Consumption: 1610, 'Heating degree days': 91 }

t.test('energy signature', async (t) => {
  const store = await tempStore(t)
  const end = MON + 14 * DAY
  await writeSeries(store, 1, MON, end + 1, HOUR, counter) // energy counter kWh, hourly, incl. the closing midnight
  await writeSeries(store, 2, MON, end, 10 * MIN, (t) => 15 - dayOf(t)) // outdoor temperature
  await writeSeries(store, 3, MON, end, 10 * MIN, (t) => use(dayOf(t)) / 24) // heat power kW
  await writeSeries(store, 4, MON, end, 10 * MIN, () => 100 / 24) // weather-independent power
  const base = { fn: energySignature, store, component: 'heat_meter', seriesOfPin: pins({ energy: 1, outdoor_temp: 2 }), attributes: {}, start: MON, end }

  t.test('counter readings at midnight', async (t) => {
    const r = await runAnalysis(base)
    t.equal(r.status, 'success')
    t.same(kpis(r), exact)
    t.equal(r.signal_color, 'green')
    t.match(r.de.interpretation, /10,0 kWh/)
    t.equal(r.de.kpi[0].unit, 'kWh/Kd')
  })

  t.test('alternative: heat power; electricity meter', async (t) => {
    t.same(kpis(await runAnalysis({ ...base, seriesOfPin: pins({ heat_power: 3, outdoor_temp: 2 }) })), exact)
    const el = await runAnalysis({ ...base, component: 'electricity_meter', seriesOfPin: pins({ electric_power: 3, outdoor_temp: 2 }) })
    t.same(kpis(el), exact)
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ energy: 1, heat_power: 4, outdoor_temp: 2 }) })).en.kpi[0].value, 10, 'the counter is preferred')
  })

  t.test('Europe/Berlin days: 13 whole local days, still exactly linear', async (t) => {
    // Local day i = 1 h of UTC day i + 23 h of day i+1: HDD i + 23/24, use 50 + 10 (i + 23/24).
    const r = await runAnalysis({ ...base, timeZone: 'Europe/Berlin' })
    const k = kpis(r)
    t.equal(k['Days evaluated'], 13)
    t.equal(k['Consumption per degree day (slope)'], 10)
    t.equal(k['Base load per day'], 50)
    t.equal(k['Coefficient of determination R²'], 1)
  })

  t.test('weather-independent consumption: R² 0, red; base temperature', async (t) => {
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ heat_power: 4, outdoor_temp: 2 }) })
    t.equal(kpis(r)['Consumption per degree day (slope)'], 0)
    t.equal(kpis(r)['Base load per day'], 100)
    t.equal(r.signal_color, 'red')
    t.equal(r.en.recommendation.length, 1)
    // Base 20 °C: HDD d + 5, so the same line moves: base load 50 - 10 x 5.
    t.equal(kpis(await runAnalysis({ ...base, attributes: { base_temp: '20' } }))['Base load per day'], 0)
  })

  t.test('statuses', async (t) => {
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ energy: 1 }) })).status, 'missing_pins')
    const none = await runAnalysis({ ...base, seriesOfPin: pins({ outdoor_temp: 2 }) })
    t.equal(none.status, 'missing_pins')
    t.match(none.en.info[0], /energy or heat_power/)
    t.equal((await runAnalysis({ ...base, end: MON + 5 * DAY })).status, 'insufficient_data')
    t.equal((await runAnalysis({ ...base, end: MON + 20 * HOUR })).status, 'insufficient_data')
    t.equal((await runAnalysis({ ...base, start: MON - 3 * DAY, end: MON })).status, 'no_data')
  })
})
