// The configured edge agent on a Modbus device, end to end (issue 32, "Test devices"): the
// real `lintel edge --config` process, the Modbus test device process, the platform over TLS.
//   device → agent → broker → store → API read, with the points' tags through META;
//   API setpoint → agent → device, the priority array in the operation's log;
//   health datapoints and `lintel edge status`;
//   the broker stopped while the device's values change → everything arrives after the
//   restart, counted; the agent SIGKILLed during the outage → nothing lost that its buffer had
//   taken (read from its files after the kill).
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import Modbus from 'modbus-serial'
import t from 'tap'
import { loadConfig } from '../../server/config.ts'
import { start } from '../../server/main.ts'
import { edgeProcess, modbusDevice, runEdgeCommand } from '../helpers/edge-processes.ts'
import { freePort } from '../helpers/free-port.ts'
import { ADMIN, livePlatform } from '../helpers/live-platform.ts'
import { basic } from '../helpers/platform.ts'
import { ensureRunTls } from '../helpers/tls-pair.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

const NULLS = new Array(16).fill(null)

function writeConfig(dir: string, o: { port: number; tls: number; ca: string; account: string; project: string; device: number; pollMs?: number }): string {
  const file = join(dir, 'edge.yaml')
  writeFileSync(file, `# the agent of the test
broker:
  url: mqtts://127.0.0.1:${o.tls}
  ca: ${o.ca}
  account: ${o.account}
  project: ${o.project}
state_dir: state
buffer:
  max_bytes: 64MiB
  lines_per_message: 500
health:
  interval_s: 1
  prefix: edge/site
drivers:
  - type: modbus
    name: meter
    host: 127.0.0.1
    port: ${o.device}
    poll_ms: ${o.pollMs ?? 200}
    points:
      - { id: plant/counter, kind: input, address: 0, type: uint16 }
      - { id: plant/temp, kind: holding, address: 6, type: float32, unit: "°C", description: supply temperature }
      - { id: plant/sp, kind: holding, address: 20, type: int16, scale: 0.1, unit: "°C", writable: true }
`)
  return file
}

t.test('device → agent → platform, tags through META; setpoint → agent → device with the priority array; health and status', async (t) => {
  const live = await livePlatform(t, { LINTEL_SETPOINT_TIMEOUT_MS: '30000' })
  const pid = await live.project('Plant')
  await live.platform.catalog.setpoints.setSettings(pid, { enabled: true })
  const { load_balancing_group: group, project_handle: handle } = await live.platform.catalog.projects.settings(pid)
  const edge = await live.account(pid, 'edge-1', 'write', undefined, true)
  const device = await modbusDevice(t)
  const dir = t.testdir()
  const file = writeConfig(dir, { port: 0, tls: live.platform.broker.ports.tls, ca: live.platform.caFile, account: edge.username, project: `${group}/${handle}`, device: device.port })
  const agent = edgeProcess(t, ['--config', file], { LINTEL_EDGE_PASSWORD: edge.password })
  await waitFor(() => agent.out().includes('lintel edge: 1 driver(s), 3 point(s)'), { what: () => `the agent to start (stderr: ${agent.err()})`, timeoutMs: 30_000 })

  const temp = await waitFor(async () => { const r = await live.read(pid, 'plant/temp'); return r.data?.length > 0 && r }, { what: 'plant/temp at the platform', timeoutMs: 30_000 })
  t.equal(temp.data[0].value, 21.5, 'the float32 of the device, read through the API')
  const tags = await waitFor(async () => { const r = await live.read(pid, 'plant/sp'); return r.tags?.some((x: { key: string }) => x.key === 'writable') && r.tags }, { what: 'the tags of plant/sp', timeoutMs: 30_000 })
  t.same(Object.fromEntries(tags.map((x: { key: string; value: string }) => [x.key, x.value])), {
    protocol: 'modbus', device: 'meter', unit_id: '1', register: 'holding', address: '20', data_type: 'int16', unit: '°C', writable: 'true',
  }, 'tags through META')

  t.equal((await live.http('PUT', `/v2/datapoint?project_id=${pid}&dataPointID=plant/sp`, { setpoint_min_value: 15, setpoint_max_value: 30 })).status, 200)
  const w = await live.http('POST', `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=plant/sp&value=23.5&priority=9&acked=true`)
  t.equal(w.status, 200, JSON.stringify(w.body))
  const ref = w.body.resource.reference
  const op = await waitFor(async () => { const o = (await live.http('GET', `/v2/datapoint/setpoint/${ref}`)).body; return o.status !== 'requested' && o.status !== 'initialized' && o }, { what: 'the operation to settle', timeoutMs: 30_000 })
  t.equal(op.status, 'written')
  t.same(JSON.parse(op.log).at(-1).priorityArray, NULLS, 'the agent\'s array before the write')
  const probe = new Modbus.default()
  await probe.connectTCP('127.0.0.1', { port: device.port })
  t.teardown(() => new Promise<void>((resolve) => probe.close(() => resolve())))
  probe.setID(1)
  t.equal((await probe.readHoldingRegisters(20, 1)).data[0], 235, 'the device holds 23.5 (raw 235)')
  const w2 = await live.http('POST', `/v2/datapoint/setpoint?project_id=${pid}&dataPointID=plant/sp&value=null&priority=9&acked=true`)
  const op2 = await waitFor(async () => { const o = (await live.http('GET', `/v2/datapoint/setpoint/${w2.body.resource.reference}`)).body; return o.status === 'written' && o }, { what: 'the relinquish to be written', timeoutMs: 30_000 })
  t.same(JSON.parse(op2.log).at(-1).priorityArray, [...NULLS.slice(0, 8), 23.5, ...NULLS.slice(9)], 'read back: 23.5 at priority 9 before the relinquish')
  t.equal((await probe.readHoldingRegisters(20, 1)).data[0], 215, 'relinquished: the value before the first write')

  const polled = await waitFor(async () => { const r = await live.read(pid, 'edge/site/points_polled'); return r.data?.length > 0 && r.data.at(-1).value }, { what: 'the health datapoint points_polled', timeoutMs: 30_000 })
  t.ok(polled > 0, `points_polled ${polled}`)
  const status = await runEdgeCommand(t, ['status', '--config', file])
  t.equal(status.code, 0, status.stderr)
  t.match(status.stdout, new RegExp(`^agent       running \\(pid ${agent.child.pid}\\), status of .*\\nbroker      mqtts://127\\.0\\.0\\.1:\\d+ connected\\ndriver      meter: connected, \\d+ value\\(s\\) polled, 0 poll error\\(s\\)\\nbuffer      \\d+ observation\\(s\\) waiting`))
  agent.child.kill('SIGTERM')
  t.equal(await settleWithin(agent.exited, { what: 'the agent to stop on SIGTERM', timeoutMs: 30_000 }), 0)
})

/** Counter values in the lines of the buffer's segment files. */
function bufferedCounters(stateDir: string): number[] {
  const dir = join(stateDir, 'buffer')
  return readdirSync(dir).filter((f) => f.endsWith('.log')).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith('plant/counter ')).map((l) => Number(/value=(\d+)/.exec(l)![1]))
}

t.test('broker stopped while the device changes, agent SIGKILLed during the outage: everything the buffer took arrives, in order', async (t) => {
  const dir = t.testdir()
  const env = {
    LINTEL_DATA_DIR: join(dir, 'platform'), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: String(await freePort()), LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
    LINTEL_COMPANY_NAME: 'Live', LINTEL_ADMIN_EMAIL: ADMIN.email, LINTEL_ADMIN_PASSWORD: ADMIN.password, ...await ensureRunTls(),
  }
  let p = await start(loadConfig(env))
  let stopped = false
  t.teardown(() => (stopped ? undefined : p.stop()))
  const http = async (method: string, path: string, body?: unknown) => {
    const res = await fetch(p.address + path, { method, headers: { authorization: basic(ADMIN), 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })
    return { status: res.status, body: await res.json() as any }
  }
  const counters = async (): Promise<number[]> => ((await http('GET', `/v2/datapoint/timeseries?project_id=${pid}&dataPointID=plant/counter`)).body.data ?? []).map((d: { value: number }) => d.value)
  const pid = (await http('POST', '/v2/company/project', { name: 'Outage' })).body.resource.project.id as number
  const { load_balancing_group: group, project_handle: handle } = await p.catalog.projects.settings(pid)
  t.equal((await http('POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-o', password: 'edge-o-password', rights: 'write', edge: true })).status, 201)
  const device = await modbusDevice(t)
  const file = writeConfig(dir, { port: 0, tls: Number(env.LINTEL_MQTT_TLS_PORT), ca: p.caFile!, account: 'edge-o', project: `${group}/${handle}`, device: device.port, pollMs: 100 })
  const stateDir = join(dir, 'state')
  const agentEnv = { LINTEL_EDGE_PASSWORD: 'edge-o-password' }
  const first = edgeProcess(t, ['--config', file], agentEnv)
  await waitFor(async () => (await counters()).length >= 5, { what: () => `counter values at the platform (agent: ${first.err()})`, timeoutMs: 60_000 })

  // The outage: the platform stops; the device keeps counting, the agent keeps polling.
  await p.stop()
  stopped = true
  await waitFor(() => bufferedCounters(stateDir).length >= 30, { what: 'the agent to buffer during the outage', timeoutMs: 60_000 })
  first.child.kill('SIGKILL')
  await settleWithin(first.exited, { what: 'the SIGKILLed agent to exit' })
  const taken = bufferedCounters(stateDir)
  const lastTaken = Math.max(...taken)

  // A new agent process on the same state directory, still without a broker; then the platform comes back.
  const second = edgeProcess(t, ['--config', file], agentEnv)
  await waitFor(() => second.err().includes('recovered from the buffer'), { what: () => `the second agent to recover its buffer (stderr: ${second.err()})`, timeoutMs: 30_000 })
  p = await start(loadConfig(env))
  stopped = false
  const all: number[] = await waitFor(async () => { const v = await counters(); return v.includes(lastTaken) && v.at(-1)! > lastTaken + 5 ? v : undefined }, { what: 'the buffered values and new ones at the platform', timeoutMs: 120_000 })
  const upTo = all.filter((v) => v <= lastTaken)
  t.same(upTo, Array.from({ length: lastTaken }, (_, i) => i + 1), `every value up to the last one buffered before the kill (${lastTaken}) arrived once, in time order`)
  t.ok(taken.every((v) => all.includes(v)), `nothing the buffer had taken is missing (${taken.length} lines in the files at the kill)`)
  const after = all.filter((v) => v > lastTaken)
  t.same(after, [...after].sort((a, b) => a - b), 'the values after the restart in order too')
  t.ok(after[0] <= lastTaken + 2, `at most the value being taken at the kill is missing (next stored: ${after[0]})`)
  second.child.kill('SIGTERM')
  t.equal(await settleWithin(second.exited, { what: 'the second agent to stop', timeoutMs: 30_000 }), 0)
})
