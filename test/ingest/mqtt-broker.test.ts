// The MQTT broker with real clients over real sockets (MQTT.js over TLS and WebSockets):
// accounts, topic ACL, line protocol to the store, META, CONTROLS, takeover, expiry.
import t from 'tap'
import { once } from 'node:events'
import { connect as netConnect } from 'node:net'
import { connect as tlsConnect } from 'node:tls'
import { hashId } from '../../catalog/hash-id.ts'
import { livePlatform, until } from '../helpers/live-platform.ts'
import { nextEvent, waitFor } from '../helpers/wait.ts'

// Every wait has a bound and names what it waited for (test/helpers/wait.ts): a close that
// does not come fails the test there instead of hanging to tap's time-out.
const closeOf = (c: { once(event: string, f: (...args: any[]) => void): unknown }, what: string, timeoutMs = 5000) => nextEvent(c, 'close', { what, timeoutMs })
const T = 1_700_000_000_000_000_000n // 2023-11-14T22:13:20Z in ns

t.test('publish over TLS: stored durably, readable over HTTP, received by subscribers', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Site')
  const dev = await live.account(pid, 'edge', 'write')
  const reader = await live.account(pid, 'dashboard', 'read')
  const sub = await live.connect(reader, { clientId: 'dash-1' })
  await sub.subscribeAsync(`lintel/p${pid}/#`, { qos: 1 })
  const got: string[] = []
  sub.on('message', (topic, payload) => got.push(`${topic} ${payload}`))

  const pub = await live.connect(dev, { clientId: 'edge-1' })
  const lines = [`room/temp value=21.5 ${T}`, `"Raum\\ 1\\ \\"Süd\\"" value=-3 ${T / 1000000n}`, `room/temp value=22 ${T / 1000n + 60_000_000n}`].join('\n')
  await pub.publishAsync(`lintel/p${pid}/whatever/postfix`, lines, { qos: 1 }) // resolves on PUBACK
  t.same((await live.read(pid, 'room/temp')).data, [
    { time: '2023-11-14T22:13:20Z', value: 21.5 }, { time: '2023-11-14T22:14:20Z', value: 22 },
  ], 'acknowledged means stored; ns and µs timestamps; the postfix does not name the series')
  t.same((await live.read(pid, 'Raum 1 "Süd"')).data, [{ time: '2023-11-14T22:13:20Z', value: -3 }], 'quoted identifier with escapes, ms timestamp')
  t.ok(await until(() => got.length === 1), 'the subscriber got the stored message within the bound')
  t.equal(got[0], `lintel/p${pid}/whatever/postfix ${lines}`)

  const dps = (await live.http('GET', `/v2/project/${pid}`)).body.datapoints
  t.same(dps.map((d: { dataPointID: string; hash_id: string }) => [d.dataPointID, d.hash_id]).sort(),
    [['Raum 1 "Süd"', hashId('Raum 1 "Süd"')], ['room/temp', hashId('room/temp')]].sort())
})

t.test('QoS 0, 1 and 2 all store; malformed lines are dropped, good ones of the same message kept', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Q')
  const pub = await live.connect(await live.account(pid, 'q', 'write'))
  for (const qos of [0, 1, 2] as const) await pub.publishAsync(`lintel/p${pid}`, `q${qos} value=${qos} ${T}`, { qos })
  t.ok(await until(async () => (await live.read(pid, 'q0')).data?.length === 1), 'QoS 0')
  t.equal((await live.read(pid, 'q1')).data.length, 1)
  t.equal((await live.read(pid, 'q2')).data.length, 1)
  await pub.publishAsync(`lintel/p${pid}/x`, `good value=1 ${T}\nbad value=abc ${T}\nnovalue 12 ${T}\n\ngood value=2 ${T + 1_000_000_000n}\nbad2 value=1`, { qos: 1 })
  t.same((await live.read(pid, 'good')).data.map((d: { value: number }) => d.value), [1, 2])
  t.equal((await live.read(pid, 'bad')).success, false, 'nothing stored for a bad line')
  t.match(live.platform.broker.metrics(), { lines_dropped: 3 })
})

t.test('authentication: wrong password, unknown user, bad client ids, plain TCP and TLS 1.3 refused', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Auth')
  const dev = await live.account(pid, 'dev', 'write')
  await t.rejects(live.connect({ username: 'dev', password: 'wrong-password' }), /Bad username or password|Not authorized/)
  await t.rejects(live.connect({ username: 'nobody', password: 'whatever-pass' }), /Bad username or password|Not authorized/)
  await t.rejects(live.connect(dev, { clientId: 'a/b' }), /Identifier rejected/)
  await t.rejects(live.connect(dev, { clientId: 'a+b' }), /Identifier rejected/)
  await t.rejects(live.connect(dev, { clientId: 'a#b' }), /Identifier rejected/)
  t.ok(await live.connect(dev, { clientId: 'Ünïcödé-ok' }))

  // A TLS 1.3-only client cannot connect: the listeners speak TLS 1.2 only.
  const socket = tlsConnect({ host: '127.0.0.1', port: live.platform.broker.ports.tls, ca: live.ca, minVersion: 'TLSv1.3', servername: 'localhost' })
  const [err] = await once(socket, 'error')
  t.match(String(err), /version|protocol/i)
  // Plain MQTT on the TLS port gets no CONNACK: the TLS listener drops the connection.
  const plain = netConnect(live.platform.broker.ports.tls, '127.0.0.1')
  const answer: Buffer[] = []
  plain.on('data', (d) => answer.push(d))
  plain.on('error', () => {})
  // CONNECT, MQTT 3.1.1, clean session, keepalive 60, client id "p"
  plain.write(Buffer.from([0x10, 13, 0, 4, 0x4d, 0x51, 0x54, 0x54, 4, 2, 0, 60, 0, 1, 0x70]))
  await closeOf(plain, 'the TLS listener to drop a plain-TCP connection')
  t.notOk(answer.some((b) => b[0] === 0x20), 'no CONNACK over plain TCP')
  t.equal(live.platform.broker.ports.tcp, undefined, 'no plain-TCP listener unless configured')
})

t.test('topic ACL: foreign project, read-only account, $SYS', async (t) => {
  const live = await livePlatform(t)
  const mine = await live.project('Mine')
  const other = await live.project('Other')
  const ro = await live.connect(await live.account(mine, 'ro', 'read'))
  const granted = await ro.subscribeAsync([`lintel/p${mine}/#`, `META/lintel/p${mine}`, `CONTROLS/lintel/p${mine}`])
  t.same(granted.map((g) => g.qos), [0, 0, 0], 'its own project')
  for (const filter of [`lintel/p${other}/#`, '#', '$SYS/#', `CONTROLS/lintel/p${other}`, `lintel/+/#`]) {
    await t.rejects(ro.subscribeAsync(filter), /Subscribe error/, `refused with SUBACK 128: ${filter}`)
  }
  t.ok(ro.connected, 'a refused subscription does not end the connection')
  const broker = live.platform.broker
  t.equal(broker.metrics().publishes_refused, 0)
  const roClosed = closeOf(ro, 'the read-only publisher to be disconnected')
  ro.publish(`lintel/p${mine}/x`, `ro value=1 ${T}`, { qos: 1 })
  await roClosed
  t.equal(broker.metrics().publishes_refused, 1, 'a read-only account publishing is refused (counted) and disconnected')
  t.equal(broker.metricsOf([mine]).publishes_refused, 1, 'counted for its project')
  t.equal((await live.read(mine, 'ro')).success, false, 'and nothing was stored')

  const rw = await live.connect(await live.account(mine, 'rw', 'write'))
  const rwClosed = closeOf(rw, 'the publisher to a foreign project to be disconnected')
  rw.publish(`lintel/p${other}/x`, `foreign value=1 ${T}`, { qos: 1 })
  await rwClosed
  t.equal(broker.metrics().publishes_refused, 2, 'publishing to another project is refused (counted) and disconnected')
  t.equal(broker.metricsOf([other]).publishes_refused, 0, 'counted for the publisher\'s project, not the target')
  t.equal((await live.read(other, 'foreign')).success, false, 'nothing reaches another project')
})

t.test('client-id takeover: a second connection with the same id ends the first', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Take')
  const dev = await live.account(pid, 'dev', 'write')
  const first = await live.connect(dev, { clientId: 'gateway' })
  const closed = closeOf(first, 'the older connection to be closed by the takeover')
  const second = await live.connect(dev, { clientId: 'gateway' })
  await closed
  t.ok(second.connected, 'the newer connection stays')
  t.equal(live.platform.broker.metrics().connected_clients, 1, 'one connection for the client id: the older one was taken over')
  t.equal(live.platform.broker.metrics().connections_refused, 0, 'nothing was refused')
})

t.test('WebSockets over TLS', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('WS')
  const c = await live.connect(await live.account(pid, 'browser', 'write'), { via: 'ws' })
  await c.publishAsync(`lintel/p${pid}`, `ws value=7 ${T}`, { qos: 1 })
  t.same((await live.read(pid, 'ws')).data, [{ time: '2023-11-14T22:13:20Z', value: 7 }])
})

t.test('expiry and revocation end live connections', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Exp')
  const broker = live.platform.broker
  const short = await live.account(pid, 'short', 'write', 1)
  const c = await live.connect(short)
  // Validity 1 s, checked every second (the broker's expiry tick): closed within 3 s.
  await closeOf(c, 'the connection of an expired account to be closed', 3000)
  t.equal(broker.metrics().connected_clients, 0, 'closed at expiry')
  await t.rejects(live.connect(short), { code: 4 }, 'the expired account is refused: CONNACK 4, bad username or password')
  t.equal(broker.metrics().connections_refused, 1)
  const again = await live.account(pid, 'short', 'write')
  const c2 = await live.connect(again)
  const closed = closeOf(c2, 'the connection of the deleted account to be closed')
  t.equal((await live.http('DELETE', `/v2/project/${pid}/mqttuser/${again.id}`)).status, 200)
  await closed
  t.equal(broker.metrics().connected_clients, 0, 'deleting the account closes its connection')
  await t.rejects(live.connect(again), { code: 4 }, 'and its login is refused')
})

t.test('META: V2 creates and tags entities; V1 for an unknown entity is dropped', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Meta')
  const c = await live.connect(await live.account(pid, 'meta', 'write'))
  await c.publishAsync(`META/lintel/p${pid}`, JSON.stringify({
    entity: { id: 'ahu1_supply_temp', type: 'datapoint', source: 'bms' }, mode: ['clean'],
    tags: [{ key: 'unit', value: '°C' }, { key: 'room', value: 'A' }, { key: 'limits', value: { min: 5, max: 30 } }],
  }), { qos: 1 })
  await c.publishAsync(`META/lintel/p${pid}`, JSON.stringify({ name: 'unknown_point', objtype: 'datapoint', unit: 'K' }), { qos: 1 })
  await c.publishAsync(`META/lintel/p${pid}`, JSON.stringify({
    entity: { id: 'ahu1_supply_temp', type: 'datapoint', source: 'edge' }, mode: ['update'], tags: [{ key: 'room', value: 'B' }, { key: 'new', value: 'no' }],
  }), { qos: 1 })
  const dps = (await live.http('GET', `/v2/project/${pid}`)).body.datapoints
  t.same(dps.map((d: { dataPointID: string; tags: object }) => [d.dataPointID, d.tags]), [
    ['ahu1_supply_temp', { unit: '°C', room: 'B', limits: '{"min":5,"max":30}' }],
  ])
  const dp = (await live.platform.catalog.datapoints.find(pid, 'ahu1_supply_temp'))!
  t.equal((await live.platform.catalog.entityTags.sources('datapoint', dp.id)).room, 'edge', 'the source is kept per association')
  t.equal((await live.read(pid, 'ahu1_supply_temp', '&units_system=imperial')).success, undefined, 'the unit tag drives conversion')
})

t.test('CONTROLS: valid messages are routed, invalid ones dropped', async (t) => {
  const live = await livePlatform(t)
  const pid = await live.project('Ctl')
  const acc = await live.account(pid, 'ctl', 'write')
  const sub = await live.connect(await live.account(pid, 'edge-sub', 'read'))
  await sub.subscribeAsync(`CONTROLS/lintel/p${pid}`, { qos: 1 })
  const received: string[] = []
  sub.on('message', (_topic, payload) => received.push(String(payload)))
  const routed: unknown[] = []
  live.platform.broker.controls.subscribe((m) => routed.push(m))
  const c = await live.connect(acc)
  const setpoint = { type: 'NEWSPT', swop_version: 0.1, datapoint: 'valve', value: 40, priority: 13 }
  const good = { type: 'STATUS', swop_version: 0.1, state: 'online' } // another type of the protocol: routed as it is
  await c.publishAsync(`CONTROLS/lintel/p${pid}`, JSON.stringify({ ...setpoint, priority: 99 }), { qos: 1 })
  await c.publishAsync(`CONTROLS/lintel/p${pid}`, 'not json', { qos: 1 })
  // A valid NEWSPT from an account: only the platform sends setpoints (after its safeguards).
  await c.publishAsync(`CONTROLS/lintel/p${pid}`, JSON.stringify(setpoint), { qos: 1 })
  await c.publishAsync(`CONTROLS/lintel/p${pid}`, JSON.stringify(good), { qos: 1 })
  // The valid message was published last on the same connection: once it is received, the
  // two invalid ones before it would have been received already.
  await waitFor(() => received.length === 1, { what: 'the valid CONTROLS message at the subscriber' })
  t.same(received, [JSON.stringify(good)], 'subscribers see only the valid message')
  t.match(routed, [{ projectId: pid, username: 'ctl', message: { type: 'STATUS', state: 'online' } }])
  t.equal(routed.length, 1, 'the NEWSPT of an account is not routed')
  t.match(live.platform.broker.metrics(), { controls_dropped: 2, controls_refused: 1 })
})
