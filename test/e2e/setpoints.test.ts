// Setpoints end to end over TLS with the edge agent and its simulated BACnet-style driver
// (issue 11, "Done when"): write, overwrite at the same priority, a more urgent priority wins,
// null relinquishes, a dry run writes nothing, the spec's refusals, edge offline → failed after
// the time-out, platform restarted while `requested`, and a deleted project ends its operations.
import t from 'tap'
import { readFileSync } from 'node:fs'
import { freePort } from '../helpers/free-port.ts'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { ADMIN, until } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { setpointSite } from '../helpers/setpoint-site.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import type { DriverWrite } from '../../edge/driver.ts'
import { startEdgeAgent } from '../../edge/agent.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'

const DP = 'ahu-1.sp'
const NULLS = new Array(16).fill(null)

t.test('write, overwrite, priority, relinquish, dry run: the operation, its log and the series', async (t) => {
  const site = await setpointSite(t)
  const { driver } = site

  // 1. An acknowledged write.
  const w = await site.write(`dataPointID=${DP}&value=21.5&acked=true`)
  t.equal(w.status, 200, JSON.stringify(w.body))
  t.match(w.body, { success: true, operation: 'create', resource: { acked: true, dataPointID: DP, dryrun: false, priority: 13, value: 21.5, project_id: site.pid } })
  const ref = w.body.resource.reference as string
  t.match(ref, /^[0-9a-f-]{36}$/)
  const op1 = await site.settled(ref)
  t.equal(op1.status, 'written')
  t.equal(op1.old_value, 'null', 'nothing was at priority 13 before')
  t.match(op1.log[0], { status: 'initialized', acked: true, dryrun: false })
  t.same(op1.log.map((e: { status: string }) => e.status), ['initialized', 'requested', 'requested', 'written'])
  t.match(op1.log[2].msg, /Accepted by the edge device/)
  t.same(op1.log.at(-1).priorityArray, NULLS, 'the last entry holds the array before the write')
  t.equal(op1.log.at(-1).overwritten_value, 'null')
  for (const e of op1.log) t.ok(!Number.isNaN(Date.parse(e.time)), 'every entry has a time')
  t.equal(driver.read(DP).presentValue, 21.5)
  t.ok(await until(async () => (await site.read(site.pid, DP)).data?.at(-1)?.value === 21.5), 'the present value shows up in the series')

  // 2. Overwrite at the same priority (rule 1): the overwritten value is reported.
  const op2 = await site.settled((await site.write(`dataPointID=${DP}&value=22&acked=true`)).body.resource.reference)
  t.equal(op2.status, 'written')
  t.equal(op2.old_value, '21.5')
  t.equal(op2.log.at(-1).priorityArray[12], 21.5)

  // 3. A more urgent non-null priority wins (rule 5): priority 8 holds 19, a write at 13 has no effect.
  t.equal((await site.settled((await site.write(`dataPointID=${DP}&value=19&priority=8&acked=true`)).body.resource.reference)).status, 'written')
  t.equal(driver.read(DP).presentValue, 19)
  const op3 = await site.settled((await site.write(`dataPointID=${DP}&value=23&priority=13&acked=true`)).body.resource.reference)
  t.equal(op3.status, 'written')
  t.equal(op3.log.at(-1).effective, false)
  t.match(op3.log.at(-1).msg, /without effect: priority 8 holds the non-null value 19/)
  t.equal(driver.read(DP).presentValue, 19, 'the present value stays with priority 8')

  // 4. null relinquishes priority 8: priority 13 (23) takes over.
  const op4 = await site.settled((await site.write(`dataPointID=${DP}&value=null&priority=8&acked=true`)).body.resource.reference)
  t.equal(op4.status, 'written')
  t.equal(op4.old_value, '19')
  t.equal(op4.log.at(-1).overwritten_value, '19')
  t.equal(driver.read(DP).presentValue, 23)
  t.equal(driver.read(DP).priorityArray[7], null)
  t.ok(await until(async () => (await site.read(site.pid, DP)).data?.at(-1)?.value === 23), 'the written value 23 read back from the series within the bound')

  // 5. A dry run writes nothing and publishes nothing.
  const published = site.agent.counters.published
  const before = driver.read(DP)
  const op5 = await site.settled((await site.write(`dataPointID=${DP}&value=25&acked=true&dryrun=true`)).body.resource.reference)
  t.equal(op5.status, 'written')
  t.match(op5.log[0], { dryrun: true, acked: true })
  t.match(op5.log.at(-1).msg, /Dry run/)
  t.equal(op5.old_value, '23', 'the value that would be overwritten')
  t.equal(op5.log.at(-1).overwritten_value, '23', 'a dry run logs what it would overwrite ...')
  t.same(op5.log.at(-1).priorityArray, [...NULLS.slice(0, 12), 23, ...NULLS.slice(13)], '... and the priority array as it is')
  t.same(driver.read(DP), before, 'the device is unchanged')
  t.equal(site.agent.counters.published, published, 'no present value was published')

  // keep_out_of_service keeps the local automation (priority 16) from overwriting.
  t.ok(driver.localAutomation('ahu-2.sp', 17), 'the local automation writes while in service')
  t.equal((await site.settled((await site.write('dataPointID=ahu-2.sp&value=26&priority=16&acked=true&keep_out_of_service=true')).body.resource.reference)).status, 'written')
  t.notOk(driver.localAutomation('ahu-2.sp', 18), 'out of service: the local automation cannot overwrite')
  t.equal(driver.read('ahu-2.sp').presentValue, 26)

  // An unacknowledged write: no reference, the edge writes and answers nothing (rule 3).
  const un = await site.write('dataPointID=ahu-2.sp&value=27&priority=16')
  t.same(un.body.resource, { acked: false, dataPointID: 'ahu-2.sp', dryrun: false, priority: 16, value: 27 })
  t.ok(await until(() => driver.read('ahu-2.sp').presentValue === 27), 'the driver holds 27 within the bound')

  // The audit trail of the datapoint: every request, newest first, who, value, priority, result.
  const audit = await site.http('GET', `/v2/datapoint/setpoints?project_id=${site.pid}&dataPointID=${DP}`)
  t.equal(audit.status, 200)
  t.equal(audit.body.writable, true)
  t.equal(audit.body.setpoint_min_value, 15)
  t.same(audit.body.operations.map((o: { value: number | null }) => o.value), [25, null, 23, 19, 22, 21.5])
  t.match(audit.body.operations[0], { requested_by: ADMIN.email, priority: 13, dryrun: true, status: 'written', result: /Dry run/ })
})

t.test('refusals in the spec\'s order and texts; the operator unlocks priorities', async (t) => {
  const site = await setpointSite(t)
  const { catalog } = site.platform
  const out = await site.write(`dataPointID=${DP}&value=99&acked=true`)
  t.equal(out.status, 400)
  t.equal(out.body.error, `Setpoint value 99 for datapoint '${DP}' is outside its write bounds [15,30]`)
  const urgent = await site.write(`dataPointID=${DP}&value=20&priority=3`)
  t.equal(urgent.status, 403)
  t.match(urgent.body.error, /^Setpoint write refused: priority 3 is more urgent than 8.*Higher priorities can be unlocked per project on request\.$/)
  t.equal((await site.write(`dataPointID=${DP}&value=20&priority=8&acked=true`)).status, 200, '8, the manual operator level, is allowed')
  t.equal((await site.write(`dataPointID=${DP}&value=20&priority=17`)).status, 400, 'priorities are 1..16')
  // Priority is checked before the bounds (safeguard 1 before 3).
  t.equal((await site.write(`dataPointID=${DP}&value=99&priority=3`)).status, 403)
  await catalog.setpoints.setSettings(site.pid, { maxPriority: 1 })
  const unlocked = await site.settled((await site.write(`dataPointID=${DP}&value=20&priority=3&acked=true`)).body.resource.reference)
  t.equal(unlocked.status, 'written', 'unlocked down to 1 by the operator')

  // A datapoint without bounds, one that is not writable, a bad value.
  await site.agent.client.publishAsync(`${site.group}/${site.handle}`, 'plain value=1 1700000000000000000', { qos: 1 })
  await site.agent.client.publishAsync(`META/${site.group}/${site.handle}`, JSON.stringify({ entity: { id: 'nobounds', type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  const plain = await site.write('dataPointID=plain&value=20')
  t.equal(plain.status, 400)
  t.equal(plain.body.error, "Setpoint writing refused for datapoint 'plain': it is not writable (its metadata has no tag writable=true)")
  const nb = await site.write('dataPointID=nobounds&value=20')
  t.equal(nb.status, 400)
  t.match(nb.body.error, /^Setpoint writing refused for datapoint 'nobounds': it has no write bounds/)
  t.equal((await site.write(`dataPointID=${DP}&value=abc`)).status, 400)
  t.equal((await site.write('dataPointID=nowhere&value=20')).status, 404)
  t.equal((await site.http('PUT', `/v2/datapoint?project_id=${site.pid}&dataPointID=${DP}`, { setpoint_min_value: 5, setpoint_max_value: 1 })).status, 400, 'min above max')

  // The edge device refuses a point it does not own: the operation fails with the reason.
  await site.agent.client.publishAsync(`META/${site.group}/${site.handle}`, JSON.stringify({ entity: { id: 'elsewhere', type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
  await site.http('PUT', `/v2/datapoint?project_id=${site.pid}&dataPointID=elsewhere`, { setpoint_min_value: 0, setpoint_max_value: 100 })
  const refused = await site.settled((await site.write('dataPointID=elsewhere&value=20&acked=true')).body.resource.reference)
  t.equal(refused.status, 'failed')
  t.match(refused.log.at(-1).msg, /Refused by the edge device \(edge account edge-1\): unknown datapoint 'elsewhere'/)

  // Disabled: the spec's "not found or not enabled".
  await catalog.setpoints.setSettings(site.pid, { enabled: false })
  const off = await site.write(`dataPointID=${DP}&value=20`)
  t.equal(off.status, 404)
  t.equal(off.body.error, `Project ${site.pid} was not found or setpoint writing is not enabled for it`)
})

t.test('edge offline: the operation fails after the time-out', async (t) => {
  const site = await setpointSite(t, { LINTEL_SETPOINT_TIMEOUT_MS: '2000' })
  await site.agent.stop()
  const w = await site.write(`dataPointID=${DP}&value=21&acked=true`)
  const op = await site.settled(w.body.resource.reference)
  t.equal(op.status, 'failed')
  // Requested (sent), then failed by the time-out: the log shows both, the time-out's text and its wait.
  t.same(op.log.map((e: { status: string }) => e.status), ['initialized', 'requested', 'failed'])
  t.equal(op.log.at(-1).msg, 'No answer from the edge device within 2 s: the edge device is unreachable')
  t.ok(Date.parse(op.log.at(-1).time) - Date.parse(op.log[0].time) >= 2000, 'not before the time-out')
})

t.test('a deleted project ends its pending operations', async (t) => {
  const site = await setpointSite(t, { LINTEL_SETPOINT_TIMEOUT_MS: '60000' })
  await site.agent.stop()
  const service = site.platform.setpoints!
  const failed = service.counters.failed
  await site.write(`dataPointID=${DP}&value=21&acked=true`)
  t.equal((await site.http('DELETE', `/v2/project/${site.pid}`)).status, 200)
  t.equal(service.counters.failed - failed, 1, 'ended before the project was forgotten, not left to its time-out')
})

t.test('the platform restarted while requested: the edge agent answers after it; an unanswered one times out at its deadline', async (t) => {
  const dir = t.testdir()
  const TIMEOUT_MS = 20_000 // longer than a stop and a start on a loaded machine (3 s was not)
  const env = {
    LINTEL_DATA_DIR: dir, LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: String(await freePort()), LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, LINTEL_SETPOINT_TIMEOUT_MS: String(TIMEOUT_MS), ...await ensureRunTls(),
  }
  let p = await start(loadConfig(env))
  t.teardown(() => p.stop())
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.address + path, { method, headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  const pid = (await http('POST', '/v2/company/project', { name: 'R' })).body.resource.project.id as number
  await p.catalog.setpoints.setSettings(pid, { enabled: true })
  const { load_balancing_group: group, project_handle: handle } = await p.catalog.projects.settings(pid)
  t.equal((await http('POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-r', password: 'edge-r-password', rights: 'write', edge: true })).status, 201)

  // The edge agent (same TLS port after the restart, so it reconnects by itself) owns DP only;
  // its field bus is slow: a write waits until the test lets it through.
  let release!: () => void
  const held = new Promise<void>((resolve) => { release = resolve })
  class SlowBusDriver extends SimulatedBacnetDriver {
    override async write(w: DriverWrite) { await held; return super.write(w) }
  }
  const driver = new SlowBusDriver([{ id: DP, relinquishDefault: 20 }])
  const agent = await startEdgeAgent({
    url: `mqtts://127.0.0.1:${p.broker!.ports.tls}`, ca: readFileSync(p.caFile!), username: 'edge-r', password: 'edge-r-password',
    group, handle, driver, ownPointsOnly: true, reconnectPeriod: 100,
  })
  t.teardown(() => agent.stop())
  let connects = 0
  agent.client.on('connect', () => { connects++ })
  const received: any[] = []
  agent.client.on('message', (_t, m) => received.push(JSON.parse(String(m))))
  // DP and 'other' are writable with bounds; the agent does not own 'other': nobody answers it.
  for (const id of [DP, 'other']) {
    await agent.client.publishAsync(`META/${group}/${handle}`, JSON.stringify({ entity: { id, type: 'datapoint', source: 'edge' }, mode: ['add'], tags: [{ key: 'writable', value: 'true' }] }), { qos: 1 })
    t.ok(await until(async () => (await http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=${id}`, { setpoint_min_value: 0, setpoint_max_value: 50 })).status === 200), `bounds on ${id}`)
  }
  const a = (await http('POST', `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=${DP}&value=21&acked=true`)).body.resource.reference as string
  const b = (await http('POST', `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=other&value=22&acked=true`)).body.resource.reference as string
  t.ok(await until(() => received.filter((m) => m.type === 'NEWSPT').length === 2, 15_000), 'the edge agent received both NEWSPT')
  // Spec 3 "Controls messages": type, swop_version, datapoint, value, priority; plus what an acknowledged write needs.
  t.same(received.find((m) => m.type === 'NEWSPT' && m.reference === a), { type: 'NEWSPT', swop_version: 0.1, datapoint: DP, value: 21, priority: 13, reference: a, acked: true, dryrun: false, keep_out_of_service: false })
  t.ok(await until(async () => JSON.parse((await http('GET', `/v2/datapoint/setpoint/${a}`)).body.log).length === 3, 15_000), 'accepted by the edge agent, still writing')
  await p.stop()

  // Restarted on the same data directory and TLS port: both are still `requested`.
  p = await start(loadConfig(env))
  const restartedAt = Date.now()
  t.equal((await http('GET', `/v2/datapoint/setpoint/${a}`)).body.status, 'requested')
  t.equal((await http('GET', `/v2/datapoint/setpoint/${b}`)).body.status, 'requested')
  t.ok(await until(() => connects >= 1 && agent.client.connected, 15_000), 'the edge agent reconnected')
  release() // the slow write completes; the agent answers the restarted platform
  t.ok(await until(async () => (await http('GET', `/v2/datapoint/setpoint/${a}`)).body.status === 'written', 15_000), 'answered after the restart')
  const opA = (await http('GET', `/v2/datapoint/setpoint/${a}`)).body
  const logA = JSON.parse(opA.log)
  t.same(logA.map((e: { status: string }) => e.status), ['initialized', 'requested', 'requested', 'written'])
  t.same(logA.at(-1).priorityArray, NULLS)
  t.equal(opA.old_value, 'null')
  t.equal(driver.read(DP).presentValue, 21)

  t.ok(await until(async () => (await http('GET', `/v2/datapoint/setpoint/${b}`)).body.status === 'failed', 2 * TIMEOUT_MS), 'the unanswered one times out')
  const logB = JSON.parse((await http('GET', `/v2/datapoint/setpoint/${b}`)).body.log)
  t.equal(logB.at(-1).msg, 'No answer from the edge device within 20 s: the edge device is unreachable')
  const failedAt = Date.parse(logB.at(-1).time)
  t.ok(failedAt - Date.parse(logB[0].time) >= TIMEOUT_MS, 'not before its deadline')
  t.ok(failedAt < restartedAt + TIMEOUT_MS, 'at its original deadline, not a fresh time-out counted from the restart')
})
