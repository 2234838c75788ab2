// Two broker nodes sharing Redis (aedes-persistence-redis + mqemitter-redis): a message
// published on one node reaches a subscriber on the other, and a persistent session
// survives its node's restart; an account deleted through one node loses its connections on
// every node.
import t from 'tap'
import mqtt, { type MqttClient } from 'mqtt'
import { adminEndpoints } from '../../api/registry.ts'
import { Catalog } from '../../catalog/index.ts'
import { openSqliteStore } from '../../engine/store/sqlite-store.ts'
import { DatapointResolver } from '../../ingest/datapoint-resolver.ts'
import { IngestQueue } from '../../engine/observation-path/ingest-queue.ts'
import { startBroker, type Broker } from '../../ingest/mqtt/broker.ts'
import { loadTlsMaterial } from '../../ingest/mqtt/tls-material.ts'
import { redisOptions } from '../../ingest/mqtt/cluster.ts'
import { requireService } from '../helpers/services.ts'
import { nextEvent, waitFor, watchClose } from '../helpers/wait.ts'

const REDIS = process.env.LINTEL_TEST_REDIS_URL ?? 'redis://127.0.0.1:16379'
const silent = { info() {}, warn() {}, error() {} }
const T = 1_700_000_000_000_000_000n

t.test('two broker nodes share subscriptions, messages and sessions through Redis', async (t) => {
  const { host, port } = redisOptions(REDIS)
  if (!await requireService(t, 'Redis', host, port, 'scripts/services/redis.sh start')) return
  const dir = t.testdir()
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const tls = await loadTlsMaterial({ dataDir: dir })
  const { company, user } = await catalog.createCompanyWithAdmin(`Cluster ${Date.now()}`, { email: `c${Date.now()}@cluster.test`, password: 'cluster-pass' })
  const { project } = await catalog.projects.create(company.id, { name: 'C' }, user.id)
  const handle = (await catalog.projects.settings(project.id)).project_handle
  const suffix = `${process.pid}-${Date.now()}`
  await catalog.mqttAccounts.create(project.id, { username: `pub-${suffix}`, password: 'pub-password', rights: 'write', validUntil: null })
  await catalog.mqttAccounts.create(project.id, { username: `sub-${suffix}`, password: 'sub-password', rights: 'read', validUntil: null })
  const queue = new IngestQueue(store)
  const resolver = new DatapointResolver(catalog)
  const node = (id: string, tcpPort = 0) => startBroker({
    catalog, ingest: (_p, batch) => queue.enqueue(batch), resolver, log: silent, redisUrl: REDIS, nodeId: `${id}-${suffix}`,
    listen: { host: '127.0.0.1', tlsPort: 0, wsPort: 0, tcpPort, cert: tls.cert, key: tls.key },
  })
  let a: Broker = await node('a')
  const b: Broker = await node('b')
  const clients: MqttClient[] = []
  t.teardown(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)))
    await a.close(); await b.close(); await store.close(); catalog.close()
  })
  const connect = async (n: Broker, user: string, opts: mqtt.IClientOptions = {}) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${n.ports.tcp}`, { username: `${user}-${suffix}`, password: `${user}-password`, reconnectPeriod: 0, ...opts })
    clients.push(c)
    return c
  }

  const sub = await connect(b, 'sub', { clientId: `s1-${suffix}` })
  await sub.subscribeAsync(`lintel/${handle}/#`, { qos: 1 })
  const got: string[] = []
  sub.on('message', (_t, p) => got.push(String(p)))
  const pub = await connect(a, 'pub')
  await pub.publishAsync(`lintel/${handle}/x`, `x value=1 ${T}`, { qos: 1 })
  await waitFor(() => got.length > 0, { what: 'the message published on node a at the subscriber on node b' })
  t.same(got, [`x value=1 ${T}`], 'published on node a, received on node b')

  // A persistent session (clean=false, QoS 1) on node a, offline while a message arrives on b.
  const durableId = `durable-${suffix}`
  const d1 = await connect(a, 'sub', { clientId: durableId, clean: false })
  await d1.subscribeAsync(`lintel/${handle}/d`, { qos: 1 })
  await d1.endAsync()
  const aPort = a.ports.tcp!
  await a.close()
  await pub.endAsync(true)
  const pub2 = await connect(b, 'pub')
  await pub2.publishAsync(`lintel/${handle}/d`, `d value=2 ${T}`, { qos: 1 })
  a = await node('a', aPort) // node a restarts
  const d2 = await mqtt.connectAsync(`mqtt://127.0.0.1:${a.ports.tcp}`, { username: `sub-${suffix}`, password: 'sub-password', clientId: durableId, clean: false, reconnectPeriod: 0 })
  clients.push(d2)
  const [, queued] = await nextEvent(d2, 'message', { what: 'the queued message after the restart of node a' })
  t.equal(String(queued), `d value=2 ${T}`, 'the session and its queued message survived the restart of node a')
})

t.test('cluster: client ids are scoped to the account across nodes', async (t) => {
  const { host, port } = redisOptions(REDIS)
  if (!await requireService(t, 'Redis', host, port, 'scripts/services/redis.sh start')) return
  const dir = t.testdir()
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const tls = await loadTlsMaterial({ dataDir: dir })
  const suffix = `${process.pid}-${Date.now()}`
  const projectOf = async (name: string) => {
    const { company, user } = await catalog.createCompanyWithAdmin(`${name} ${suffix}`, { email: `${name}-${suffix}@cluster.test`, password: 'cluster-pass' })
    const { project } = await catalog.projects.create(company.id, { name }, user.id)
    return { id: project.id, handle: (await catalog.projects.settings(project.id)).project_handle }
  }
  const a = await projectOf('A')
  const b = await projectOf('B')
  for (const [p, u, rights] of [[a, 'a-dev', 'read'], [a, 'a-pub', 'write'], [b, 'b-evil', 'write']] as const) {
    await catalog.mqttAccounts.create(p.id, { username: `${u}-${suffix}`, password: `${u}-password`, rights, validUntil: null })
  }
  const queue = new IngestQueue(store)
  const resolver = new DatapointResolver(catalog)
  const node = (id: string) => startBroker({
    catalog, ingest: (_p, batch) => queue.enqueue(batch), resolver, log: silent, redisUrl: REDIS, nodeId: `${id}-${suffix}`,
    listen: { host: '127.0.0.1', tlsPort: 0, wsPort: 0, tcpPort: 0, cert: tls.cert, key: tls.key },
  })
  const n1 = await node('n1')
  const n2 = await node('n2')
  const clients: MqttClient[] = []
  t.teardown(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)))
    await n1.close(); await n2.close(); await store.close(); catalog.close()
  })
  const connect = (n: Broker, user: string, opts: mqtt.IClientOptions = {}) => new Promise<[MqttClient, boolean]>((resolve, reject) => {
    const c = mqtt.connect(`mqtt://127.0.0.1:${n.ports.tcp}`, { username: `${user}-${suffix}`, password: `${user}-password`, reconnectPeriod: 0, ...opts })
    clients.push(c)
    c.once('connect', (ack) => resolve([c, ack.sessionPresent]))
    c.once('error', reject)
  })
  const id = `gw-${suffix}`
  const [dev] = await connect(n1, 'a-dev', { clientId: id, clean: false })
  await dev.subscribeAsync(`lintel/${a.handle}/#`, { qos: 1 })
  // Another company's account on the other node, same client id: the device stays.
  const [evil] = await connect(n2, 'b-evil', { clientId: id, clean: true })
  await evil.publishAsync(`lintel/${b.handle}/x`, `x value=1 ${T}`, { qos: 1 }) // a round trip through both nodes
  t.ok(dev.connected, 'a connection of another account on another node does not end it')
  await dev.endAsync()
  const [pub] = await connect(n2, 'a-pub')
  await pub.publishAsync(`lintel/${a.handle}/q`, `q value=1 ${T}`, { qos: 1 })
  const [, evilPresent] = await connect(n2, 'b-evil', { clientId: id, clean: false })
  t.equal(evilPresent, false, 'no session of the device for the other company')
  const [dev2, present] = await connect(n2, 'a-dev', { clientId: id, clean: false })
  t.equal(present, true, 'the device resumes its session on the other node')
  const [, msg] = await nextEvent(dev2, 'message', { what: 'the queued message of the resumed session' })
  t.equal(String(msg), `q value=1 ${T}`)
  // Within the account, the takeover crosses nodes.
  const closed = nextEvent(dev2, 'close', { what: 'the takeover from the other node to close the older connection' })
  const [taker] = await connect(n1, 'a-dev', { clientId: id, clean: false })
  await closed
  t.ok(taker.connected, 'the same account on the other node takes the connection over')
})

t.test('cluster: an account deleted through one node loses its connections on the other node too', async (t) => {
  // The API process deletes the account and ends the connections of its own broker node
  // (main.ts onMqttAccountRevoked); a node elsewhere in the cluster learns it from the catalog
  // (its expiry check, every second) and must close them as well.
  const { host, port } = redisOptions(REDIS)
  if (!await requireService(t, 'Redis', host, port, 'scripts/services/redis.sh start')) return
  const dir = t.testdir()
  const catalog = Catalog.open(dir, adminEndpoints)
  const store = await openSqliteStore({ dir })
  const tls = await loadTlsMaterial({ dataDir: dir })
  const suffix = `${process.pid}-${Date.now()}`
  const { company, user } = await catalog.createCompanyWithAdmin(`Revoke ${suffix}`, { email: `r-${suffix}@cluster.test`, password: 'cluster-pass' })
  const { project } = await catalog.projects.create(company.id, { name: 'R' }, user.id)
  const gone = await catalog.mqttAccounts.create(project.id, { username: `gone-${suffix}`, password: 'gone-password', rights: 'write', validUntil: null })
  const keptAccount = await catalog.mqttAccounts.create(project.id, { username: `kept-${suffix}`, password: 'kept-password', rights: 'write', validUntil: null })
  const queue = new IngestQueue(store)
  const resolver = new DatapointResolver(catalog)
  const node = (id: string) => startBroker({
    catalog, ingest: (_p, batch) => queue.enqueue(batch), resolver, log: silent, redisUrl: REDIS, nodeId: `${id}-${suffix}`,
    listen: { host: '127.0.0.1', tlsPort: 0, wsPort: 0, tcpPort: 0, cert: tls.cert, key: tls.key },
  })
  const a = await node('a')
  const b = await node('b')
  const clients: MqttClient[] = []
  t.teardown(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)))
    await a.close(); await b.close(); await store.close(); catalog.close()
  })
  const connect = async (n: Broker, user: string) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${n.ports.tcp}`, { username: `${user}-${suffix}`, password: `${user}-password`, reconnectPeriod: 0 })
    clients.push(c)
    return c
  }
  const onA = await connect(a, 'gone')
  const onB = await connect(b, 'gone')
  const kept = await connect(b, 'kept')
  const closedA = watchClose(onA)
  const closedB = watchClose(onB)
  const keptClose = watchClose(kept)

  await catalog.mqttAccounts.delete(project.id, gone.id) // what DELETE .../mqttuser/{id} does on node a's process
  a.revoke(`gone-${suffix}`)
  await closedA.within({ what: 'the connection on the node that revoked the account', timeoutMs: 2_000 })
  await closedB.within({ what: 'the connection of the deleted account on the other node (closed within its expiry check, 1 s)', timeoutMs: 5_000 })
  await t.rejects(connect(b, 'gone'), /Not authorized|Bad username or password/, 'and it cannot connect again there')
  await kept.publishAsync(`lintel/${(await catalog.projects.settings(project.id)).project_handle}/x`, `x value=1 ${T}`, { qos: 1 })
  t.notOk(keptClose.closed(), 'another account on the other node stays connected')

  // A password or rights change made through another node (its API process revokes only its
  // own connections) ends the connections on this node too, at its next check.
  await catalog.mqttAccounts.update(project.id, keptAccount.id, { password: 'changed-password' })
  await keptClose.within({ what: 'the connection of an account whose password changed elsewhere (its next check, 1 s)', timeoutMs: 5_000 })
  await t.rejects(connect(b, 'kept'), /Not authorized|Bad username or password/, 'the old password no longer connects')
  const reader = await catalog.mqttAccounts.create(project.id, { username: `reader-${suffix}`, password: 'reader-password', rights: 'write', validUntil: null })
  const onBReader = await connect(b, 'reader')
  const readerClose = watchClose(onBReader)
  await catalog.mqttAccounts.update(project.id, reader.id, { description: 'a label' })
  await catalog.mqttAccounts.update(project.id, reader.id, { rights: 'read' })
  await readerClose.within({ what: 'the connection of an account whose rights changed elsewhere', timeoutMs: 5_000 })
})
