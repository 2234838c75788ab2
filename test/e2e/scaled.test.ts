// The scaled mode end to end (issue 6): QuestDB, Kafka and Redis started by
// scripts/services/all.sh; one API process, one worker, two broker nodes. Publish over MQTT
// on either broker, read over HTTP. Faults: the worker is killed mid-stream and restarted
// (nothing acknowledged is lost, nothing doubled); Kafka down (publishes are refused, never
// acknowledged, and the broker keeps running).
import t from 'tap'
import { execFile, spawn, type ChildProcess } from 'node:child_process'
import { once } from 'node:events'
import { join } from 'node:path'
import { promisify } from 'node:util'
import mqtt, { type MqttClient } from 'mqtt'
import { requireService } from '../helpers/services.ts'

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

interface Proc { child: ChildProcess; out: string; url?: string; tcp?: number }

async function startRole(dir: string, roles: string, nodeId: string): Promise<Proc> {
  const child = spawn(process.execPath, ['--import', 'tsx', 'api/main.ts'], {
    env: { ...process.env, ...SCALED, LINTEL_DATA_DIR: dir, LINTEL_ROLES: roles, LINTEL_NODE_ID: nodeId }, stdio: ['ignore', 'pipe', 'pipe'],
  })
  const p: Proc = { child, out: '' }
  child.stderr!.on('data', (d) => { p.out += d })
  await new Promise<void>((resolve, reject) => {
    child.stdout!.on('data', (d) => {
      p.out += d
      if (/lintel roles: /.test(p.out) && (!roles.includes('api') || /listening on http/.test(p.out)) && (!roles.includes('broker') || /mqtt listening/.test(p.out))) resolve()
    })
    child.once('exit', (code) => reject(new Error(`${roles} exited ${code}: ${p.out}`)))
  })
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
  await exited
  clearTimeout(timer)
}

async function http(url: string, method: string, path: string, body?: unknown) {
  const res = await fetch(url + path, { method, headers: { authorization: ADMIN, ...(body ? { 'content-type': 'application/json' } : {}) }, body: body ? JSON.stringify(body) : undefined })
  return { status: res.status, body: await res.json() as any }
}

async function until(cond: () => Promise<boolean>, ms = 30_000) {
  const end = Date.now() + ms
  while (Date.now() < end) { if (await cond()) return true; await new Promise((r) => setTimeout(r, 100)) }
  return false
}

const T0 = 1_700_000_000_000_000_000n
const line = (id: string, i: number) => `${id} value=${i} ${T0 + BigInt(i) * 1_000_000_000n}`

t.test('two brokers, a worker and an API on QuestDB, Kafka and Redis', { timeout: 300_000 }, async (t) => {
  if (!await requireService(t, 'QuestDB', '127.0.0.1', 19000, 'scripts/services/questdb.sh start')) return
  const kafka = join(process.cwd(), 'scripts/services/kafka.sh')
  const kafkaEnv = { ...process.env, LINTEL_KAFKA_PORT: '29092', LINTEL_KAFKA_CONTROLLER_PORT: '29093' }
  await run('bash', [kafka, 'start'], { env: kafkaEnv })
  t.teardown(() => run('bash', [kafka, 'stop'], { env: kafkaEnv }).then(() => undefined))
  if (!await requireService(t, 'Redis', '127.0.0.1', 16379, 'scripts/services/redis.sh start')) return
  const dir = t.testdir()
  const procs: Proc[] = []
  const clients: MqttClient[] = []
  t.teardown(async () => {
    await Promise.all(clients.map((c) => c.endAsync(true)))
    for (const p of procs.reverse()) await stopProc(p)
  })
  const api = await startRole(dir, 'api', 'api-1'); procs.push(api)
  let worker = await startRole(dir, 'worker', 'worker-1'); procs.push(worker)
  const brokerA = await startRole(dir, 'broker', 'broker-a'); procs.push(brokerA)
  const brokerB = await startRole(dir, 'broker', 'broker-b'); procs.push(brokerB)

  const pid = (await http(api.url!, 'POST', '/v2/company/project', { name: 'Scaled' })).body.resource.project.id
  const handle = (await http(api.url!, 'GET', `/v2/project/${pid}`)).body.project.project_handle
  t.equal((await http(api.url!, 'POST', `/v2/project/${pid}/mqttuser`, { username: `gw-${RUN}`, password: 'gateway-pass', rights: 'write', validity: 7200 })).status, 201)
  const connect = async (p: Proc, id: string) => {
    const c = await mqtt.connectAsync(`mqtt://127.0.0.1:${p.tcp}`, { clientId: `${id}-${RUN}`, username: `gw-${RUN}`, password: 'gateway-pass', reconnectPeriod: 0 })
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
  const seen = new Promise<string>((resolve) => sub.once('message', (_t, p) => resolve(String(p))))
  await a.publishAsync(`lintel/${handle}/y`, line('cross', 3), { qos: 1 })
  t.equal(await seen, line('cross', 3))

  // Kill the worker mid-stream: every acknowledged line arrives exactly once.
  const N = 3000
  let acked = 0
  const publishing = (async () => {
    for (let i = 0; i < N; i++) { await a.publishAsync(`lintel/${handle}/z`, line('stream', i), { qos: 1 }); acked++ }
  })()
  await until(async () => acked > N / 3, 60_000)
  worker.child.kill('SIGKILL')
  await once(worker.child, 'exit')
  await publishing
  t.equal(acked, N, 'the brokers acknowledge while the worker is down (Kafka holds the data)')
  worker = await startRole(dir, 'worker', 'worker-1'); procs.push(worker)
  t.ok(await until(async () => (await count('stream')) === N, 120_000), 'after the restart, all acknowledged lines are stored')
  const values = (await http(api.url!, 'GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=stream&max=0`)).body.data.map((d: { value: number }) => d.value)
  t.same(values, Array.from({ length: N }, (_, i) => i), 'none lost, none doubled, in order')

  // Kafka unreachable: the broker refuses to acknowledge (closes the connection) and keeps running.
  await run('bash', [kafka, 'stop'], { env: kafkaEnv })
  const c = await connect(brokerA, 'c')
  const outcome = await Promise.race([
    new Promise<string>((resolve) => c.once('close', () => resolve('closed'))),
    c.publishAsync(`lintel/${handle}/k`, line('during-outage', 1), { qos: 1 }).then(() => 'acknowledged', () => 'closed'),
    new Promise<string>((resolve) => setTimeout(() => resolve('no answer'), 60_000)),
  ])
  t.equal(outcome, 'closed', 'no PUBACK while Kafka is down; the connection is closed so the client retries later')
  t.equal(brokerA.child.exitCode, null, 'the broker keeps running')
  const again = await connect(brokerA, 'c2')
  t.ok(again.connected, 'new connections are still accepted')
  const httpIngest = await http(api.url!, 'POST', `/v2/project/${pid}/timeseries`, { outage: [{ time: '2024-01-01T00:00:00Z', value: 1 }] })
  t.equal(httpIngest.status, 503, 'HTTP ingest answers 503')
  t.match(httpIngest.body, { success: false, error: /kafka|log/i })
  await run('bash', [kafka, 'start'], { env: kafkaEnv }) // so the processes can stop cleanly
})
