// Heating curve check on ten days of 10-minute data whose curve is known: outdoor
// temperature -10 + hour of day (-10 .. 13 °C), flow on the design curve shifted by 5 K.
import t from 'tap'
import { heatingCurve } from '../../../engine/analytics/functions/heating-curve.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, hourOf, pins, tempStore, writeSeries } from './helpers.ts'

// Defaults: (15 °C, 20 °C) to (-12 °C, 70 °C): slope -50/27 K/K.
const design = (out: number) => 20 - (50 / 27) * (out - 15)
const outdoor = (t: number) => -10 + Math.floor(hourOf(t))
const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))

t.test('heating curve', async (t) => {
  const store = await tempStore(t)
  const end = MON + 10 * DAY
  await writeSeries(store, 1, MON, end, 10 * MIN, (t) => design(outdoor(t)) + 5) // flow, shifted
  await writeSeries(store, 2, MON, end, 10 * MIN, outdoor)
  await writeSeries(store, 3, MON, end, 10 * MIN, () => 55) // flow, not compensated
  await writeSeries(store, 4, MON, end, 10 * MIN, (t) => (hourOf(t) < 6 ? 0 : 1)) // pump off 00-06
  const base = { fn: heatingCurve, store, component: 'heating_circuit', seriesOfPin: pins({ flow_temp: 1, outdoor_temp: 2 }), attributes: {}, start: MON, end }

  t.test('a curve 5 K above design: shift 5 K, slope -50/27, yellow', async (t) => {
    const r = await runAnalysis(base)
    t.equal(r.status, 'success')
    const k = kpis(r)
    t.equal(k['Mean deviation from design curve'], 5)
    t.equal(k['Measured curve slope'], -1.852)
    t.equal(k['Design curve slope'], -1.852)
    t.equal(k['Flow temperature at design outdoor temperature (fitted)'], 75)
    t.equal(k['Coefficient of determination R²'], 1)
    t.equal(k['Hours evaluated'], 240)
    t.equal(r.signal_color, 'yellow')
    t.match(r.en.recommendation[0], /Lower the heating curve by about 5\.0 K/)
    t.match(r.de.recommendation[0], /um etwa 5,0 K absenken/)
  })

  t.test('a constant flow of 55 °C: not weather-compensated, 10 K above on average, red', async (t) => {
    // Mean outdoor temperature 1.5 °C, design(1.5) = 45 °C.
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 3, outdoor_temp: 2 }) })
    const k = kpis(r)
    t.equal(k['Mean deviation from design curve'], 10)
    t.equal(k['Measured curve slope'], 0)
    t.equal(r.signal_color, 'red')
    t.ok(r.en.recommendation.some((x) => /weather compensation/.test(x)))
    t.ok(r.de.recommendation.some((x) => /witterungsgeführte/.test(x)))
  })

  t.test('pump off hours and the heating limit leave hours out', async (t) => {
    const pump = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1, outdoor_temp: 2, pump_state: 4 }) })
    t.equal(kpis(pump)['Hours evaluated'], 180)
    t.equal(kpis(pump)['Mean deviation from design curve'], 5)
    // Limit 10 °C: outdoor -10 .. 9 (20 hours a day); new design curve 20 - 50/22 (out - 10).
    const limited = await runAnalysis({ ...base, attributes: { heating_limit_temp: '10' } })
    t.equal(kpis(limited)['Hours evaluated'], 200)
    const expected = Array.from({ length: 20 }, (_, h) => design(h - 10) + 5 - (20 - (50 / 22) * (h - 10 - 10))).reduce((a, b) => a + b) / 20
    t.equal(kpis(limited)['Mean deviation from design curve'], Math.round(expected * 100) / 100)
    t.equal(kpis(limited)['Design curve slope'], -2.273)
  })

  t.test('statuses', async (t) => {
    const missing = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1 }) })
    t.equal(missing.status, 'missing_pins')
    t.match(missing.en.info[0], /outdoor_temp/)
    t.equal((await runAnalysis({ ...base, end: MON + 20 * HOUR })).status, 'insufficient_data')
    t.equal((await runAnalysis({ ...base, start: end, end: end + DAY })).status, 'no_data')
    t.equal((await runAnalysis({ ...base, attributes: { design_outdoor_temp: '20' } })).status, 'invalid_attributes')
    t.equal((await runAnalysis({ ...base, attributes: { design_flow_temp: '15' } })).status, 'invalid_attributes')
  })
})
