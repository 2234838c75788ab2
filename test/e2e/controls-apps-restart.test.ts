// The platform side of controls apps survives the platform's restart (issue 31 item 5): app
// states and logs are in the catalog, and a deployment the edge never confirmed is sent again
// at start and answered on the edge's APPSYNC after it reconnects. The edge device is simulated
// by a real MQTT client on the project's edge account.
import t from 'tap'
import { readFileSync } from 'node:fs'
import mqtt from 'mqtt'
import { freePort } from '../helpers/free-port.ts'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { ADMIN, until } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { FLOW_SP, simulatedEdge, WEEK } from '../helpers/controls-site.ts'

t.test('restarted: states, logs and pending deployments are kept; the pending one is sent again and answered', async (t) => {
  const env = {
    LINTEL_DATA_DIR: t.testdir(), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: String(await freePort()), LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...await ensureRunTls(),
  }
  let p = await start(loadConfig(env))
  t.teardown(() => p.stop())
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.address! + path, { method, headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  const ca = readFileSync(p.caFile!)
  const clients: mqtt.MqttClient[] = []
  t.teardown(() => Promise.all(clients.map((c) => c.endAsync(true))))
  const connect = async (who: { username: string; password: string }) => {
    const c = await mqtt.connectAsync(`mqtts://127.0.0.1:${p.broker!.ports.tls}`, { ca, username: who.username, password: who.password, reconnectPeriod: 0, connectTimeout: 5000 })
    clients.push(c)
    return c
  }
  const pid = (await http('POST', '/v2/company/project', { name: 'R' })).body.resource.project.id as number
  await p.catalog.setpoints.setSettings(pid, { enabled: true })
  const { load_balancing_group: group, project_handle: handle } = await p.catalog.projects.settings(pid)
  const topic = `CONTROLS/${group}/${handle}`
  const account = { username: 'edge-r', password: 'edge-r-password' }
  t.equal((await http('POST', `/v2/project/${pid}/mqttuser`, { ...account, rights: 'write', edge: true })).status, 201)
  let edge = await simulatedEdge(connect, account, topic)
  await edge.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({ entity: { id: FLOW_SP, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  t.ok(await until(async () => (await http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${FLOW_SP}`, { setpoint_min_value: 10, setpoint_max_value: 30 })).status === 200), 'bounds')
  const cip = (await http('POST', `/v2/project/${pid}/componentInProject`, { component_id: 5 })).body.resource.id as number
  t.equal((await http('POST', `/v2/project/${pid}/componentInProject/pin/datapoint`, { componentinproject_id: cip, pins: [{ pin_alphanumeric_id: 'flow_temp_setpoint', dataPointID: FLOW_SP }] })).status, 201)
  const create = async () => (await http('POST', `/v2/controls/app?project_id=${pid}&componentinproject_id=${cip}&algorithm=schedule`, WEEK)).body.resource.id as string
  const get = async (id: string) => (await http('GET', `/v2/controls/app/${id}?project_id=${pid}`)).body

  // One app runs and has logged a write; the edge goes away; a second app is started meanwhile.
  const running = await create()
  await http('POST', `/v2/controls/app/${running}/run?project_id=${pid}`)
  await edge.def((d) => d.app_id === running && d.revision === 2, 'revision 2 of the first app')
  await edge.state(running, 2, 'Running')
  t.ok(await until(async () => (await get(running)).status.code === 202), 'Running')
  await edge.log(running, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'wrote 21' })
  t.ok(await until(async () => (await http('GET', `/v2/controls/app/${running}/logs?project_id=${pid}`)).body.items.some((e: any) => e.seq === 1)), 'logged')
  await edge.client.endAsync()
  const pending = await create()
  t.equal((await http('POST', `/v2/controls/app/${pending}/run?project_id=${pid}`)).body.status.code, 200, 'Starting; nobody hears it')
  await p.stop()

  p = await start(loadConfig(env))
  t.equal(p.controls!.counters.deployed, 1, 'the unconfirmed deployment was sent again at start (the confirmed one was not)')
  t.match(await get(running), { status: { code: 202, message: 'Running' }, deployment: { revision: 2, confirmed_revision: 2, pending: false } })
  t.match(await get(pending), { status: { code: 200, message: 'Starting' }, deployment: { desired: 'run', revision: 2, confirmed_revision: 0, pending: true } })
  const log = (await http('GET', `/v2/controls/app/${running}/logs?project_id=${pid}`)).body.items
  t.same(log.map((e: any) => e.seq ?? e.status_code), [1, 202, 200, 100], 'the log, newest first, as before the restart')

  // The edge comes back and tells what it holds: it gets the pending app, answers, the app runs.
  edge = await simulatedEdge(connect, account, topic)
  await edge.sync([{ app_id: running, revision: 2 }])
  const def = await edge.def((d) => d.app_id === pending, 'the pending app after APPSYNC')
  t.match(def, { revision: 2, desired: 'run', pins: { flow_temp_setpoint: FLOW_SP } })
  t.notOk(edge.defs.some((d) => d.app_id === running), 'the edge holds the running app\'s revision: not sent')
  await edge.state(pending, 2, 'Running')
  t.ok(await until(async () => (await get(pending)).status.code === 202), 'the pending app runs')
  await edge.log(running, 1, { kind: 'write', datapoint: FLOW_SP, value: 21, priority: 13, message: 'wrote 21' }) // sent again after the reconnect
  await edge.log(running, 2, { kind: 'write', datapoint: FLOW_SP, value: 16, priority: 13, message: 'wrote 16' })
  t.ok(await until(async () => (await http('GET', `/v2/controls/app/${running}/logs?project_id=${pid}`)).body.meta.total_items === 5), 'seq 2 stored')
  t.same((await http('GET', `/v2/controls/app/${running}/logs?project_id=${pid}`)).body.items.filter((e: any) => e.seq !== null).map((e: any) => e.seq), [2, 1], 'seq 1 once')
})
