// The scaled mode end to end (issues 6, 17): QuestDB, Redis and PostgreSQL started by
// scripts/services/all.sh, a Kafka of the test's own; one API process, two workers, two
// broker nodes, each its own process with its own data directory and nothing shared but the
// engines (the catalog: a fresh PostgreSQL database, LINTEL_CATALOG=postgres; run-state
// changes reach the workers by LISTEN/NOTIFY). Publish over MQTT on either broker, read over
// HTTP. Faults: the worker that owns a project's log
// partition is killed mid-stream and the other takes the project over, its virtual datapoint
// included (nothing acknowledged is lost, no input or output doubled); Kafka down
// (publishes are refused, never acknowledged, and the broker keeps running).
import t from 'tap'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { readdirSync } from 'node:fs'
import { join } from 'node:path'
import { promisify } from 'node:util'
import mqtt, { type MqttClient } from 'mqtt'
import { keyPartition } from '../../engine/log/kafka-partition.ts'
import { requireService } from '../helpers/services.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { holdsWithin, messageWithin, settleWithin, watchClose } from '../helpers/wait.ts'
import { liveClient } from '../helpers/live-client.ts'

const run = promisify(execFile)
const RUN = `${process.pid}_${Date.now()}`
const ADMIN = 'Basic ' + Buffer.from('ops@scaled.test:scaled-pass').toString('base64')
const SCALED = {
  LINTEL_STORE: 'questdb', LINTEL_QUESTDB: process.env.LINTEL_QUESTDB_URL ?? 'http://127.0.0.1:19000', LINTEL_QUESTDB_TABLE: `e2e_${RUN}`,
  // A Kafka of this test's own (port 29092): the outage below must not disturb other tests.
  LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:29092', LINTEL_KAFKA_TOPIC: `e2e.${RUN}`,
  LINTEL_REDIS_URL: process.env.LINTEL_TEST_REDIS_URL ?? 'redis://127.0.0.1:16379',
  LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_MQTT_TCP_PORT: '0', LINTEL_LOG_LEVEL: 'warn',
  LINTEL_COMPANY_NAME: 'Scaled', LINTEL_ADMIN_EMAIL: 'ops@scaled.test', LINTEL_ADMIN_PASSWORD: 'scaled-pass',
}

interface Proc { child: ChildProcess; out: string; nodeId: string; url?: string; tcp?: number }

/** What a process did, for a failure message: still running, or how it ended, and its last output. */
const stateOf = (p: Proc) => `${p.nodeId} ${p.child.exitCode === null && p.child.signalCode === null ? 'is running' : `exited (code ${p.child.exitCode}, signal ${p.child.signalCode})`}; its output ends: ${p.out.slice(-3000)}`

/** The log partitions a worker said it owns last (its info line on every change). */
function partitionsOf(p: Proc): number[] | undefined {
  let last: number[] | undefined
  for (const line of p.out.split('\n')) {
    if (!line.includes('worker: runs the projects of these log partitions')) continue
    try { last = JSON.parse(line).partitions } catch { /* a line cut in two */ }
  }
  return last
}

async function startRole(base: string, catalogUrl: string, roles: string, nodeId: string): Promise<Proc> {
  // Each process has its own data directory and no other: the catalog is PostgreSQL.
  const extra = roles === 'worker' ? { LINTEL_LOG_LEVEL: 'info' } : {}
  const env: NodeJS.ProcessEnv = { ...process.env, ...SCALED, ...extra, LINTEL_CATALOG: 'postgres', LINTEL_POSTGRES_URL: catalogUrl, LINTEL_DATA_DIR: join(base, nodeId), LINTEL_ROLES: roles, LINTEL_NODE_ID: nodeId }
  delete env.LINTEL_CATALOG_DIR
  const child = spawn(process.execPath, ['--import', 'tsx', 'server/main.ts'], {
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  const p: Proc = { child, out: '', nodeId }
  child.stderr!.on('data', (d) => { p.out += d })
  await settleWithin(new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      p.out += d
      if (/lintel roles: /.test(p.out) && (!roles.includes('api') || /listening on http/.test(p.out)) && (!roles.includes('broker') || /mqtt listening/.test(p.out))) resolve()
    })
    child.once('exit', (code) => reject(new Error(`${roles} exited ${code}: ${p.out}`)))
  }), { what: () => `the ${roles} process ${nodeId} to start (output: ${p.out.slice(-2000)})`, timeoutMs: 60_000 })
  p.url = /listening on (http:\/\/\S+)/.exec(p.out)?.[1]
  const tcp = /mqtt:\/\/[^:]+:(\d+)/.exec(p.out)
  p.tcp = tcp ? Number(tcp[1]) : undefined
  return p
}

/** SIGTERM, and SIGKILL if it has not exited within 15 s. */
const stopProc = async (p: Proc) => {
  if (p.child.exitCode !== null || p.child.signalCode !== null) return
  const exited = once(p.child, 'exit')
  p.child.kill('SIGTERM')
  const timer = setTimeout(() => p.child.kill('SIGKILL'), 15_000)
  await settleWithin(exited, { what: 'a stopped process to exit (SIGKILL after 15 s)', timeoutMs: 20_000 })
  clearTimeout(timer)
}

async function http(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: ADMIN, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  return { status: res.status, body: await res.json() as any }
}

/** Whether `cond` holds within `ms` (bounded poll); the callers assert with their message. */
const until = (cond: () => Promise<boolean>, ms = 30_000) => holdsWithin(cond, { timeoutMs: ms, intervalMs: 100 })

const T0 = 1_700_000_000_000_000_000n
const line = (id: string, i: number) => `${id} value=${i} ${T0 + BigInt(i) * 1_000_000_000n}`

t.test('two brokers, two workers and an API on PostgreSQL, QuestDB, Kafka and Redis, each in its own directory', { timeout: 300_000 }, async (t) => {
  if (!await requireService(t, 'QuestDB', '127.0.0.1', 19000, 'scripts/services/questdb.sh start')) return
  // Dropped last: teardowns run in reverse, after the processes below have stopped.
  const catalogUrl = await testDatabase(t)
  if (!catalogUrl) return
  const kafka = join(process.cwd(), 'scripts/services/kafka.sh')
  const kafkaEnv = { ...process.env, LINTEL_KAFKA_PORT: '29092', LINTEL_KAFKA_CONTROLLER_PORT: '29093' }
  await run('bash', [kafka, 'start'], { env: kafkaEnv })
  t.teardown(() => run('bash', [kafka, 'stop'], { env: kafkaEnv }).then(() => undefined))
  if (!await requireService(t, 'Redis', '127.0.0.1', 16379, 'scripts/services/redis.sh start')) return
  const dir = t.testdir()
  const procs: Proc[] = []
  const clients: MqttClient[] = []
  t.teardown(async () => {
    // On a failure, every process's state and last output (the processes are gone afterwards).
    if (!t.passing()) for (const p of procs) t.comment(stateOf(p))
    await Promise.all(clients.map((c) => c.endAsync(true)))
    for (const p of procs.reverse()) await stopProc(p)
  })
  const role = (roles: string, nodeId: string) => startRole(dir, catalogUrl, roles, nodeId)
  const api = await role('api', 'api-1'); procs.push(api)
  const workers = [await role('worker', 'worker-1'), await role('worker', 'worker-2')]
  procs.push(...workers)
  const brokerA = await role('broker', 'broker-a'); procs.push(brokerA)
  const brokerB = await role('broker', 'broker-b'); procs.push(brokerB)
  // A worker writes into its directory only later (metrics snapshot), or never: none is common.
  const own = ['api-1', 'broker-a', 'broker-b', 'worker-1', 'worker-2']
  t.same(readdirSync(dir).filter((d) => !own.includes(d)), [], 'no directory but the processes\' own (no catalog directory)')
  for (const w of workers) t.match(w.out, 'worker: run-state changes by catalog notification (LISTEN/NOTIFY)', 'the worker listens for run-state changes')

  const pid = (await http(api.url!, 'POST', '/v2/company/project', { name: 'Scaled' })).body.resource.project.id
  const handle = (await http(api.url!, 'GET', `/v2/project/${pid}`)).body.project.project_handle
  t.equal((await http(api.url!, 'POST', `/v2/project/${pid}/mqttuser`, { username: `gw-${RUN}`, password: 'gateway-pass', rights: 'write', validity: 7200 })).status, 201)
  const connect = async (p: Proc, id: string) => {
    // A refused connection once failed CI with nothing to go on (ECONNREFUSED on a broker's
    // port right after its start): say whether the broker is still running and what it printed.
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${p.tcp}`, { clientId: `${id}-${RUN}`, username: `gw-${RUN}`, password: 'gateway-pass', reconnectPeriod: 0 })
      .catch((err: Error) => { throw new Error(`MQTT connect to ${p.nodeId} on port ${p.tcp} failed: ${err.message}; ${stateOf(p)}`) })
    clients.push(c)
    return c
  }
  const count = async (id: string) => {
    const r = await http(api.url!, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=${id}&max=0`)
    return r.status === 200 ? (r.body.data as unknown[]).length : -1
  }

  // Publish on either broker; read over HTTP from QuestDB.
  const a = await connect(brokerA, 'a')
  const b = await connect(brokerB, 'b')
  await a.publishAsync(`lintel/${handle}/x`, line('via-a', 1), { qos: 1 })
  await b.publishAsync(`lintel/${handle}/x`, line('via-b', 2), { qos: 1 })
  t.ok(await until(async () => (await count('via-a')) === 1 && (await count('via-b')) === 1), 'both brokers ingest into the same store')
  t.same((await http(api.url!, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=via-b`)).body.data, [{ time: '2023-11-14T22:13:22Z', value: 2 }])

  // A subscriber on broker B sees what is published on broker A (Redis-backed cluster).
  const subAcc = await http(api.url!, 'POST', `/v2/project/${pid}/mqttuser`, { username: `sub-${RUN}`, password: 'sub-password', rights: 'read' })
  t.equal(subAcc.status, 201)
  const sub = await mqtt.connectAsync(`mqtt://127.0.0.1:${brokerB.tcp}`, { username: `sub-${RUN}`, password: 'sub-password', reconnectPeriod: 0 })
  clients.push(sub)
  await sub.subscribeAsync(`lintel/${handle}/#`, { qos: 1 })
  const seen = messageWithin(sub, { what: 'the message published on broker A at a subscriber of broker B', timeoutMs: 10_000 })
  await a.publishAsync(`lintel/${handle}/y`, line('cross', 3), { qos: 1 })
  t.equal((await seen).text, line('cross', 3))

  // Live subscriptions on the API process, which runs no bus: the worker that stored a batch
  // relays it on the project's Redis channel (docs/scaled-mode.md "Live subscriptions"). A
  // resume reads QuestDB first (via-a), then what broker B takes in arrives live.
  const live = await liveClient(api.url!, { authorization: ADMIN })
  live.send({ type: 'subscribe', project_id: pid, datapoints: ['via-a', 'live'], since: '2023-11-14T00:00:00Z' })
  await live.next('live')
  t.same(live.points('via-a'), [{ time: '2023-11-14T22:13:21Z', value: 1, fill: true }], 'the resume reads the store')
  await b.publishAsync(`lintel/${handle}/x`, line('live', 4), { qos: 1 })
  await b.publishAsync(`lintel/${handle}/x`, line('live', 5), { qos: 1 })
  t.ok(await until(async () => live.points('live').length === 2, 15_000), 'what broker B took in reaches the API\'s socket, once stored')
  t.same(live.points('live').map((x) => x.value), [4, 5], 'in order')
  live.ws.close()

  // Two workers split the log's 6 partitions; a virtual datapoint (the twin of 'stream')
  // runs on the worker that owns the project's partition.
  const split = await until(async () => {
    const [p1, p2] = workers.map(partitionsOf)
    return !!p1 && !!p2 && p1.length > 0 && p2.length > 0 && p1.length + p2.length === 6 && p1.every((p) => !p2.includes(p))
  }, 60_000)
  t.ok(split, `the workers split the partitions (${workers.map((w) => JSON.stringify(partitionsOf(w))).join(' / ')})`)
  const part = keyPartition(String(pid), 6)
  const owner = workers.find((w) => partitionsOf(w)!.includes(part))!
  const other = workers.find((w) => w !== owner)!
  t.equal((await http(api.url!, 'POST', `/v2/project/${pid}/virtual_datapoint?dataPointID=twin&type=formula`, { pins: { P1: { dataPointID: 'stream' } }, parameters: { formula: 'P1' } })).status, 201)
  t.ok(await until(async () => (await http(api.url!, 'GET', `/v2/project/${pid}/virtual_datapoint?dataPointID=twin`)).body.status === 'Ready to start'), 'the virtual datapoint is ready')
  const notified = (w: Proc) => w.out.split('worker: run-state change notified').length - 1
  const before = workers.map(notified)
  t.equal((await http(api.url!, 'POST', `/v2/project/${pid}/virtual_datapoint/run?dataPointID=twin&run=true`)).body.status, 'Running')
  // The run reaches both workers by notification (no polling on the PostgreSQL catalog).
  t.ok(await until(async () => workers.every((w, i) => notified(w) > before[i]), 10_000), 'both workers are notified of the run')

  // Kill the owning worker mid-stream: the other takes over; every acknowledged line arrives
  // exactly once, and so does each output of the virtual datapoint.
  const N = 3000
  let acked = 0
  const publishing = (async () => {
    for (let i = 0; i < N; i++) { await a.publishAsync(`lintel/${handle}/z`, line('stream', i), { qos: 1 }); acked++ }
  })()
  t.ok(await until(async () => (await count('twin')) > 0, 60_000), 'the owner computes the virtual datapoint')
  await until(async () => acked > N / 3, 60_000)
  const ownerExit = once(owner.child, 'exit')
  owner.child.kill('SIGKILL')
  await settleWithin(ownerExit, { what: 'the owning worker to exit on SIGKILL' })
  const killedAt = Date.now()
  // The dead member's session (6 s) ends, the group rebalances, the other worker owns the
  // partition, starts the virtual datapoint from the store and stores the project again.
  t.ok(await until(async () => (partitionsOf(other) ?? []).includes(part), 30_000), 'the other worker owns the partition now')
  const takeover = Date.now() - killedAt
  t.ok(takeover <= 10_000, `the other worker took over within 10 s (${takeover} ms)`)
  const storedAtTakeover = await count('stream')
  t.ok(await until(async () => { const n = await count('stream'); return n > storedAtTakeover || n === N }, 30_000), 'and stores the project again')
  await publishing
  t.equal(acked, N, 'the brokers acknowledge throughout (Kafka holds the data)')
  t.ok(await until(async () => (await count('stream')) === N, 120_000), 'all acknowledged lines are stored')
  const values = (await http(api.url!, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=stream&max=0`)).body.data.map((d: { value: number }) => d.value)
  t.same(values, Array.from({ length: N }, (_, i) => i), 'none lost, none doubled, in order')
  t.ok(await until(async () => (await count('twin')) === N, 120_000), 'the virtual datapoint is complete on the other worker')
  const twins = (await http(api.url!, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=twin&max=0`)).body.data.map((d: { value: number }) => d.value)
  t.same(twins, Array.from({ length: N }, (_, i) => i), 'each output once, none lost')

  // Kafka unreachable: the broker refuses to acknowledge (closes the connection) and keeps running.
  await run('bash', [kafka, 'stop'], { env: kafkaEnv })
  const c = await connect(brokerA, 'c')
  const cGone = watchClose(c)
  let acknowledged = false
  c.publishAsync(`lintel/${handle}/k`, line('during-outage', 1), { qos: 1 }).then(() => { acknowledged = true }, () => {})
  // The close must come from the failed log write (the broker says so), not from anything else.
  await cGone.within({
    what: 'broker A\'s connection publishing while Kafka is down', timeoutMs: 60_000,
    cause: { what: 'the log write failed and the broker closed without PUBACK', check: () => brokerA.out.includes('store write failed; closing the connection without acknowledgement') },
  })
  t.notOk(acknowledged, 'no PUBACK while Kafka is down; the connection is closed so the client retries later')
  t.equal(brokerA.child.exitCode, null, 'the broker keeps running')
  const again = await connect(brokerA, 'c2')
  t.ok(again.connected, 'new connections are still accepted')
  const httpIngest = await http(api.url!, 'POST', `/v2/project/${pid}/timeseries`, { outage: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  t.equal(httpIngest.status, 503, 'HTTP ingest answers 503')
  t.match(httpIngest.body, { success: false, error: /kafka|log/i })
  await run('bash', [kafka, 'start'], { env: kafkaEnv }) // so the processes can stop cleanly
})
