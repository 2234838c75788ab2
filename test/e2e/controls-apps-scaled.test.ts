// Controls apps in the scaled mode (issue 31 item 5): an API process and a broker process (two
// start() calls in this process, sharing only PostgreSQL, QuestDB, Kafka and Redis), as
// setpoints cross them: APPDEF goes out through the API's publish-only member of the broker
// cluster, and the broker forwards the reports it validated (APPSTATE, APPLOG, APPSYNC of the
// project's edge account) on its internal Redis channel. The edge device is a real MQTT client.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { ADMIN, until } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { requireService } from '../helpers/services.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { FLOW_SP, simulatedEdge, WEEK } from '../helpers/controls-site.ts'

const RUN = `${process.pid}_${Date.now()}`

t.test('api and broker in separate start()s: deployed through the cluster, reports over Redis, each log entry once', { timeout: 120_000 }, async (t) => {
  if (!await requireService(t, 'Redis', '127.0.0.1', 16379, 'scripts/services/redis.sh start')) return
  if (!await requireService(t, 'Kafka', '127.0.0.1', 19092, 'npm run test:deps')) return
  if (!await requireService(t, 'QuestDB', '127.0.0.1', 19000, 'npm run test:deps')) return
  const catalogUrl = await testDatabase(t)
  if (!catalogUrl) return
  const dir = t.testdir()
  const tls = await ensureRunTls()
  const env = (roles: string) => loadConfig({
    LINTEL_ROLES: roles, LINTEL_NODE_ID: `${roles}-${RUN}`, LINTEL_DATA_DIR: join(dir, roles),
    LINTEL_CATALOG: 'postgres', LINTEL_POSTGRES_URL: catalogUrl,
    LINTEL_STORE: 'questdb', LINTEL_QUESTDB: 'http://127.0.0.1:19000', LINTEL_QUESTDB_TABLE: `capp_${RUN}`,
    LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:19092', LINTEL_KAFKA_TOPIC: `capp.${RUN}`,
    LINTEL_REDIS_URL: 'redis://127.0.0.1:16379',
    LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...tls,
  })
  const api = await start(env('api'))
  t.teardown(() => api.stop())
  const broker = await start(env('broker'))
  t.teardown(() => broker.stop())
  t.ok(api.controls, 'the API process without the broker role has the controls-app service')
  t.notOk(api.broker)

  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(api.address + path, { method, headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  const pid = (await http('POST', '/v2/company/project', { name: 'Site' })).body.resource.project.id as number
  await api.catalog.setpoints.setSettings(pid, { enabled: true })
  const { load_balancing_group: group, project_handle: handle } = await api.catalog.projects.settings(pid)
  const account = { username: `edge-${RUN}`, password: 'edge-1-password' }
  t.equal((await http('POST', `/v2/project/${pid}/mqttuser`, { ...account, rights: 'write', edge: true })).status, 201)
  const ca = readFileSync(broker.caFile!)
  const clients: mqtt.MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const connect = async (who: { username: string; password: string }) => {
    const c = await mqtt.connectAsync(`mqtts://127.0.0.1:${broker.broker!.ports.tls}`, { ca, username: who.username, password: who.password, reconnectPeriod: 0, connectTimeout: 5000 })
    clients.push(c)
    return c
  }
  const edge = await simulatedEdge(connect, account, `CONTROLS/${group}/${handle}`)
  await edge.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({ entity: { id: FLOW_SP, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  t.ok(await until(async () => (await http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${FLOW_SP}`, { setpoint_min_value: 10, setpoint_max_value: 30 })).status === 200, 15_000), 'bounds')
  const cip = (await http('POST', `/v2/project/${pid}/componentInProject`, { component_id: 5 })).body.resource.id as number
  t.equal((await http('POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, { componentinproject_id: cip, pins: [{ pin_alphanumeric_id: 'flow_temp_setpoint', dataPointID: FLOW_SP }] })).status, 201)

  const id = (await http('POST', `/v2/controls/app?project_id=${pid}&componentinproject_id=${cip}&algorithm=schedule`, WEEK)).body.resource.id as string
  t.equal((await http('POST', `/v2/controls/app/${id}/run?project_id=${pid}`)).body.status.code, 200)
  t.match(await edge.def((d) => d.app_id === id && d.revision === 2, 'revision 2 through the cluster', 15_000), { desired: 'run', pins: { flow_temp_setpoint: FLOW_SP } })
  await edge.state(id, 2, 'Running')
  t.ok(await until(async () => (await http('GET', `/v2/controls/app/${id}?project_id=${pid}`)).body.status.code === 202, 15_000), 'Running, heard over Redis')
  await edge.log(id, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'wrote 21' })
  await edge.log(id, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'wrote 21' })
  await edge.log(id, 2, { kind: 'write', datapoint: FLOW_SP, value: 16, priority: 13, message: 'wrote 16' })
  t.ok(await until(async () => (await http('GET', `/v2/controls/app/${id}/logs?project_id=${pid}`)).body.items.some((e: any) => e.seq === 2), 15_000), 'seq 2 stored')
  const seqs = (await http('GET', `/v2/controls/app/${id}/logs?project_id=${pid}`)).body.items.filter((e: any) => e.seq !== null).map((e: any) => e.seq)
  t.same(seqs, [2, 1], 'each (app, seq) once')
  const before = edge.defs.length
  await edge.sync([])
  t.match(await edge.def((d) => d.app_id === id, 'the app again after APPSYNC', 15_000, before), { revision: 2 })
})
