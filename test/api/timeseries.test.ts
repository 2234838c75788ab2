// Time series over HTTP on the embedded store: JSON ingest, reads with every rule of spec 1
// ("Time-series data"), TagAuth checks, unit conversion.
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, addUser, platform, type Login, type Platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const proj = await addProject(p, p.admin, 'TS')
  return { p, store, pid: proj.id }
}

const post = (p: Platform, pid: number, body: unknown, who: Login = p.admin) => p.call(who, 'POST', `/v2/project/${pid}/timeseries`, body)
const read = (p: Platform, pid: number, id: string, q: Record<string, string | number> = {}, who: Login = p.admin) => {
  const qs = new URLSearchParams({ project_id: String(pid), dataPointID: id, ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) })
  return p.call(who, 'GET', `/v2/datapoint/timeseries?${qs}`)
}
const minutes = (id: string, from: string, n: number, step = 1, value = (i: number) => i) =>
  ({ [id]: Array.from({ length: n }, (_, i) => ({ time: new Date(Date.parse(from) + i * step * 60_000).toISOString(), value: value(i) })) })

t.test('JSON ingest: envelope, new datapoints with hash ids, idempotent re-send', async (t) => {
  const { p, pid } = await setup(t)
  const res = await post(p, pid, { temperature: [{ time: '2024-01-01T00:00:00Z', value: 20.5 }, { time: '2024-01-01T00:01:00Z', value: 21 }] })
  t.same(res, { status: 200, body: { success: true, operation: '', resource: {} } })
  const project = await p.call(p.admin, 'GET', `/v2/project/${pid}`)
  t.match(project.body.datapoints, [{ dataPointID: 'temperature', hash_id: 'G0ah2WCY', project_id: pid }])
  await post(p, pid, { temperature: [{ time: '2024-01-01T00:01:00Z', value: 99 }] })
  t.same((await read(p, pid, 'temperature')).body.data, [
    { time: '2024-01-01T00:00:00Z', value: 20.5 }, { time: '2024-01-01T00:01:00Z', value: 99 },
  ], 'the same (datapoint, time) replaces the value')
})

t.test('JSON ingest: every observation validated, all or nothing', async (t) => {
  const { p, pid } = await setup(t)
  const cases: [unknown, string][] = [
    [[1, 2], 'The body must be an object keyed by datapoint identifier'],
    [{ a: { time: 'x' } }, "The observations of 'a' must be an array"],
    [{ a: [{ time: '2024-01-01T00:00:00Z', value: 1 }], b: [{ time: '2024-13-01T00:00:00Z', value: 1 }] }, "Observation 0 of 'b': cannot parse time '2024-13-01T00:00:00Z'"],
    [{ a: [{ time: '2024-01-01T00:00:00Z', value: '1' }] }, "Observation 0 of 'a': value must be a finite number"],
    [{ a: [{ time: 1704067200, value: 1 }] }, "Observation 0 of 'a': time must be an RFC 3339 timestamp string"],
    [{ a: [null] }, "Observation 0 of 'a' must be an object {time, value}"],
    [{ '': [] }, 'A datapoint identifier is empty'],
  ]
  for (const [body, error] of cases) {
    t.same(await post(p, pid, body), { status: 400, body: { success: false, error, operation: '' } }, error)
  }
  t.same((await p.call(p.admin, 'GET', `/v2/project/${pid}`)).body.datapoints, [], 'no datapoint was created by a failed request')
})

t.test('identifiers with blanks, slashes, quotes, backslashes and non-ASCII round-trip', async (t) => {
  const { p, pid } = await setup(t)
  const ids = ['Raum 1/Temp "Süd"', "it's", 'a\\b', '温度', 'x?y&z=1#frag']
  const body = Object.fromEntries(ids.map((id, i) => [id, [{ time: '2024-05-05T10:00:00Z', value: i }]]))
  t.equal((await post(p, pid, body)).status, 200)
  for (const [i, id] of ids.entries()) {
    const r = await read(p, pid, id)
    t.same(r.body, { dataPointID: id, tags: [], data: [{ time: '2024-05-05T10:00:00Z', value: i }] }, id)
  }
})

t.test('time: offsets are returned in UTC; 1 ms and 1 µs precision survive', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, { x: [
    { time: '2024-03-31T03:30:00+02:00', value: 1 },
    { time: '2024-03-31T01:30:00.001Z', value: 2 },
    { time: '2024-03-31T01:30:00.001001Z', value: 3 },
    { time: '2024-03-31T01:30:00.001001999Z', value: 4 },
  ] })
  t.same((await read(p, pid, 'x')).body.data, [
    { time: '2024-03-31T01:30:00Z', value: 1 },
    { time: '2024-03-31T01:30:00.001Z', value: 2 },
    { time: '2024-03-31T01:30:00.001001Z', value: 4 },
  ], 'nanoseconds are truncated to microseconds, so the last one replaces the third')
})

t.test('reads: order, max with start, end, both; half-open bounds', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, minutes('m', '2024-01-01T00:00:00Z', 10))
  const values = async (q: Record<string, string | number>) => (await read(p, pid, 'm', q)).body.data.map((d: { value: number }) => d.value)
  t.same(await values({}), [0, 1, 2, 3, 4, 5, 6, 7, 8, 9], 'ascending')
  t.same(await values({ max: 3 }), [7, 8, 9], 'max alone: the latest')
  t.same(await values({ start: '2024-01-01T00:02:00Z', max: 3 }), [2, 3, 4], 'start: the first max from start')
  t.same(await values({ end: '2024-01-01T00:05:00Z', max: 2 }), [3, 4], 'end: the last max before end (end excluded)')
  t.same(await values({ start: '2024-01-01T00:02:00Z', end: '2024-01-01T00:05:00Z', max: 1 }), [2, 3, 4], 'both: max ignored')
  t.same(await values({ start: '2024-01-01T00:02:00Z', max: 0 }), [2, 3, 4, 5, 6, 7, 8, 9], 'max=0: all')
  t.same(await values({ start: '2024-02-01T00:00:00Z' }), [], 'an empty range')
  t.equal((await read(p, pid, 'm', { start: 'yesterday' })).body.error, "Cannot parse start 'yesterday': use an RFC 3339 timestamp")
  t.equal((await read(p, pid, 'm', { start: '2024-01-02T00:00:00Z', end: '2024-01-01T00:00:00Z' })).body.error, 'start must not be after end')
  t.equal((await read(p, pid, 'm', { max: -1 })).status, 400)
  t.equal((await read(p, pid, 'm', { sample_rate: '1m' })).status, 400, 'unknown parameters are refused')
  t.same((await read(p, pid, 'nope')).body, { success: false, error: `Datapoint 'nope' not found in project ${pid}`, operation: '' })
})

t.test('samplerate: left-boundary means aligned to the epoch, empty intervals dropped', async (t) => {
  const { p, pid } = await setup(t)
  // 07:05..07:34 every minute, value = minute index; a gap; one value at 09:10.
  await post(p, pid, { s: [...minutes('s', '2024-06-01T07:05:00Z', 30).s, { time: '2024-06-01T09:10:00Z', value: 100 }] })
  const r = await read(p, pid, 's', { start: '2024-06-01T07:05:00Z', end: '2024-06-01T10:00:00Z', samplerate: '15m' })
  t.same(r.body.data, [
    { time: '2024-06-01T07:00:00Z', mean: 4.5 }, // 07:05..07:14 → 0..9
    { time: '2024-06-01T07:15:00Z', mean: 17 }, // 07:15..07:29 → 10..24
    { time: '2024-06-01T07:30:00Z', mean: 27 }, // 07:30..07:34 → 25..29
    { time: '2024-06-01T09:00:00Z', mean: 100 },
  ], 'a boundary before start (07:00) and empty intervals dropped')
  const atStart = await read(p, pid, 's', { start: '2024-06-01T07:15:00Z', end: '2024-06-01T07:30:00Z', samplerate: '15m' })
  t.same(atStart.body.data, [{ time: '2024-06-01T07:15:00Z', mean: 17 }], 'a boundary at start')
  const sparse = await read(p, pid, 's', { start: '2024-06-01T07:35:00Z', samplerate: '1m', max: 60 })
  t.same(sparse.body.data, [], 'max counts intervals from start, empty ones included: sparse data gives an empty array')
  const wider = await read(p, pid, 's', { start: '2024-06-01T07:35:00Z', samplerate: '1m', max: 100 })
  t.same(wider.body.data, [{ time: '2024-06-01T09:10:00Z', mean: 100 }])
  t.same((await read(p, pid, 's', { start: '2024-06-01T07:35:00Z', samplerate: '1m', max: 0 })).body.data.length, 1, 'max=0 is the remedy')
  const endOnly = await read(p, pid, 's', { end: '2024-06-01T07:30:00Z', samplerate: '15m', max: 1 })
  t.same(endOnly.body.data, [{ time: '2024-06-01T07:15:00Z', mean: 17 }])
  t.equal((await read(p, pid, 's', { samplerate: '15x' })).body.error, "Invalid samplerate '15x': use an integer followed by s, m, h or d, e.g. 15m, at most 36500d (100 years), or 1D, 1W, 1M for calendar days, weeks, months")
  t.equal((await read(p, pid, 's', { samplerate: '0m' })).status, 400)
})

t.test('31d is exactly 31 days, not a month', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, { d: [{ time: '2024-01-01T00:00:00Z', value: 1 }, { time: '2024-02-01T00:00:00Z', value: 2 }, { time: '2024-03-05T00:00:00Z', value: 3 }] })
  const r = await read(p, pid, 'd', { start: '2023-12-01T00:00:00Z', end: '2024-04-01T00:00:00Z', samplerate: '31d' })
  // floor(t / 31 d) * 31 d: 2023-12-25, 2024-01-25, 2024-02-25 (epoch-aligned, fixed length)
  t.same(r.body.data, [
    { time: '2023-12-25T00:00:00Z', mean: 1 },
    { time: '2024-01-25T00:00:00Z', mean: 2 },
    { time: '2024-02-25T00:00:00Z', mean: 3 },
  ])
})

t.test('automatic sampling: start and end, no samplerate, more than N values; max ignored', async (t) => {
  const { p, pid } = await setup(t)
  await p.catalog.projects.setMqtt(pid, { samplingN: 10 })
  await post(p, pid, minutes('a', '2024-01-01T00:00:00Z', 60))
  const range = { start: '2024-01-01T00:00:00Z', end: '2024-01-01T01:00:00Z' }
  const auto = await read(p, pid, 'a', range)
  t.equal(auto.body.data.length, 10, 'interval = (end - start) / N = 6 minutes')
  t.same(auto.body.data[0], { time: '2024-01-01T00:00:00Z', mean: 2.5 })
  t.equal((await read(p, pid, 'a', { ...range, end: '2024-01-01T00:10:00Z' })).body.data.length, 10, 'N values or fewer: raw')
  t.equal((await read(p, pid, 'a', { ...range, end: '2024-01-01T00:10:00Z' })).body.data[0].value, 0)
  t.same((await read(p, pid, 'a', { ...range, max: 0 })).body, auto.body, 'max=0 with both bounds is ignored (spec 1 read rule 2)')
  t.same((await read(p, pid, 'a', { ...range, max: 3 })).body, auto.body, 'so is any other max')
  t.equal((await read(p, pid, 'a', { ...range, samplerate: '1m', max: 3 })).body.data.length, 60, 'with samplerate: its buckets, max still ignored')
  t.equal((await read(p, pid, 'a', { start: range.start })).body.data.length, 60, 'only with both bounds')
})

t.test('TagAuths: reads and writes of datapoints the caller may not touch', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, { open: [{ time: '2024-01-01T00:00:00Z', value: 1 }], secret: [{ time: '2024-01-01T00:00:00Z', value: 2 }] })
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, {
    name: 'limited', authed_endpoints: [50, 52],
    authed_tags: [{ key: 'dataPointID', value: 'open', read: true, write: true }, { key: 'dataPointID', value: 'ro', read: true, write: false }],
  })
  const u = await addUser(p, 'limited')
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  t.equal((await read(p, pid, 'open', {}, u)).status, 200)
  t.same((await read(p, pid, 'secret', {}, u)).body, { success: false, error: `Datapoint 'secret' not found in project ${pid}`, operation: '' }, 'not readable looks like not there')
  t.equal((await post(p, pid, { open: [{ time: '2024-01-02T00:00:00Z', value: 3 }] }, u)).status, 200)
  const denied = await post(p, pid, { open: [{ time: '2024-01-03T00:00:00Z', value: 4 }], ro: [{ time: '2024-01-03T00:00:00Z', value: 4 }] }, u)
  t.same(denied, { status: 403, body: { success: false, error: "No write access to datapoint 'ro'", operation: '' } })
  t.equal((await read(p, pid, 'open')).body.data.length, 2, 'nothing of the denied request was stored')
  const other = await addProject(p, p.admin, 'Other')
  t.equal((await read(p, other.id, 'open', {}, u)).body.error, 'Unauthorized access to endpoint: 52 - GET /v2/datapoint/timeseries')
})

t.test('units: conversion by the unit tag; clear errors', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, { t: [{ time: '2024-01-01T00:00:00Z', value: 20 }], e: [{ time: '2024-01-01T00:00:00Z', value: 1 }], raw: [{ time: '2024-01-01T00:00:00Z', value: 1 }], odd: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  const ids = await p.catalog.datapoints.ensure(pid, ['t', 'e', 'odd'])
  await p.catalog.datapoints.setTag(ids.get('t')!, 'unit', '°C')
  await p.catalog.datapoints.setTag(ids.get('e')!, 'unit', 'kWh')
  await p.catalog.datapoints.setTag(ids.get('odd')!, 'unit', 'furlongs per fortnight')
  const r = await read(p, pid, 't', { units_system: 'imperial' })
  t.same(r.body, { dataPointID: 't', tags: [{ key: 'unit', value: '°F' }], data: [{ time: '2024-01-01T00:00:00Z', value: 68 }] }, 'the unit tag names the delivered unit')
  t.same((await read(p, pid, 't', { units: 'tempF' })).body.tags, [{ key: 'unit', value: '°F' }])
  t.same((await read(p, pid, 't', { units: 'K' })).body, { dataPointID: 't', tags: [{ key: 'unit', value: 'K' }], data: [{ time: '2024-01-01T00:00:00Z', value: 293.15 }] })
  t.same((await read(p, pid, 't', { units_system: 'SI' })).body, { dataPointID: 't', tags: [{ key: 'unit', value: '°C' }], data: [{ time: '2024-01-01T00:00:00Z', value: 20 }] }, 'already metric: unchanged')
  t.same((await read(p, pid, 't')).body.tags, [{ key: 'unit', value: '°C' }], 'no conversion: the stored unit')
  const mj = await read(p, pid, 'e', { units: 'MJ' })
  t.equal(mj.body.data[0].value, 3.6)
  t.same(mj.body.tags, [{ key: 'unit', value: 'MJ' }])
  t.same((await read(p, pid, 'e', { units_system: 'imperial' })).body.tags, [{ key: 'unit', value: 'BTU' }])
  t.equal((await read(p, pid, 'e', { units: 'tempC' })).body.error, "Cannot convert 'kWh' to 'tempC'")
  t.equal((await read(p, pid, 'raw', { units: 'kWh' })).body.error, "Datapoint 'raw' has no unit tag: its values cannot be converted")
  t.equal((await read(p, pid, 'odd', { units: 'kWh' })).body.error, "Unknown source unit of datapoint 'odd': 'furlongs per fortnight'")
  t.equal((await read(p, pid, 't', { units_system: 'martian' })).body.error, "Unknown units_system 'martian': use metric (SI) or imperial (US)")
})

t.test('currency_system: converts by the rate valid at each observation time; a missing rate names the pair', async (t) => {
  const { p, pid } = await setup(t)
  await post(p, pid, {
    cost: [{ time: '2025-12-31T23:00:00Z', value: 100 }, { time: '2026-01-01T00:00:00Z', value: 100 }, { time: '2026-02-01T12:00:00Z', value: 10 }],
    plain: [{ time: '2026-01-01T00:00:00Z', value: 1 }],
  })
  const ids = await p.catalog.datapoints.ensure(pid, ['cost'])
  await p.catalog.datapoints.setTag(ids.get('cost')!, 'currency', 'EUR')
  const rates = p.catalog.exchangeRates
  t.same((await read(p, pid, 'cost', { currency_system: 'USD' })).body, { success: false, error: "No exchange rate EUR→USD is set: set one with 'npx lintel currency set EUR USD <rate> --from <date>'", operation: '' })
  t.equal((await read(p, pid, 'cost', { currency_system: 'USD' })).status, 400)
  await rates.set({ base: 'EUR', quote: 'USD', validFrom: Date.parse('2026-01-01T00:00:00Z') * 1000, rate: 1.08 })
  await rates.set({ base: 'EUR', quote: 'USD', validFrom: Date.parse('2026-02-01T00:00:00Z') * 1000, rate: 1.2 })
  const early = await read(p, pid, 'cost', { currency_system: 'USD' })
  t.same(early, { status: 400, body: { success: false, operation: '',
    error: "No exchange rate EUR→USD valid at 2025-12-31T23:00:00Z (the first is valid from 2026-01-01T00:00:00Z): set one with 'npx lintel currency set EUR USD <rate> --from <date>'" } })
  const r = await read(p, pid, 'cost', { currency_system: 'usd', start: '2026-01-01T00:00:00Z', end: '2026-03-01T00:00:00Z' })
  t.same(r.body, { dataPointID: 'cost', tags: [{ key: 'currency', value: 'USD' }], data: [
    { time: '2026-01-01T00:00:00Z', value: 108 }, { time: '2026-02-01T12:00:00Z', value: 12 },
  ] }, 'each observation at the rate valid at its time; the tag names the delivered currency')
  const back = await read(p, pid, 'cost', { currency_system: 'EUR', start: '2026-01-01T00:00:00Z' })
  t.same(back.body.data.map((d: { value: number }) => d.value), [100, 10], 'already in EUR: unchanged')
  await rates.set({ base: 'USD', quote: 'CHF', validFrom: 0, rate: 0.8 })
  const ids2 = await p.catalog.datapoints.ensure(pid, ['plain'])
  await p.catalog.datapoints.setTag(ids2.get('plain')!, 'currency', 'CHF')
  t.same((await read(p, pid, 'plain', { currency_system: 'USD' })).body.data, [{ time: '2026-01-01T00:00:00Z', value: 1.25 }], 'the inverse pair, inverted')
  const sampled = await read(p, pid, 'cost', { currency_system: 'USD', start: '2026-01-01T00:00:00Z', end: '2026-03-01T00:00:00Z', samplerate: '1d' })
  t.same(sampled.body.data, [{ time: '2026-01-01T00:00:00Z', mean: 108 }, { time: '2026-02-01T00:00:00Z', mean: 12 }], 'a mean at the rate valid at its interval start')
  t.equal((await read(p, pid, 'cost', { currency_system: 'euro' })).body.error, "Invalid currency_system 'euro': use a three-letter ISO 4217 code such as EUR or USD")
  await post(p, pid, { untagged: [{ time: '2026-01-01T00:00:00Z', value: 1 }] })
  t.equal((await read(p, pid, 'untagged', { currency_system: 'USD' })).body.error, "Datapoint 'untagged' has no currency tag: its values cannot be converted to USD")
})

t.test('deleting a project deletes its observations', async (t) => {
  const { p, pid, store } = await setup(t)
  await post(p, pid, { a: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  const [series] = await p.catalog.datapoints.idsOfProject(pid)
  t.equal(await store.count(series), 1)
  await p.call(p.admin, 'DELETE', `/v2/project/${pid}`)
  t.equal(await store.count(series), 0)
})
