// Live subscriptions (issue 33, GET /v2/live): new observations of the subscribed datapoints,
// real and virtual, once stored, in order per datapoint; "all" includes datapoints created
// later; a resume with `since` fills from the store, then goes live, without a hole or a
// duplicate while ingest goes on; a slow reader is closed (4408) and never holds ingest back.
import t, { type Test } from 'tap'
import { basic, addProject, platform, type Platform } from '../helpers/platform.ts'
import { liveClient } from '../helpers/live-client.ts'
import { waitFor } from '../helpers/wait.ts'
import type { WebSocket } from 'ws'

const T0 = Date.UTC(2024, 2, 31)
const iso = (i: number) => new Date(T0 + i * 1000).toISOString().replace('.000Z', 'Z')

async function listening(t: Test) {
  const p = await platform(t)
  const address = await p.app.listen({ port: 0, host: '127.0.0.1' })
  const pid = (await addProject(p, p.admin, 'P')).id
  const ingest = async (body: Record<string, { time: string; value: number }[]>) => {
    const res = await p.call(p.admin, 'POST', `/v2/project/${pid}/timeseries`, body)
    if (res.status !== 200) throw new Error(JSON.stringify(res.body))
  }
  return { p, address, pid, ingest }
}

t.test('subscribed datapoints arrive once stored, in order; unknown ones are left out; virtual outputs too', async (t) => {
  const { p, address, pid, ingest } = await listening(t)
  await ingest({ a: [{ time: iso(0), value: 0 }], b: [{ time: iso(0), value: 0 }] })
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=a2&type=formula`, { pins: { P1: { dataPointID: 'a' } }, parameters: { formula: 'P1 * 2' } })).status, 201)
  t.equal((await p.call(p.admin, 'POST', `/v2/project/${pid}/virtual_datapoint/run?dataPointID=a2&run=true`)).status, 200)
  const c = await liveClient(address, { authorization: basic(p.admin) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: ['a', 'a2', 'nope'], ref: 's1' })
  t.same(await c.next('subscribed'), { type: 'subscribed', ref: 's1', project_id: pid, datapoints: ['a', 'a2'], alerts: false }, 'the unknown identifier is left out')
  for (let i = 1; i <= 20; i++) await ingest({ a: [{ time: iso(i), value: i }], b: [{ time: iso(i), value: -i }] })
  await waitFor(() => c.points('a').length === 20 && c.points('a2').length >= 20, { what: '20 observations of a and of its virtual datapoint' })
  t.same(c.points('a').map((x) => x.value), Array.from({ length: 20 }, (_, i) => i + 1), 'every one, in order')
  t.same(c.points('a2').slice(-20).map((x) => x.value), Array.from({ length: 20 }, (_, i) => 2 * (i + 1)), 'the virtual datapoint\'s outputs')
  t.equal(c.points('a')[0].time, iso(1))
  t.same(c.points('b'), [], 'a datapoint not subscribed is not sent')
  t.equal(c.binaryFrames, 0, 'observations come as text frames (the hub sends bytes it encoded once, marked as text)')
  c.send({ type: 'unsubscribe', project_id: pid, datapoints: ['a'], ref: 'u1' })
  await c.next('unsubscribed')
  const n = c.messages.length
  await ingest({ a: [{ time: iso(99), value: 99 }] })
  await waitFor(() => c.points('a2').some((x) => x.value === 198), { what: 'the output of the last input' })
  t.notOk(c.messages.slice(n).some((m) => m.type === 'observations' && m.dataPointID === 'a'), 'nothing more of an unsubscribed datapoint')
})

t.test('"all" delivers datapoints created later; bad messages answer an error frame; a plain GET answers 400', async (t) => {
  const { p, address, pid, ingest } = await listening(t)
  const c = await liveClient(address, { authorization: basic(p.admin) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: 'all' })
  t.same((await c.next('subscribed')).datapoints, 'all')
  await ingest({ 'new one': [{ time: iso(1), value: 1 }, { time: iso(2), value: 2 }], 'Büro 3/Temperatur °C ☀': [{ time: iso(1), value: 3 }] })
  await waitFor(() => c.points('new one').length === 2, { what: 'the new datapoint\'s observations' })
  await waitFor(() => c.points('Büro 3/Temperatur °C ☀').length === 1, { what: 'the observation of a name outside ASCII' })
  t.equal(c.binaryFrames, 0, 'as text frames, their UTF-8 bytes intact')
  c.send({ type: 'subscribe', project_id: pid, datapoints: 'x' , ref: 'bad' })
  t.match(await c.next('error'), { ref: 'bad', code: 'INVALID_INPUT', error: /datapoints must be a list/ })
  c.send({ type: 'subscribe', project_id: 999999, datapoints: 'all' })
  t.match(await c.next('error', (m) => m.code === 'NOT_FOUND'), { error: 'Project 999999 not found' })
  t.notOk(c.closed, 'a refused message keeps the connection')
  const plain = await p.call(p.admin, 'GET', '/v2/live')
  t.match(plain, { status: 400, body: { success: false, error: /WebSocket: send an upgrade request/ } })
})

t.test('resume with since: the store fills the gap, then live, no hole, no duplicate, while ingest goes on', async (t) => {
  const { p, address, pid, ingest } = await listening(t)
  let i = 0
  let writing = true
  // A writer that never pauses: before, during and after the reconnect.
  const writer = (async () => { while (writing) { i++; await ingest({ s: [{ time: iso(i), value: i }] }) } })()
  const first = await liveClient(address, { authorization: basic(p.admin) })
  first.send({ type: 'subscribe', project_id: pid, datapoints: ['s'] })
  await waitFor(() => first.points('s').length >= 30, { what: '30 live observations' })
  first.ws.close()
  await first.closedWithin()
  const got = first.points('s')
  const last = got[got.length - 1].time
  const atClose = i
  await waitFor(() => i > atClose + 30, { what: 'ingest while disconnected' })
  const second = await liveClient(address, { authorization: basic(p.admin) })
  second.send({ type: 'subscribe', project_id: pid, datapoints: ['s'], since: last })
  await second.next('live')
  const target = i + 30
  await waitFor(() => second.points('s').some((x) => x.value >= target), { what: 'live observations after the fill' })
  writing = false
  await writer
  const all = [...got, ...second.points('s')].map((x) => x.value)
  const first1 = all[0]
  t.same(all, Array.from({ length: all.length }, (_, k) => first1 + k), 'consecutive: no hole and no duplicate across the reconnect')
  t.ok(second.points('s').some((x) => x.fill), 'the gap came from the store')
  t.ok(second.points('s').some((x) => !x.fill), 'then live')
})

t.test('a slow reader is closed with 4408 and never holds ingest back', async (t) => {
  const { p, address, pid, ingest } = await listening(t)
  const fast = await liveClient(address, { authorization: basic(p.admin) })
  const slow = await liveClient(address, { authorization: basic(p.admin) })
  for (const c of [fast, slow]) { c.send({ type: 'subscribe', project_id: pid, datapoints: 'all' }); await c.next('subscribed') }
  ;(slow.ws as any)._socket.pause() // reads nothing from now on
  const hub = (p.app as any).liveHub
  const values = Array.from({ length: 2000 }, (_, k) => ({ time: iso(k), value: k + 0.123456789 }))
  let batches = 0
  while (hub.metrics().closed_overflow === 0 && batches < 400) {
    await ingest({ [`dp ${batches % 10}`]: values })
    batches++
  }
  t.equal(hub.metrics().closed_overflow, 1, `the slow socket was closed after ${batches} batches of 2,000, every one acknowledged`)
  await waitFor(() => fast.points(`dp ${(batches - 1) % 10}`).length >= 2000, { what: 'the fast reader to get the last batch' })
  ;(slow.ws as any)._socket.resume()
  t.equal((await slow.closedWithin()).code, 4408, 'the documented close code')
  t.notOk(fast.closed, 'the fast reader stays')
})

t.test('a message sent the moment the socket opens is answered while the server still looks up the login', async (t) => {
  // @fastify/websocket drops frames that arrive before the handler listens; a Basic login's
  // password hash is read from the catalog after the upgrade (a PostgreSQL round trip in the
  // scaled mode, where CI once lost the first subscribe). Here the lookup after the upgrade
  // answers only once both frames have reached the server's socket.
  const { p, address, pid, ingest } = await listening(t)
  await ingest({ a: [{ time: iso(1), value: 1 }] })
  let upgraded = false
  let received = 0
  p.app.websocketServer.on('connection', (ws: WebSocket) => { upgraded = true; ws.on('message', () => { received++ }) })
  const findWithHash = p.catalog.users.findWithHash.bind(p.catalog.users)
  p.catalog.users.findWithHash = async (id) => {
    if (upgraded) await waitFor(() => received >= 2, { what: 'both frames at the server' })
    return findWithHash(id)
  }
  const c = await liveClient(address, { authorization: basic(p.admin) })
  c.send({ type: 'subscribe', project_id: pid, datapoints: ['a'], since: iso(0), ref: 'first' })
  c.send({ type: 'unsubscribe', project_id: pid, ref: 'second' })
  t.same((await c.next('subscribed')).ref, 'first', 'the first frame is not lost')
  await c.next('unsubscribed')
  t.same(c.messages.map((m) => m.type), ['subscribed', 'observations', 'live', 'unsubscribed'], 'both frames handled, in order')
  t.same(c.points('a'), [{ time: iso(1), value: 1, fill: true }])
})
