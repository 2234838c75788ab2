// The exact bytes of GET /v2/datapoint/timeseries (spec 1, "Time-series data"): whichever way
// a read is encoded (in a reader worker, on the main thread, streamed in chunks), the body
// is the text JSON.stringify gives for { dataPointID, tags, data }: the same field order,
// RFC 3339 times with Z, and numbers as JavaScript prints them (issue 14: reads encoded off
// the event loop must not change a byte).
import t, { type Test } from 'tap'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { addProject, basic, platform, type Platform } from '../helpers/platform.ts'

async function setup(t: Test) {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const proj = await addProject(p, p.admin, 'Bytes')
  return { p, pid: proj.id }
}

/** The body text and content type of a read, unparsed. */
async function readText(p: Platform, pid: number, id: string, q: Record<string, string | number> = {}): Promise<{ status: number; text: string; type: string }> {
  const qs = new URLSearchParams({ project_id: String(pid), dataPointID: id, ...Object.fromEntries(Object.entries(q).map(([k, v]) => [k, String(v)])) })
  const res = await p.app.inject({ method: 'GET', url: `/v2/datapoint/timeseries?${qs}`, headers: { authorization: basic(p.admin) } })
  return { status: res.statusCode, text: res.body, type: String(res.headers['content-type']) }
}

const ID = 'Raum 1/Temp "Süd" \\ 温度'
const TAGS = [{ key: 'note', value: 'a "quoted" \\ tag' }, { key: 'unit', value: '°C' }] // sorted by key, as the API lists them
/** Values whose text differs between number printers: exponents, 17 digits, tiny, huge, negative, integers. */
const ODD = [20.53, -0.5, 1e21, 1.5e-7, 0.1 + 0.2, 123456.789, 5e-324, -1.7976931348623157e308, 42, 0, 1 / 3, 1e-6, 123e20]
/** Times with no fraction, milliseconds, microseconds, and before 1970. */
const TIMES = ['1969-12-31T23:59:59.5Z', '1970-01-01T00:00:00.000001Z', '2024-02-29T23:59:59.999Z', '2024-03-01T00:00:00Z', '2024-03-01T00:00:00.123456Z']

const expected = (data: object[]) => JSON.stringify({ dataPointID: ID, tags: TAGS, data })

t.test('raw reads: odd numbers, fractions of seconds, quotes and non-ASCII in the id and tags', async (t) => {
  const { p, pid } = await setup(t)
  const obs = ODD.map((value, i) => ({ time: new Date(Date.parse('2024-01-01T00:00:00Z') + i * 60_000).toISOString(), value }))
  const extra = TIMES.map((time, i) => ({ time, value: i + 0.25 }))
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { [ID]: [...obs, ...extra] })).status, 200)
  const [dp] = (await p.catalog.datapoints.ensure(pid, [ID])).values()
  for (const { key, value } of TAGS) await p.catalog.datapoints.setTag(dp, key, value)
  const all = [...extra.slice(0, 2), ...obs, ...extra.slice(2)].map((o) => ({ time: o.time, value: o.value }))
  // The canonical times the API prints (no .000, trailing zeros kept to 3 or 6 digits).
  all[0].time = '1969-12-31T23:59:59.500Z'
  all[2 + ODD.length + 1].time = '2024-03-01T00:00:00Z'
  for (let i = 2; i < 2 + ODD.length; i++) all[i].time = all[i].time.replace('.000Z', 'Z')

  const last = await readText(p, pid, ID, { max: 1000 })
  t.equal(last.status, 200)
  t.equal(last.type, 'application/json; charset=utf-8')
  t.equal(last.text, expected(all), 'last 1,000 (all of them)')
  t.equal((await readText(p, pid, ID, { max: 3 })).text, expected(all.slice(-3)), 'last 3')
  t.equal((await readText(p, pid, ID, { start: '2024-01-01T00:00:00Z', max: 4 })).text, expected(all.slice(2, 6)), 'first 4 from start')
  t.equal((await readText(p, pid, ID, { end: '2024-01-01T00:00:00Z', max: 5 })).text, expected(all.slice(0, 2)), 'last before end')
  t.equal((await readText(p, pid, ID, { start: '2024-01-01T00:00:00Z', end: '2024-01-01T00:05:00Z' })).text, expected(all.slice(2, 7)), 'start and end')
  t.equal((await readText(p, pid, ID, { start: '2030-01-01T00:00:00Z', max: 10 })).text, expected([]), 'nothing in range')
})

t.test('sampled reads: rollup levels, raw intervals, last buckets, aggregates, more than one encoding slice', async (t) => {
  const { p, pid } = await setup(t)
  // 6,000 minutes from 2024-01-01; values with exact sums (quarters), so every mean is exact.
  const n = 6000
  const v = (i: number) => ((i * 7) % 40) / 4 - 3
  const obs = Array.from({ length: n }, (_, i) => ({ time: new Date(Date.parse('2024-01-01T00:00:00Z') + i * 60_000).toISOString(), value: v(i) }))
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { [ID]: obs })).status, 200)
  const [dp] = (await p.catalog.datapoints.ensure(pid, [ID])).values()
  for (const { key, value } of TAGS) await p.catalog.datapoints.setTag(dp, key, value)
  const T0 = Date.parse('2024-01-01T00:00:00Z')
  const fold = (minutes: number, agg: 'mean' | 'min' | 'count' | 'last') => {
    const out: Array<Record<string, string | number>> = []
    for (let k = 0; k * minutes < n; k++) {
      const xs = Array.from({ length: Math.min(minutes, n - k * minutes) }, (_, j) => v(k * minutes + j))
      const x = agg === 'mean' ? xs.reduce((a, b) => a + b, 0) / xs.length : agg === 'min' ? Math.min(...xs) : agg === 'count' ? xs.length : xs[xs.length - 1]
      out.push({ time: new Date(T0 + k * minutes * 60_000).toISOString().replace('.000Z', 'Z'), [agg]: x })
    }
    return out
  }
  const range = { start: '2024-01-01T00:00:00Z', end: '2024-01-06T00:00:00Z' }
  for (const [rate, minutes] of [['15m', 15], ['1h', 60], ['1d', 1440], ['5m', 5], ['1m', 1]] as const) {
    t.equal((await readText(p, pid, ID, { ...range, samplerate: rate })).text, expected(fold(minutes, 'mean')), `${rate} means`)
  }
  // 8,192 buckets or more with start and end: split over the two reader workers at a bucket boundary.
  const wide = { start: '2023-10-20T00:00:00Z', end: '2024-03-17T00:00:00Z' }
  t.equal((await readText(p, pid, ID, { ...wide, samplerate: '15m' })).text, expected(fold(15, 'mean')), '15m means, split in the middle of the data')
  t.equal((await readText(p, pid, ID, { start: '2023-12-20T00:00:00Z', end: '2024-01-16T00:00:00Z', samplerate: '1m' })).text, expected(fold(1, 'mean')), '1m means, split')
  t.equal((await readText(p, pid, ID, { start: '2023-12-01T00:00:00Z', end: '2024-01-02T00:00:00Z', samplerate: '1m', aggregate: 'count' })).text, expected(fold(1, 'count').slice(0, 1440)), 'split, the first half empty')
  t.equal((await readText(p, pid, ID, { start: '2024-01-01T00:00:00Z', end: '2024-02-01T00:00:00Z', samplerate: '1m', aggregate: 'last' })).text, expected(fold(1, 'last')), 'split, the second half empty')
  t.equal((await readText(p, pid, ID, { ...range, samplerate: '1h', aggregate: 'min' })).text, expected(fold(60, 'min')), '1h min')
  t.equal((await readText(p, pid, ID, { ...range, samplerate: '15m', aggregate: 'count' })).text, expected(fold(15, 'count')), '15m count')
  t.equal((await readText(p, pid, ID, { ...range, samplerate: '1d', aggregate: 'last' })).text, expected(fold(1440, 'last')), '1d last')
  t.equal((await readText(p, pid, ID, { samplerate: '15m', max: 7 })).text, expected(fold(15, 'mean').slice(-7)), 'the last 7 buckets')
  t.equal((await readText(p, pid, ID, { start: '2030-01-01T00:00:00Z', end: '2030-02-01T00:00:00Z', samplerate: '15m' })).text, expected([]), 'no buckets')
})

t.test('sampled reads from rollups with missing buckets: the buckets that hold data, at their times', async (t) => {
  const { p, pid } = await setup(t)
  // 10:00-10:59 and 13:30-13:44 only, values 1..75: 15-minute and hourly rollup rows with gaps between them.
  const at = (hhmm: string, i: number) => ({ time: `2024-05-01T${hhmm}:00Z`, value: i })
  const obs = [...Array.from({ length: 60 }, (_, i) => at(`10:${String(i).padStart(2, '0')}`, i + 1)), ...Array.from({ length: 15 }, (_, i) => at(`13:${30 + i}`, 61 + i))]
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { gaps: obs })).status, 200)
  const body = (d: object[]) => JSON.stringify({ dataPointID: 'gaps', tags: [], data: d })
  const range = { start: '2024-05-01T00:00:00Z', end: '2024-05-02T00:00:00Z' }
  t.equal((await readText(p, pid, 'gaps', { ...range, samplerate: '15m' })).text, body([
    { time: '2024-05-01T10:00:00Z', mean: 8 }, { time: '2024-05-01T10:15:00Z', mean: 23 }, { time: '2024-05-01T10:30:00Z', mean: 38 },
    { time: '2024-05-01T10:45:00Z', mean: 53 }, { time: '2024-05-01T13:30:00Z', mean: 68 },
  ]))
  t.equal((await readText(p, pid, 'gaps', { ...range, samplerate: '1h', aggregate: 'max' })).text, body([
    { time: '2024-05-01T10:00:00Z', max: 60 }, { time: '2024-05-01T13:00:00Z', max: 75 },
  ]))
})

t.test('raw reads of more than one chunk stream the same text', async (t) => {
  const { p, pid } = await setup(t)
  const obs = Array.from({ length: 4500 }, (_, i) => ({ time: new Date(Date.parse('2024-01-01T00:00:00Z') + i * 1000).toISOString(), value: i / 8 }))
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, { plain: obs })).status, 200)
  const data = obs.map((o) => ({ time: o.time.replace('.000Z', 'Z'), value: o.value }))
  const body = (d: object[]) => JSON.stringify({ dataPointID: 'plain', tags: [], data: d })
  t.equal((await readText(p, pid, 'plain', { max: 4500 })).text, body(data), 'last 4,500')
  t.equal((await readText(p, pid, 'plain', { max: 2000 })).text, body(data.slice(-2000)), 'last 2,000')
  t.equal((await readText(p, pid, 'plain', { start: '2024-01-01T00:00:00Z', max: 2001 })).text, body(data.slice(0, 2001)), 'first 2,001')
})
