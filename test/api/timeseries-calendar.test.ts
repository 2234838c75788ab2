// Extensions of GET /v2/datapoint/timeseries (issue 14 item 4): the project time zone
// (PUT /v2/project/{id} `time_zone`), calendar sample rates 1D / 1W / 1M at local midnight,
// DST-correct, and the `aggregate` parameter.
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, platform, type Platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const proj = await addProject(p, p.admin, 'Zones')
  return { p, pid: proj.id }
}

const read = (p: Platform, pid: number, q: Record<string, string | number>) => {
  const qs = new URLSearchParams({ project_id: String(pid), dataPointID: 'h', ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) })
  return p.call(p.admin, 'GET', `/v2/datapoint/timeseries?${qs}`)
}
/** One observation per UTC hour from `from`, value = hour index. */
const hours = (from: string, n: number) => ({ h: Array.from({ length: n }, (_, i) => ({ time: new Date(Date.parse(from) + i * 3_600_000).toISOString(), value: i })) })

t.test('time_zone: default UTC, set by PUT, validated, shown by GET', async (t) => {
  const { p, pid } = await setup(t)
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.project.time_zone, 'UTC')
  const ok = await p.call(p.admin, 'PUT', `/v2/project/${pid}`, { time_zone: 'Europe/Berlin' })
  t.match(ok, { status: 200, body: { success: true, operation: 'update', resource: { id: pid, time_zone: 'Europe/Berlin' } } })
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.project.time_zone, 'Europe/Berlin')
  const bad = await p.call(p.admin, 'PUT', `/v2/project/${pid}`, { time_zone: 'Berlin' })
  t.same(bad, { status: 400, body: { success: false, operation: 'update', error: "Invalid time_zone 'Berlin': use an IANA time zone name such as Europe/Berlin or UTC" } })
  t.equal((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.project.time_zone, 'Europe/Berlin', 'unchanged')
})

t.test('1D in Europe/Berlin: local midnights, a 23-hour day in March and a 25-hour day in October', async (t) => {
  const { p, pid } = await setup(t)
  await p.call(p.admin, 'PUT', `/v2/project/${pid}`, { time_zone: 'Europe/Berlin' })
  // 2024-03-30 00:00 CET = 2024-03-29T23:00Z; 72 hours.
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, hours('2024-03-29T23:00:00Z', 72))
  const march = await read(p, pid, { start: '2024-03-29T23:00:00Z', end: '2024-04-01T22:00:00Z', samplerate: '1D', aggregate: 'count' })
  t.same(march.body.data, [
    { time: '2024-03-29T23:00:00Z', count: 24 },
    { time: '2024-03-30T23:00:00Z', count: 23 },
    { time: '2024-03-31T22:00:00Z', count: 24 },
  ], 'left boundaries are local midnights in UTC; March 31 has 23 hours')
  const means = await read(p, pid, { start: '2024-03-29T23:00:00Z', end: '2024-04-01T22:00:00Z', samplerate: '1D' })
  t.same(means.body.data.map((d: { mean: number }) => d.mean), [11.5, 35, 58.5], 'mean by default')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { h: Array.from({ length: 72 }, (_, i) => ({ time: new Date(Date.parse('2024-10-25T22:00:00Z') + i * 3_600_000).toISOString(), value: 1 })) })
  const oct = await read(p, pid, { start: '2024-10-25T22:00:00Z', end: '2024-10-28T23:00:00Z', samplerate: '1D', aggregate: 'sum' })
  t.same(oct.body.data, [
    { time: '2024-10-25T22:00:00Z', sum: 24 },
    { time: '2024-10-26T22:00:00Z', sum: 25 },
    { time: '2024-10-27T23:00:00Z', sum: 23 },
  ], 'October 27 has 25 hours')
  const weeks = await read(p, pid, { samplerate: '1W', aggregate: 'count', max: 0 })
  t.same(weeks.body.data.map((d: { time: string }) => d.time), ['2024-03-24T23:00:00Z', '2024-03-31T22:00:00Z', '2024-10-20T22:00:00Z', '2024-10-27T23:00:00Z'], 'weeks start on Monday, local midnight')
  const months = await read(p, pid, { start: '2024-01-01T00:00:00Z', samplerate: '1M', max: 4, aggregate: 'max' })
  t.same(months.body.data, [{ time: '2024-02-29T23:00:00Z', max: 46 }, { time: '2024-03-31T22:00:00Z', max: 71 }], '`max` counts calendar months from the one holding start')
  t.equal((await read(p, pid, { samplerate: '2D' })).status, 400, 'only the count 1 for calendar units')
})

t.test('aggregate: min, max, sum, first, last, count; the entry field is named after it', async (t) => {
  const { p, pid } = await setup(t)
  await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { h: [3, 1, 4, 1, 5].map((value, i) => ({ time: `2024-01-01T00:0${i}:00Z`, value })) })
  const one = async (aggregate: string) => (await read(p, pid, { start: '2024-01-01T00:00:00Z', end: '2024-01-02T00:00:00Z', samplerate: '1h', aggregate })).body.data
  t.same(await one('mean'), [{ time: '2024-01-01T00:00:00Z', mean: 2.8 }])
  t.same(await one('min'), [{ time: '2024-01-01T00:00:00Z', min: 1 }])
  t.same(await one('max'), [{ time: '2024-01-01T00:00:00Z', max: 5 }])
  t.same(await one('sum'), [{ time: '2024-01-01T00:00:00Z', sum: 14 }])
  t.same(await one('first'), [{ time: '2024-01-01T00:00:00Z', first: 3 }])
  t.same(await one('last'), [{ time: '2024-01-01T00:00:00Z', last: 5 }])
  t.same(await one('count'), [{ time: '2024-01-01T00:00:00Z', count: 5 }])
  t.equal((await read(p, pid, { samplerate: '1h', aggregate: 'median' })).status, 400)
})
