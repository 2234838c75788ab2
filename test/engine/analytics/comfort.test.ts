// Comfort (engine/analytics/functions/comfort.ts) and the runner's statuses, on a week of
// 5-minute room temperatures with hand-counted quarter hours.
import t from 'tap'
import { comfort } from '../../../engine/analytics/functions/comfort.ts'
import { runAnalysis } from '../../../engine/analytics/run.ts'
import { DAY, HOUR, MIN, MON, dayOf, hourOf, pins, tempStore, writeSeries } from './helpers.ts'

// Week from Monday: 22 °C in the day, 15 °C at night (00-07 and 18-24 UTC); Monday 07-09
// 18 °C (8 quarter hours too cold), Tuesday 14-16 26 °C (8 too warm).
const temp = (t: number) => {
  const h = hourOf(t); const d = dayOf(t)
  if (d === 0 && h >= 7 && h < 9) return 18
  if (d === 1 && h >= 14 && h < 16) return 26
  return h >= 7 && h < 18 ? 22 : 15
}
const kpis = (r: Awaited<ReturnType<typeof runAnalysis>>) => Object.fromEntries(r.en.kpi.map((k) => [k.name, k.value]))

t.test('comfort', async (t) => {
  const store = await tempStore(t)
  await writeSeries(store, 1, MON, MON + 7 * DAY, 5 * MIN, temp)
  const base = { fn: comfort, store, component: 'room', seriesOfPin: pins({ room_temp: 1 }), attributes: {}, start: MON, end: MON + 7 * DAY }

  t.test('default schedule Mon-Fri 07-18 UTC: 220 occupied quarter hours, 16 outside the band', async (t) => {
    const r = await runAnalysis(base)
    t.equal(r.status, 'success')
    const k = kpis(r)
    t.equal(k['Comfort share of occupied time'], 92.7) // 204 / 220
    t.equal(k['Too cold share'], 3.6)
    t.equal(k['Too warm share'], 3.6)
    t.equal(k['Occupied hours evaluated'], 55)
    t.equal(r.signal_color, 'green')
    t.equal(r.de.kpi[0].name, 'Anteil der Nutzungszeit im Komfortbereich')
    t.equal(r.de.kpi[0].value, 92.7)
    t.match(r.de.interpretation, /92,7 %/)
    t.match(r.en.interpretation, /92\.7%/)
    t.equal(r.de.signal_color, 'green')
    t.equal(r.en.recommendation.length, 0)
  })

  t.test('Europe/Berlin: occupied 06-17 UTC adds 20 cold night quarter hours', async (t) => {
    const r = await runAnalysis({ ...base, timeZone: 'Europe/Berlin' })
    const k = kpis(r)
    t.equal(k['Comfort share of occupied time'], 83.6) // (220 - 28 - 8) / 220
    t.equal(k['Too cold share'], 12.7)
    t.equal(r.signal_color, 'yellow')
    t.equal(r.en.recommendation.length, 1)
    t.equal(r.de.recommendation.length, 1)
  })

  t.test('occupancy pin overrides the schedule', async (t) => {
    await store.append([{ series: 2, time: MON, value: 0 }, { series: 2, time: MON + 8 * HOUR, value: 1 }, { series: 2, time: MON + 10 * HOUR, value: 0 }])
    const r = await runAnalysis({ ...base, seriesOfPin: pins({ room_temp: 1, occupancy: 2 }) })
    const k = kpis(r)
    t.equal(k['Occupied hours evaluated'], 2)
    t.equal(k['Comfort share of occupied time'], 50)
    t.equal(r.signal_color, 'red')
  })

  t.test('occupied_hours attribute and comfort band', async (t) => {
    const sat = await runAnalysis({ ...base, attributes: { occupied_hours: '{"sat":["10:00","12:00"]}' } })
    t.equal(kpis(sat)['Occupied hours evaluated'], 2)
    t.equal(kpis(sat)['Comfort share of occupied time'], 100)
    const band = await runAnalysis({ ...base, attributes: { comfort_min: '17', comfort_max: '22.5' } })
    t.equal(kpis(band)['Comfort share of occupied time'], 96.4) // only the 8 warm ones
  })

  t.test('invalid attributes', async (t) => {
    const cases: Array<Record<string, string>> = [{ occupied_hours: '{mon' }, { occupied_hours: '{"mon":["18:00","07:00"]}' }, { comfort_min: 'warm' }, { comfort_min: '25' }]
    for (const attributes of cases) {
      const r = await runAnalysis({ ...base, attributes })
      t.equal(r.status, 'invalid_attributes', JSON.stringify(attributes))
      t.same(r.en.kpi, [])
      t.equal(r.signal_color, 'yellow')
      t.ok(r.de.interpretation.length > 0)
    }
  })

  t.test('statuses of the runner', async (t) => {
    const missing = await runAnalysis({ ...base, seriesOfPin: pins({ occupancy: 2 }) })
    t.equal(missing.status, 'missing_pins')
    t.match(missing.en.interpretation, /room_temp/)
    t.match(missing.de.interpretation, /room_temp/)
    t.equal((await runAnalysis({ ...base, component: 'boiler' })).status, 'not_applicable')
    t.equal((await runAnalysis({ ...base, component: undefined })).status, 'success', 'component inferred')
    t.equal((await runAnalysis({ ...base, start: MON - 7 * DAY, end: MON })).status, 'no_data')
    t.equal((await runAnalysis({ ...base, start: MON + DAY * 5, end: MON + DAY * 6 })).status, 'insufficient_data', 'Saturday: no occupied time')
    t.equal((await runAnalysis({ ...base, end: MON })).status, 'invalid_parameters')
    t.equal((await runAnalysis({ ...base, timeZone: 'Mars/Olympus' })).status, 'invalid_parameters')
    const closed = await tempStore(t)
    await closed.close()
    const failed = await runAnalysis({ ...base, store: closed })
    t.equal(failed.status, 'failed')
    t.match(failed.en.info[0], /closed/)
  })
})
