// Controls apps on real plant (issue 31 on the configured agent of issue 32): the platform, its
// TLS broker (through a proxy the test can cut), the real `lintel edge --config FILE` process
// with a Modbus driver on the Modbus test device process, the agent on its test clock
// (LINTEL_EDGE_TEST_CLOCK). A heating schedule switches: the holding register holds the
// scheduled value, the agent's own priority array (state_dir/priority/<driver>.json) holds it at
// the app's level 13, the APPLOG reaches the platform. Killed with SIGKILL and restarted on its
// state directory, the agent reloads the app; the broker cut for longer than the alive
// time-out makes it write the reset value (null: level 13 released, the register back to the
// device's own value); the reconnection recovers the app. On a BACnet device the app writes
// with WriteProperty at its priority, and a stop relinquishes it.
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Modbus from 'modbus-serial'
import t from 'tap'
import { controlsSite, FLOW_SP } from '../helpers/controls-site.ts'
import { cuttableProxy } from '../helpers/edge-apps-site.ts'
import { bacnetDevice, clockCommand, edgeProcess, freeUdpPort, modbusDevice } from '../helpers/edge-processes.ts'
import { freePort } from '../helpers/free-port.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

const EVERY_DAY = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun']
const CONFIG = {
  alive_timeout_s: 60,
  reset_values: { flow_temp_setpoint: null },
  week: [
    { days: EVERY_DAY, time: '06:00', values: { flow_temp_setpoint: 21 } },
    { days: EVERY_DAY, time: '22:00', values: { flow_temp_setpoint: 16 } },
  ],
  holiday: [],
}
const us = (iso: string) => Date.parse(iso) * 1000
const levels = (...at: [number, number][]) => { const a: (number | null)[] = new Array(16).fill(null); for (const [p, v] of at) a[p - 1] = v; return a }

t.test('a schedule on the configured agent writes a Modbus holding register through the agent\'s priority array', async (t) => {
  const site = await controlsSite(t)
  t.equal((await site.http('PUT', `/v2/project/${site.pid}`, { time_zone: 'Europe/Berlin' })).status, 200)
  const created = await site.create(CONFIG)
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.resource.id as string

  const device = await modbusDevice(t)
  const proxy = await cuttableProxy(site.platform.broker.ports.tls)
  t.teardown(() => proxy.close())
  const dir = t.testdir()
  const stateDir = join(dir, 'state')
  const file = join(dir, 'edge.yaml')
  writeFileSync(file, `broker:
  url: mqtts://127.0.0.1:${proxy.port}
  ca: ${site.platform.caFile}
  account: ${site.edgeAccount.username}
  project: ${site.group}/${site.handle}
state_dir: ${stateDir}
drivers:
  - type: modbus
    name: boiler
    host: 127.0.0.1
    port: ${device.port}
    poll_ms: 200
    points:
      - { id: ${FLOW_SP}, kind: holding, address: 20, type: int16, scale: 0.1, unit: "°C", writable: true }
`)
  const agent = async (startIso: string) => {
    const clockPort = await freePort()
    const proc = edgeProcess(t, ['--config', file], { LINTEL_EDGE_PASSWORD: site.edgeAccount.password, LINTEL_EDGE_TEST_CLOCK: String(clockPort), LINTEL_EDGE_TEST_CLOCK_START: startIso })
    await waitFor(async () => {
      if (proc.child.exitCode !== null) throw new Error(`the agent exited ${proc.child.exitCode}: ${proc.err()}`)
      return clockCommand(clockPort, { status: true }).then((a) => a.status?.online, () => false)
    }, { what: () => `the agent's apps to connect (stderr: ${proc.err()})`, timeoutMs: 60_000, intervalMs: 100 })
    return { proc, clock: (cmd: object) => clockCommand(clockPort, cmd) }
  }
  const probe = new Modbus.default()
  await probe.connectTCP('127.0.0.1', { port: device.port })
  t.teardown(() => new Promise<void>((resolve) => probe.close(() => resolve())))
  probe.setID(1)
  const register = async () => (await probe.readHoldingRegisters(20, 1)).data[0]
  const registerIs = (raw: number, what: string) => waitFor(async () => (await register()) === raw, { what: `${what} (register 20 = ${raw})`, timeoutMs: 30_000, intervalMs: 50 })
  /** The agent's own priority array of the point, from its disk. */
  const levelsOnDisk = () => JSON.parse(readFileSync(join(stateDir, 'priority', 'boiler.json'), 'utf8'))[FLOW_SP]
  const edgeLogs = async () => ((await site.logs(id, '&per_page=1000')).body.items as any[]).filter((e) => e.seq !== null).sort((a, b) => a.seq - b.seq)
  const logged = (pred: (e: any) => boolean, what: string) => waitFor(async () => (await edgeLogs()).find(pred), { what, timeoutMs: 30_000, intervalMs: 100 })

  // Saturday 2026-03-28 12:00 CET: 21 is in force (06:00).
  const a1 = await agent('2026-03-28T11:00:00Z')
  t.equal((await site.run(id)).status, 200)
  await site.settled(id, (a) => a.status.code === 202, 'Running on the edge', 30_000)
  await registerIs(210, 'the value in force written at the start')
  t.same(levelsOnDisk(), { priority: levels([13, 21]), relinquishDefault: 21.5 }, 'level 13 holds 21; the relinquish default is the device\'s value before the first write')
  t.match(await logged((e) => e.type === 'write', 'the first write\'s APPLOG'), { datapoint: FLOW_SP, value: 21, priority: 13, time: '2026-03-28T11:00:00.000Z', message: /in force/ })

  // 22:00 CET: 16.
  await a1.clock({ to: us('2026-03-28T21:00:00Z') })
  await registerIs(160, 'the 22:00 switching')
  t.same(levelsOnDisk().priority, levels([13, 16]))
  t.match(await logged((e) => e.type === 'write' && e.value === 16, 'the 22:00 APPLOG'), { datapoint: FLOW_SP, priority: 13, time: '2026-03-28T21:00:00.000Z', message: /switching time 2026-03-28T22:00/ })

  // SIGKILL; the next start (Sunday 07:00 CEST) reloads the app from the state directory.
  a1.proc.child.kill('SIGKILL')
  await settleWithin(a1.proc.exited, { what: 'the killed agent to exit', timeoutMs: 30_000 })
  const a2 = await agent('2026-03-29T05:00:00Z')
  await registerIs(210, 'the value in force after the reload')
  t.match(await logged((e) => e.type === 'state' && /reloaded/.test(e.message), 'the reload\'s state log'), { message: /Running: reloaded after the agent's restart/ })

  // The broker away for longer than the alive time-out: null releases level 13, the device gets its own value back.
  await proxy.cut()
  await waitFor(async () => (await a2.clock({ status: true })).status.online === false, { what: 'the agent to notice the lost connection', timeoutMs: 30_000, intervalMs: 100 })
  t.equal((await a2.clock({ advance: 59_000_000 })).status.apps[0].state, 'Running', 'still running before the time-out')
  t.match((await a2.clock({ advance: 1_000_000 })).status.apps[0], { state: 'Stopped', reason: /alive time-out of 60 s/ })
  await registerIs(215, 'the reset value (null) written')
  t.same(levelsOnDisk().priority, levels(), 'level 13 released')
  await proxy.restore()
  await logged((e) => e.type === 'state' && /auto-recovery/.test(e.message), 'the recovery to reach the platform')
  await registerIs(210, 'the value in force written again by the recovery')
  const all = await edgeLogs()
  t.ok(all.every((e, i) => e.seq === i + 1), `seq 1..${all.length} once each, across the SIGKILL and the outage`)
  t.match(all.find((e) => e.type === 'reset'), { datapoint: FLOW_SP, value: null, priority: 13, message: /alive time-out/ })
  await site.settled(id, (a) => a.status.code === 202, 'Running again after the recovery', 30_000)
  a2.proc.child.kill('SIGTERM')
  t.equal(await settleWithin(a2.proc.exited, { what: 'the agent to stop on SIGTERM', timeoutMs: 30_000 }), 0)
})

t.test('a schedule on the configured agent writes a BACnet object with WriteProperty at the app\'s priority', async (t) => {
  const site = await controlsSite(t)
  const created = await site.create({ priority: 14, reset_values: { flow_temp_setpoint: null }, week: [{ days: EVERY_DAY, time: '00:00', values: { flow_temp_setpoint: 22 } }], holiday: [] })
  t.equal(created.status, 201, JSON.stringify(created.body))
  const id = created.body.resource.id as string
  const device = await bacnetDevice(t)
  const dir = t.testdir()
  const file = join(dir, 'edge.json')
  writeFileSync(file, JSON.stringify({
    broker: { url: `mqtts://127.0.0.1:${site.platform.broker.ports.tls}`, ca: site.platform.caFile, account: site.edgeAccount.username, project: `${site.group}/${site.handle}` },
    state_dir: join(dir, 'state'),
    drivers: [{ type: 'bacnet', name: 'ahu', address: `127.0.0.1:${device.port}`, device_instance: 1234, local_port: await freeUdpPort(), points: [{ id: FLOW_SP, object: 'analog-value:1', writable: true }] }],
  }))
  const agent = edgeProcess(t, ['--config', file], { LINTEL_EDGE_PASSWORD: site.edgeAccount.password })
  await waitFor(() => agent.out().includes('lintel edge: 1 driver(s)'), { what: () => `the agent to start (stderr: ${agent.err()})`, timeoutMs: 30_000 })
  t.equal((await site.run(id)).status, 200)
  await site.settled(id, (a) => a.status.code === 202, 'Running on the edge', 30_000)
  await waitFor(() => /written 2:1 22 @14/.test(device.proc.out()), { what: () => `WriteProperty of 22 at priority 14 (device: ${device.proc.out()})`, timeoutMs: 30_000 })
  const logs = async () => ((await site.logs(id)).body.items as any[]).filter((e) => e.seq !== null)
  t.match(await waitFor(async () => (await logs()).find((e) => e.type === 'write'), { what: 'the write\'s APPLOG', timeoutMs: 30_000 }), { datapoint: FLOW_SP, value: 22, priority: 14 })
  t.equal((await site.run(id, false)).status, 200)
  await site.settled(id, (a) => a.status.code === 302, 'Stopped on the edge', 30_000)
  await waitFor(() => /written 2:1 null @14/.test(device.proc.out()), { what: () => `the relinquish at priority 14 (device: ${device.proc.out()})`, timeoutMs: 30_000 })
  agent.child.kill('SIGTERM')
  t.equal(await settleWithin(agent.exited, { what: 'the agent to stop on SIGTERM', timeoutMs: 30_000 }), 0)
})
