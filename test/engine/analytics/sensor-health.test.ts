// Sensor health on three days (72 hours) of a heating circuit: a flow temperature with a
// 5-hour gap and one hour at 500 °C, a return temperature frozen at 40 °C, a pump state
// written once. Expected: coverage 67/72 and 72/72, 1 gap of 5 h, 72 frozen hours,
// 1 outlier hour: red.
import t from 'tap'
import { sensorHealth } from '../../../engine/analytics/functions/sensor-health.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, pins, tempStore, writeSeries } from './helpers.ts'

const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))
const hour = (t: number) => Math.floor((t - MON) / HOUR)

t.test('sensor health', async (t) => {
  const store = await tempStore(t)
  const end = MON + 3 * DAY
  const wave = (t: number) => 50 + 10 * Math.sin((2 * Math.PI * (t - MON)) / DAY)
  await writeSeries(store, 1, MON, end, 10 * MIN, (t) => (hour(t) >= 10 && hour(t) < 15 ? undefined : hour(t) === 30 ? 500 : wave(t)))
  await writeSeries(store, 2, MON, end, 10 * MIN, () => 40)
  await store.append([{ series: 3, time: MON, value: 1 }])
  await writeSeries(store, 4, MON, end, 10 * MIN, (t) => wave(t) - 45) // outdoor -5 .. 15 °C
  const base = { fn: sensorHealth, store, component: 'heating_circuit', seriesOfPin: pins({ flow_temp: 1, return_temp: 2, pump_state: 3 }), attributes: {}, start: MON, end }

  t.test('gap, frozen, outlier', async (t) => {
    const r = await runAnalysis(base)
    t.equal(r.status, 'success')
    t.same(kpis(r), { 'Pins checked': 3, 'Mean data coverage': 96.5, Gaps: 1, 'Longest gap': 5, 'Frozen hours': 72, 'Outlier hours': 1 })
    t.equal(r.signal_color, 'red')
    t.match(r.en.interpretation, /2 of 3 pins show problems: flow_temp, return_temp/)
    t.match(r.en.info[0], /flow_temp: coverage 93\.1%, 1 gaps \(longest 5 h\), 0 frozen hours, 1 outlier hours/)
    t.match(r.en.info[2], /pump_state: coverage not checked/)
    t.match(r.de.info[1], /return_temp: Abdeckung 100,0 %, 0 Lücken \(längste 0 h\), 72 eingefrorene Stunden/)
    t.equal(r.en.recommendation.length, 3)
  })

  t.test('a healthy weather station; missing range ends count as gaps', async (t) => {
    const ok = await runAnalysis({ ...base, component: 'weather_station', seriesOfPin: pins({ outdoor_temp: 4 }) })
    t.same(kpis(ok), { 'Pins checked': 1, 'Mean data coverage': 100, Gaps: 0, 'Longest gap': 0, 'Frozen hours': 0, 'Outlier hours': 0 })
    t.equal(ok.signal_color, 'green')
    t.match(ok.de.interpretation, /Alle 1 Pins/)
    const longer = await runAnalysis({ ...base, component: 'weather_station', seriesOfPin: pins({ outdoor_temp: 4 }), end: end + 6 * HOUR })
    t.same(kpis(longer), { 'Pins checked': 1, 'Mean data coverage': 92.3, Gaps: 1, 'Longest gap': 6, 'Frozen hours': 0, 'Outlier hours': 0 })
    t.equal(longer.signal_color, 'yellow')
  })

  t.test('applies to every component', async (t) => {
    const pv = await runAnalysis({ ...base, component: 'pv_plant', seriesOfPin: pins({ module_temp: 4 }) })
    t.equal(pv.status, 'success')
  })

  t.test('statuses', async (t) => {
    const none = await runAnalysis({ ...base, seriesOfPin: pins({}) })
    t.equal(none.status, 'missing_pins')
    t.equal((await runAnalysis({ ...base, start: MON - DAY, end: MON })).status, 'no_data')
  })
})
