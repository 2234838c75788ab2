// Storage-first at the edges (DESIGN.md "Data flow", issue 16 item 8): the whole platform
// with its store behind a gate the test holds, releases or fails (helpers/gated-store.ts),
// checked with a real MQTT client and real HTTP requests, not at the ingest queue alone:
//   - a QoS 1 PUBACK and an HTTP 200 come only after the store made the data durable;
//   - a subscriber gets a time-series message only after it is stored;
//   - a failed store write gets no PUBACK: the connection is closed, the client sends the
//     message again after reconnecting, and it is stored once;
//   - a full ingest queue makes publishers and HTTP writers wait (counted), nothing dropped;
//   - a store that refuses as overloaded gives HTTP 503 with the failure envelope.
import t from 'tap'
import { OverloadedError } from '../../core/errors.ts'
import { GatedStore } from '../helpers/gated-store.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { isSettled, messageWithin, nextEvent, settleWithin, waitFor } from '../helpers/wait.ts'

const T = 1_700_000_000_000_000_000n // 2023-11-14T22:13:20Z in ns

async function gatedPlatform(t: Parameters<typeof livePlatform>[0], ingestQueue?: { maxPending: number }) {
  let gate!: GatedStore
  const live = await livePlatform(t, {}, { wrapStore: (store) => (gate = new GatedStore(store)), ingestQueue })
  const metrics = () => live.platform.broker.metrics() as Record<string, number>
  const post = (pid: number, body: unknown) => fetch(`${live.platform.address}/v2/project/${pid}/timeseries`, {
    method: 'POST', headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: JSON.stringify(body),
  })
  return { live, gate, metrics, post }
}

t.test('MQTT: PUBACK only after the store write; none while the write is held', async (t) => {
  const { live, gate, metrics } = await gatedPlatform(t)
  const pid = await live.project('Gate')
  const pub = await live.connect(await live.account(pid, 'dev', 'write'))
  gate.hold()
  let storedAtAck = -1
  const acked = pub.publishAsync(`lintel/p${pid}/x`, `held value=1 ${T}`, { qos: 1 }).then(() => { storedAtAck = gate.stored })
  await waitFor(() => gate.held === 1, { what: 'the broker to hand the message to the store' })
  t.match(metrics(), { pending: 1, stored: 0 }, 'the message waits in the ingest queue for its store write')
  t.notOk(await isSettled(acked), 'no PUBACK while the store write is held')
  t.equal((await live.read(pid, 'held')).data?.length ?? 0, 0, 'and nothing readable')
  gate.release()
  await settleWithin(acked, { what: 'the PUBACK after the store write' })
  t.equal(storedAtAck, 1, 'the PUBACK came after the store write resolved')
  t.same((await live.read(pid, 'held')).data, [{ time: '2023-11-14T22:13:20Z', value: 1 }])
})

t.test('MQTT: a subscriber gets a time-series message only after it is stored', async (t) => {
  const { live, gate } = await gatedPlatform(t)
  const pid = await live.project('Sub')
  const sub = await live.connect(await live.account(pid, 'reader', 'read'))
  await sub.subscribeAsync(`lintel/p${pid}/#`, { qos: 1 })
  const got: { text: string; storedThen: number }[] = []
  sub.on('message', (_topic, payload) => { got.push({ text: String(payload), storedThen: gate.stored }) })
  const pub = await live.connect(await live.account(pid, 'dev', 'write'))
  gate.hold()
  const acked = pub.publishAsync(`lintel/p${pid}/x`, `seen value=3 ${T}`, { qos: 1 })
  await waitFor(() => gate.held === 1, { what: 'the broker to hand the message to the store' })
  // The message's PUBACK and forwarding wait for the same store write: while it is held, an
  // idle round trip of the subscriber's own connection proves nothing was forwarded meanwhile.
  await sub.subscribeAsync(`lintel/p${pid}/none`, { qos: 1 })
  t.same(got, [], 'subscribers get nothing while the store write is held (forwarded before it was stored)')
  const next = messageWithin(sub, { what: 'the message forwarded to the subscriber after the store write' })
  gate.release()
  await settleWithin(acked, { what: 'the PUBACK after the store write' })
  t.equal((await next).text, `seen value=3 ${T}`)
  t.same(got, [{ text: `seen value=3 ${T}`, storedThen: 1 }], 'forwarded once, after the store write resolved')
})

t.test('MQTT: a failed store write closes the connection without PUBACK; the message comes again and is stored once', async (t) => {
  const { live, gate, metrics } = await gatedPlatform(t)
  const pid = await live.project('Fail')
  // A persistent session that reconnects: MQTT.js keeps an unacknowledged QoS 1 message and
  // sends it again on the new connection.
  const pub = await live.connect(await live.account(pid, 'dev', 'write'), { clientId: 'redeliver', clean: false, reconnectPeriod: 50 })
  gate.fail(() => new Error('disk on fire'), 1)
  const closed = nextEvent(pub, 'close', { what: 'the broker to close the connection after the failed write' })
  let acks = 0
  const acked = pub.publishAsync(`lintel/p${pid}/x`, `again value=7 ${T}`, { qos: 1 }).then(() => { acks++ })
  await closed
  t.equal(gate.failed, 1, 'the store refused the write')
  t.equal(metrics().store_failures, 1, 'the broker counted the failure')
  t.equal(acks, 0, 'no PUBACK for the failed write')
  await settleWithin(acked, { what: 'the PUBACK of the message sent again after reconnecting', timeoutMs: 10_000 })
  t.equal(gate.stored, 1, 'stored by the second attempt')
  t.same((await live.read(pid, 'again')).data, [{ time: '2023-11-14T22:13:20Z', value: 7 }], 'stored once')
  t.match(metrics(), { store_failures: 1, lines_stored: 1, failed: 1, stored: 1 })
})

t.test('MQTT: a full ingest queue makes publishers wait; released, every message is stored', async (t) => {
  const { live, gate, metrics } = await gatedPlatform(t, { maxPending: 2 })
  const pid = await live.project('Full')
  const a = await live.connect(await live.account(pid, 'dev-a', 'write'))
  const b = await live.connect(await live.account(pid, 'dev-b', 'write'))
  gate.hold()
  const first = a.publishAsync(`lintel/p${pid}/x`, `a value=1 ${T}`, { qos: 1 })
  await waitFor(() => gate.held === 1, { what: "publisher A's write to reach the store" })
  // One observation waits for the store; B's two do not fit under maxPending = 2.
  const second = b.publishAsync(`lintel/p${pid}/x`, `b value=1 ${T}\nb value=2 ${T + 1_000_000_000n}`, { qos: 1 })
  await waitFor(() => metrics().backpressure_waits === 1, { what: 'publisher B to wait for room in the queue' })
  t.match(metrics(), { pending: 1, enqueued: 1, stored: 0 }, "B's lines are not queued: the bound holds")
  t.notOk(await isSettled(second), 'B gets no PUBACK while it waits')
  t.notOk(await isSettled(first), 'nor A while its write is held')
  gate.release()
  await settleWithin(Promise.all([first, second]), { what: 'both PUBACKs after the release' })
  t.match(metrics(), { pending: 0, enqueued: 3, stored: 3, failed: 0 })
  t.same((await live.read(pid, 'b')).data.map((d: { value: number }) => d.value), [1, 2], 'nothing dropped')
  t.equal((await live.read(pid, 'a')).data.length, 1)
})

t.test('MQTT: QoS 0 messages sent before a DISCONNECT are all stored, however slow the store', async (t) => {
  // mosquitto_pub -l at QoS 0 sends its lines, a DISCONNECT and closes at once. aedes reads
  // the next chunk of a connection only once the messages of the last one are handled, and
  // storage-first makes that wait for the store: the rest waits unread when the socket
  // closes, and must be stored all the same (before, about a fifth of such a burst was lost).
  const { live, gate, metrics } = await gatedPlatform(t)
  const pid = await live.project('Burst')
  const pub = await live.connect(await live.account(pid, 'dev', 'write'))
  gate.hold()
  const line = (i: number) => `burst value=${i} ${T + BigInt(i) * 1_000_000_000n}`
  const burst = (from: number, to: number) => {
    // One write: the broker gets the burst as one chunk of many messages.
    const stream = (pub as unknown as { stream: { cork(): void; uncork(): void } }).stream
    stream.cork()
    for (let i = from; i < to; i++) pub.publish(`lintel/p${pid}/x`, line(i), { qos: 0 })
    stream.uncork()
  }
  burst(0, 100)
  await waitFor(() => gate.held >= 1, { what: 'the first messages to reach the store' })
  burst(100, 200)
  await pub.endAsync() // DISCONNECT, then the socket closes
  gate.release()
  await waitFor(() => metrics().lines_stored === 200, { what: 'all 200 lines to be stored', timeoutMs: 10_000 })
  const values = (await live.read(pid, 'burst', '&max=1000')).data.map((d: { value: number }) => d.value)
  t.same(values, Array.from({ length: 200 }, (_, i) => i), 'every message, in order')
})

t.test('HTTP: POST timeseries answers only after the store write', async (t) => {
  const { live, gate, post } = await gatedPlatform(t)
  const pid = await live.project('Http')
  gate.hold()
  let storedAtAnswer = -1
  const answer = post(pid, { h: [{ time: '2024-01-01T00:00:00Z', value: 5 }] }).then(async (res) => {
    storedAtAnswer = gate.stored
    return { status: res.status, body: await res.json() }
  })
  await waitFor(() => gate.held === 1, { what: 'the request to reach the store' })
  t.notOk(await isSettled(answer), 'no answer while the store write is held')
  gate.release()
  t.same(await settleWithin(answer, { what: 'the answer after the store write' }), { status: 200, body: { success: true, operation: '', resource: {} } })
  t.equal(storedAtAnswer, 1, 'answered after the store write resolved')
  t.same((await live.read(pid, 'h')).data, [{ time: '2024-01-01T00:00:00Z', value: 5 }])
})

t.test('HTTP: a full queue makes writers wait; a store that refuses as overloaded gives 503 with the envelope', async (t) => {
  const { live, gate, metrics, post } = await gatedPlatform(t, { maxPending: 2 })
  const pid = await live.project('Busy')
  gate.hold()
  const first = post(pid, { q: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  await waitFor(() => gate.held === 1, { what: 'the first request to reach the store' })
  const second = post(pid, { q: [{ time: '2024-01-01T00:01:00Z', value: 2 }, { time: '2024-01-01T00:02:00Z', value: 3 }] })
  await waitFor(() => metrics().backpressure_waits === 1, { what: 'the second request to wait for room in the queue' })
  t.notOk(await isSettled(second), 'the waiting writer has no answer yet')
  gate.release()
  t.same((await Promise.all([first, second])).map((r) => r.status), [200, 200], 'both answered once stored')
  t.same((await live.read(pid, 'q')).data.map((d: { value: number }) => d.value), [1, 2, 3])

  // The store's own bound (engine/store/sqlite-store.ts maxPendingRows) refuses with
  // OverloadedError; the gate refuses the same way.
  const busy = 'Time-series store is busy: 4000000 observations wait to be written; retry later'
  gate.fail(() => new OverloadedError(busy))
  const refused = await post(pid, { fresh: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  t.equal(refused.status, 503)
  t.same(await refused.json(), { success: false, error: busy, operation: '' })
  t.equal(gate.failed, 1)
  t.equal((await live.read(pid, 'fresh')).success, false, 'the refused request left no datapoint behind')
  gate.release()
  t.equal((await post(pid, { fresh: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })).status, 200, 'accepted again once the store has room')
})
