// Setpoints in the scaled mode (issue 11): an API process and a broker process (here two
// start() calls in this process, sharing only PostgreSQL, QuestDB, Kafka and Redis). NEWSPT
// goes out through the API's publish-only member of the broker cluster (mqemitter-redis);
// the broker forwards the SPTACK answers it validated on its internal Redis channel.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { join } from 'node:path'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { startEdgeAgent } from '../../edge/agent.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { ADMIN, until } from '../helpers/live-platform.ts'
import { basic, type Login } from '../helpers/platform.ts'
import { testDatabase } from '../helpers/postgres.ts'
import { requireService } from '../helpers/services.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'

const RUN = `${process.pid}_${Date.now()}`
const DP = 'ahu-1.sp'

t.test('api and broker in separate start()s: written, refused, no grant', { timeout: 120_000 }, async (t) => {
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
    LINTEL_STORE: 'questdb', LINTEL_QUESTDB: 'http://127.0.0.1:19000', LINTEL_QUESTDB_TABLE: `spt_${RUN}`,
    LINTEL_LOG: 'kafka', LINTEL_KAFKA_BROKERS: '127.0.0.1:19092', LINTEL_KAFKA_TOPIC: `spt.${RUN}`,
    LINTEL_REDIS_URL: 'redis://127.0.0.1:16379', LINTEL_SETPOINT_TIMEOUT_MS: '5000',
    LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: '0', LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...tls,
  })
  const api = await start(env('api'))
  t.teardown(() => api.stop())
  const broker = await start(env('broker'))
  t.teardown(() => broker.stop())
  t.ok(api.setpoints, 'the API process without the broker role has the setpoint service')
  t.notOk(api.broker)

  const http = async (method: string, path: string, body?: unknown, who: Login = ADMIN) => {
    const res = await fetch(api.address + path, {
      method, headers: { authorization: basic(who), ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: await res.json() as any }
  }
  const pid = (await http('POST', '/v2/company/project', { name: 'Site' })).body.resource.project.id as number
  await api.catalog.setpoints.setSettings(pid, { enabled: true })
  const { load_balancing_group: group, project_handle: handle } = await api.catalog.projects.settings(pid)
  const account = { username: `edge-${RUN}`, password: 'edge-1-password' }
  t.equal((await http('POST', `/v2/project/${pid}/mqttuser`, { ...account, rights: 'write', edge: true })).status, 201)
  const driver = new SimulatedBacnetDriver([{ id: DP, relinquishDefault: 20 }])
  const agent = await startEdgeAgent({ url: `mqtts://127.0.0.1:${broker.broker!.ports.tls}`, ca: readFileSync(broker.caFile!), ...account, group, handle, driver, reconnectPeriod: 0 })
  t.teardown(() => agent.stop())
  for (const id of [DP, 'elsewhere']) {
    await agent.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({ entity: { id, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
    t.equal((await http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${id}`, { setpoint_min_value: 15, setpoint_max_value: 30 })).status, 200)
  }
  const write = (query: string, who?: Login) => http('POST', `/v2/datapoint/setpoint?project_id=${pid}&${query}`, undefined, who)
  const settled = async (reference: string) => {
    let last: any
    await until(async () => { last = (await http('GET', `/v2/datapoint/setpoint/${reference}`)).body; return last.status !== 'requested' }, 15_000)
    return { ...last, log: JSON.parse(last.log) }
  }

  const w = await write(`dataPointID=${DP}&value=21.5&acked=true`)
  t.equal(w.status, 200, JSON.stringify(w.body))
  const op = await settled(w.body.resource.reference)
  t.equal(op.status, 'written')
  t.same(op.log.map((e: { status: string }) => e.status), ['initialized', 'requested', 'requested', 'written'], 'one entry per answer')
  t.match(op.log[2].msg, /Accepted by the edge device \(edge account edge-/)
  t.equal(driver.read(DP).presentValue, 21.5)

  const refused = await settled((await write('dataPointID=elsewhere&value=20&acked=true')).body.resource.reference)
  t.equal(refused.status, 'failed')
  t.match(refused.log.at(-1).msg, /Refused by the edge device \(edge account edge-.*\): unknown datapoint 'elsewhere'/)

  // Without the grant.
  const company = (await http('GET', '/v2/company')).body
  const none = { email: 'none@live.test', password: 'none-password' }
  const u = await http('POST', '/v2/company/user', { company_id: company.company.id, firstName: 'none', lastName: 'Test', ...none })
  const r = await http('POST', `/v2/project/${pid}/role`, { name: 'none-role', authed_endpoints: [30] })
  await http('POST', `/v2/project/${pid}/role/${r.body.resource.id}/user/${u.body.resource.id}`)
  const denied = await write(`dataPointID=${DP}&value=20`, none)
  t.equal(denied.status, 403)
  t.equal(denied.body.error, 'Unauthorized access to endpoint: 141 - POST /v2/datapoint/setpoint')
})
