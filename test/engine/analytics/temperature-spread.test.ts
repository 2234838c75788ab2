// Temperature spread on two days of 10-minute data: day 1 flow 60 / return 50 (10 K),
// day 2 flow 50 / return 47 (3 K).
import t from 'tap'
import { temperatureSpread } from '../../../engine/analytics/functions/temperature-spread.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, dayOf, hourOf, pins, tempStore, writeSeries } from './helpers.ts'

const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))

t.test('temperature spread', async (t) => {
  const store = await tempStore(t)
  const end = MON + 2 * DAY
  await writeSeries(store, 1, MON, end, 10 * MIN, (t) => (dayOf(t) === 0 ? 60 : 50))
  await writeSeries(store, 2, MON, end, 10 * MIN, (t) => (dayOf(t) === 0 ? 50 : 47))
  // Pump off in the second half of day 2 (written on change).
  await store.append([{ series: 3, time: MON, value: 1 }, { series: 3, time: MON + DAY + 12 * HOUR, value: 0 }])
  await writeSeries(store, 4, MON, end, 10 * MIN, (t) => (dayOf(t) === 1 && hourOf(t) >= 12 ? 0 : 1.5)) // volume_flow m³/h
  await writeSeries(store, 5, MON, end, 10 * MIN, () => 65) // return above flow
  const base = { fn: temperatureSpread, store, component: 'heating_circuit', seriesOfPin: pins({ flow_temp: 1, return_temp: 2 }), attributes: {}, start: MON, end }

  t.test('all hours: mean 6.5 K, half of the hours below 5 K', async (t) => {
    const r = await runAnalysis(base)
    t.same(kpis(r), { 'Mean temperature spread': 6.5, 'Share of hours with spread below 5 K': 50, 'Share of hours with negative spread': 0, 'Operating hours evaluated': 48 })
    t.equal(r.signal_color, 'green')
    t.equal(r.de.kpi[0].name, 'Mittlere Temperaturspreizung')
  })

  t.test('pump off hours left out: (24 x 10 + 12 x 3) / 36', async (t) => {
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1, return_temp: 2, pump_state: 3 }) })
    t.equal(kpis(r)['Mean temperature spread'], 7.67)
    t.equal(kpis(r)['Operating hours evaluated'], 36)
    t.equal(kpis(r)['Share of hours with spread below 5 K'], 33.3)
  })

  t.test('heat meter gated by volume flow', async (t) => {
    const r = await runAnalysis({ ...base, component: 'heat_meter', seriesOfPin: pins({ flow_temp: 1, return_temp: 2, volume_flow: 4 }) })
    t.equal(kpis(r)['Operating hours evaluated'], 36)
  })

  t.test('small and negative spreads', async (t) => {
    const low = await runAnalysis({ ...base, start: MON + DAY })
    t.equal(kpis(low)['Mean temperature spread'], 3)
    t.equal(low.signal_color, 'yellow')
    t.match(low.en.recommendation[0], /Reduce the flow/)
    const swapped = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1, return_temp: 5 }), end: MON + DAY })
    t.equal(kpis(swapped)['Share of hours with negative spread'], 100)
    t.equal(swapped.signal_color, 'red')
    t.ok(swapped.de.recommendation.some((x) => /vertauscht/.test(x)))
  })

  t.test('statuses', async (t) => {
    t.equal((await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1 }) })).status, 'missing_pins')
    t.equal((await runAnalysis({ ...base, start: end, end: end + DAY })).status, 'no_data')
    const off = await runAnalysis({ ...base, seriesOfPin: pins({ flow_temp: 1, return_temp: 2, pump_state: 3 }), start: MON + DAY + 13 * HOUR })
    t.equal(off.status, 'insufficient_data')
  })
})
