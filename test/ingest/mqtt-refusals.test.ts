// Why a publish was refused (issue 15, "a refused MQTT publish gives no reason anywhere"):
// one info line per refusal with account, topic and reason; MQTT 5 clients, which could carry
// a PUBACK reason code, are not spoken by aedes 1.x at all (CONNACK 1).
import t from 'tap'
import mqtt, { type MqttClient } from 'mqtt'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { DatapointResolver } from '../../ingest/datapoint-resolver.ts'
import { startBroker } from '../../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../../ingest/mqtt/tls-material.ts'

const T = 1_700_000_000_000_000_000n

t.test('refused publishes are logged at info with account, topic and reason', async (t) => {
  const dir = t.testdir()
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const tls = await loadTlsMaterial({ dataDir: dir })
  const { company, user } = await catalog.createCompanyWithAdmin('Acme', { email: 'a@acme.test', password: 'admin-pass-1' })
  const { project } = await catalog.projects.create(company.id, { name: 'P' }, user.id)
  const prefix = `lintel/${(await catalog.projects.settings(project.id)).project_handle}`
  const narrow = { write: { all: false, auths: [{ id: 1, key: 'dataPointID', value: 'mine', read: true, write: true }] }, read: { all: false, auths: [] } }
  await catalog.mqttAccounts.create(project.id, { username: 'narrow', password: 'narrow-password', rights: 'write', validUntil: Date.now() + 600_000, reach: narrow })
  await catalog.mqttAccounts.create(project.id, { username: 'reader', password: 'reader-password', rights: 'read', validUntil: Date.now() + 600_000 })
  const infos: { obj: Record<string, unknown>; msg: string }[] = []
  const log = { info: (obj: object, msg: string) => infos.push({ obj: obj as Record<string, unknown>, msg }), warn() {}, error() {} }
  const broker = await startBroker({
    catalog, ingest: (_p, batch) => store.append(batch), resolver: new DatapointResolver(catalog), log,
    refusalDelayMs: 0, listen: { host: '127.0.0.1', tlsPort: 0, wsPort: 0, tcpPort: 0, cert: tls.cert, key: tls.key },
  })
  const clients: MqttClient[] = []
  t.teardown(async () => { await Promise.all(clients.map((c) => c.endAsync(true))); await broker.close(); await store.close(); catalog.close() })
  const connect = async (username: string, opts: mqtt.IClientOptions = {}) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${broker.ports.tcp}`, { username, password: `${username}-password`, reconnectPeriod: 0, ...opts })
    clients.push(c)
    return c
  }
  const refusal = (msg: string, reason: RegExp) => infos.find((i) => i.msg === msg && reason.test(String(i.obj.reason)))

  const n = await connect('narrow')
  await n.publishAsync(prefix, `mine value=1 ${T}\nother value=1 ${T}\nbroken`, { qos: 1 })
  t.match(refusal('mqtt: lines dropped', /outside the account's write grant/)?.obj,
    { username: 'narrow', project_id: project.id, topic: prefix, reason: "outside the account's write grant: 1 line(s) dropped, first for datapoint 'other'" })
  t.match(refusal('mqtt: lines dropped', /malformed/)?.obj, { username: 'narrow', topic: prefix, reason: /^malformed lines: 1 dropped, first line 3: / })
  await n.publishAsync(`META/${prefix}`, '{"entity": {"id": "other", "type": "datapoint", "source": "x"}, "mode": ["add"], "tags": []}', { qos: 1 })
  t.match(refusal('mqtt: publish refused', /outside/)?.obj, { username: 'narrow', topic: `META/${prefix}`, reason: "outside the account's write grant: datapoint 'other'" })
  const closed = new Promise<void>((r) => n.once('close', () => r()))
  n.publish('elsewhere/p9', `x value=1 ${T}`, { qos: 1 })
  await closed
  t.match(refusal('mqtt: publish refused', /topic/)?.obj, { username: 'narrow', topic: 'elsewhere/p9', reason: /^topic outside the account's project lintel\// })

  const r = await connect('reader')
  const rClosed = new Promise<void>((res) => r.once('close', () => res()))
  r.publish(prefix, `x value=1 ${T}`, { qos: 1 })
  await rClosed
  t.match(refusal('mqtt: publish refused', /read rights/)?.obj, { username: 'reader', topic: prefix, reason: 'the account has read rights only' })
  t.match(broker.metrics(), { publishes_refused: 2, lines_outside_grant: 1, lines_dropped: 1, meta_outside_grant: 1, lines_stored: 1 })

  await t.rejects(connect('reader', { protocolVersion: 5 }), /Unsupported protocol version|unacceptable protocol version|protocol/i,
    'MQTT 5 is refused by aedes 1.x (CONNACK 1): no PUBACK reason codes can be sent')
})
