// `npm run bench:edge-plant` (issue 32, "Done when"): the configured edge agent (`lintel edge
// --config`, its own process) on a Modbus device process with BENCH_MODBUS registers (10,000)
// polled every second and a BACnet device process with BENCH_BACNET objects (1,000) by COV,
// each changing every second, publishing to a platform in this process. BENCH_PIPELINE (8):
// Modbus read requests in flight (the driver's `pipeline`).
//   plant:  agent CPU (share of one core) and peak RSS over BENCH_SECONDS (30) after a warm-up;
//           observation age at the platform (subscriber's receive time, which the broker
//           reaches only after the store, minus the observation's time): p50/p99/max
//   drain:  a buffer of BENCH_BUFFER (1,000,000) observations, one hour of an outage, left by
//           an agent on its disk; a new agent starts with the platform up: observations/s from
//           its connection to the last one at the platform, and whether all arrived once
//   stop:   SIGTERM of the plant agent: ms until it exited, its exit code (0) or the signal
// One NDJSON line per phase on stdout, progress on stderr.
import { spawn, type ChildProcess } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import mqtt from 'mqtt'
import { DiskBuffer } from '../edge/buffer/disk-buffer.ts'
import { encodeLine } from '../protocol/line-encoder.ts'
import { loadConfig } from '../server/config.ts'
import { start } from '../server/main.ts'
import { freePort } from '../test/helpers/free-port.ts'
import { freeUdpPort } from '../test/helpers/edge-processes.ts'

const MODBUS = Number(process.env.BENCH_MODBUS ?? 10_000)
const BACNET = Number(process.env.BENCH_BACNET ?? 1_000)
const SECONDS = Number(process.env.BENCH_SECONDS ?? 30)
const BUFFER = Number(process.env.BENCH_BUFFER ?? 1_000_000)
/** Modbus read requests in flight (the driver's `pipeline`; the simulator takes several at once). */
const PIPELINE = Number(process.env.BENCH_PIPELINE ?? 8)
const ROOT = join(import.meta.dirname, '..')
const log = (m: string) => process.stderr.write(`bench:edge-plant: ${m}\n`)
const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms))
const quantile = (xs: number[], q: number) => { const s = [...xs].sort((a, b) => a - b); return s[Math.min(s.length - 1, Math.floor(q * s.length))] }

function proc(args: string[], env: Record<string, string> = {}): { child: ChildProcess; out: () => string } {
  let out = ''
  const child = spawn(process.execPath, args, { cwd: ROOT, env: { ...process.env, ...env }, stdio: ['ignore', 'pipe', 'pipe'] })
  child.stdout!.on('data', (d) => { out += d })
  child.stderr!.on('data', (d) => { out += d })
  return { child, out: () => out }
}
async function until(cond: () => boolean, what: string | (() => string), ms = 120_000): Promise<void> {
  const end = Date.now() + ms
  while (!cond()) { if (Date.now() > end) throw new Error(`timed out waiting for ${typeof what === 'string' ? what : what()}`); await sleep(50) }
}
/** CPU seconds (user + system) and peak RSS (MiB) of a process, from /proc. */
function usage(pid: number): { cpuS: number; hwmMiB: number } {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1].split(' ')
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  return { cpuS: (Number(stat[11]) + Number(stat[12])) / 100, hwmMiB: Number(/VmHWM:\s+(\d+)/.exec(status)![1]) / 1024 }
}

const dir = mkdtempSync(join(tmpdir(), 'bench-edge-'))
const tls = await freePort()
const platform = await start(loadConfig({
  LINTEL_DATA_DIR: join(dir, 'platform'), LINTEL_HTTP_PORT: '0', LINTEL_MQTT_TLS_PORT: String(tls), LINTEL_MQTT_WS_PORT: '0', LINTEL_LOG_LEVEL: 'silent',
  LINTEL_COMPANY_NAME: 'Bench', LINTEL_ADMIN_EMAIL: 'admin@bench.test', LINTEL_ADMIN_PASSWORD: 'bench-admin-pass',
}))
const auth = 'Basic ' + Buffer.from('admin@bench.test:bench-admin-pass').toString('base64')
const http = async (method: string, path: string, body?: unknown) => (await fetch(platform.address + path, { method, headers: { authorization: auth, 'content-type': 'application/json' }, body: body === undefined ? undefined : JSON.stringify(body) })).json() as Promise<any>
const pid = (await http('POST', '/v2/company/project', { name: 'Plant' })).resource.project.id
const { load_balancing_group: group, project_handle: handle } = await platform.catalog.projects.settings(pid)
await http('POST', `/v2/project/${pid}/mqttuser`, { username: 'edge-bench', password: 'edge-bench-password', rights: 'write', validity: 7200, edge: true })
await http('POST', `/v2/project/${pid}/mqttuser`, { username: 'watch', password: 'watch-password', rights: 'read', validity: 7200 })
const sub = await mqtt.connectAsync(`mqtts://127.0.0.1:${tls}`, { ca: readFileSync(platform.caFile!), username: 'watch', password: 'watch-password' })
let onLines: (text: string) => void = () => {}
let metaMessages = 0
sub.on('message', (topic, payload) => { if (topic.startsWith('META/')) metaMessages++; else onLines(payload.toString()) })
await sub.subscribeAsync([`${group}/${handle}`, `META/${group}/${handle}`], { qos: 0 })
const children: ChildProcess[] = []
const stopAll = () => { for (const c of children) if (c.exitCode === null) c.kill('SIGKILL') }
process.on('exit', stopAll)

function config(stateDir: string, drivers: unknown[]): string {
  const file = join(dir, `edge-${Date.now()}.json`)
  writeFileSync(file, JSON.stringify({
    broker: { url: `mqtts://127.0.0.1:${tls}`, ca: platform.caFile, account: 'edge-bench', project: `${group}/${handle}` },
    state_dir: stateDir, buffer: { max_bytes: '1GiB' }, health: { interval_s: 5 }, drivers,
  }))
  return file
}

// Plant: the devices and the agent.
const mbPort = await freePort()
const modbus = proc(['--import', 'tsx', 'edge/simulators/modbus-device.ts', '--port', String(mbPort), '--bulk', String(MODBUS)])
const bnPort = await freeUdpPort()
const bacnetDev = proc(['--import', 'tsx', 'edge/simulators/bacnet-device.ts', '--port', String(bnPort), '--bulk', String(BACNET), '--churn'])
children.push(modbus.child, bacnetDev.child)
await until(() => modbus.out().includes('listening') && bacnetDev.out().includes('listening'), 'the devices')
const modbusPoints = Array.from({ length: MODBUS }, (_, i) => ({ id: `mb/r${i}`, kind: 'holding', address: 1000 + i, type: 'uint16' }))
const bacnetPoints = Array.from({ length: BACNET }, (_, i) => ({ id: `bn/av${1000 + i}`, object: `analog-value:${1000 + i}` }))
const plantFile = config(join(dir, 'state-plant'), [
  { type: 'modbus', name: 'meters', host: '127.0.0.1', port: mbPort, poll_ms: 1000, pipeline: PIPELINE, points: modbusPoints },
  { type: 'bacnet', name: 'ahu', address: `127.0.0.1:${bnPort}`, device_instance: 1234, local_port: await freeUdpPort(), poll_ms: 60_000, cov_lifetime_s: 3600, points: bacnetPoints },
])
/** The agent's status file (edge/plant/health.ts). */
type Status = { at: string; drivers: { name: string; pointsPolled: number }[]; buffer: { taken: number; acked: number } }
const status = (): Status => JSON.parse(readFileSync(join(dir, 'state-plant', 'status.json'), 'utf8'))
function stageRates(a: Status, b: Status): Record<string, number> {
  const s = (Date.parse(b.at) - Date.parse(a.at)) / 1000
  const out: Record<string, number> = {}
  for (const d of b.drivers) out[`read_${d.name}`] = Math.round((d.pointsPolled - (a.drivers.find((x) => x.name === d.name)?.pointsPolled ?? 0)) / s)
  out.into_buffer = Math.round((b.buffer.taken - a.buffer.taken) / s)
  out.acked = Math.round((b.buffer.acked - a.buffer.acked) / s)
  return out
}
let ages: number[] = []
let counts = { mb: 0, bn: 0 }
onLines = (text) => {
  const now = Date.now()
  for (const line of text.split('\n')) {
    const sp = line.lastIndexOf(' ')
    ages.push(now - Number(line.slice(sp + 1)) / 1e6)
    if (line.startsWith('mb/')) counts.mb++
    else if (line.startsWith('bn/')) counts.bn++
  }
}
const agent = proc([join(ROOT, 'bin/lintel.js'), 'edge', '--config', plantFile], { LINTEL_EDGE_PASSWORD: 'edge-bench-password' })
children.push(agent.child)
await until(() => agent.out().includes('connected to'), () => `the agent to connect (its output: ${agent.out().slice(-3000)})`, 300_000)
// A new agent publishes every point's tags through META at its first connection (11,000
// messages the broker stores one by one; later connections only changed ones): the
// measurement starts once they are through, plus 10 s.
await until(() => metaMessages >= MODBUS + BACNET, () => `the META messages of all points (${metaMessages})`, 600_000)
log(`agent connected, ${metaMessages} META messages through; warming up 10 s`)
await sleep(10_000)
ages = []
counts = { mb: 0, bn: 0 }
const u0 = usage(agent.child.pid!)
const d0 = usage(bacnetDev.child.pid!)
const s0 = status()
const t0 = Date.now()
await sleep(SECONDS * 1000)
const u1 = usage(agent.child.pid!)
const d1 = usage(bacnetDev.child.pid!)
const s1 = status()
/** The BACnet device's changes per second over the window (its `churned N TIME` lines, every 5 s). */
const churned = [...bacnetDev.out().matchAll(/churned (\d+) (\d+)/g)].map((m) => [Number(m[1]), Number(m[2])]).filter(([, at]) => at >= t0 - 5000)
const wall = (Date.now() - t0) / 1000
const plant = {
  phase: 'plant', modbus_registers: MODBUS, modbus_pipeline: PIPELINE, bacnet_objects_cov: BACNET, seconds: Math.round(wall),
  observations_per_s: Math.round(ages.length / wall), modbus_per_s: Math.round(counts.mb / wall), bacnet_per_s: Math.round(counts.bn / wall),
  agent_cpu_share: Number(((u1.cpuS - u0.cpuS) / wall).toFixed(3)), agent_peak_rss_mib: Math.round(u1.hwmMiB),
  age_ms: { p50: Math.round(quantile(ages, 0.5)), p99: Math.round(quantile(ages, 0.99)), max: Math.round(ages.reduce((m, a) => Math.max(m, a), 0)) },
  target_p99_ms: 2000,
  // Per stage, from the agent's status file (renewed every 5 s): values read per driver, lines into the buffer, acknowledged by the broker.
  stages_per_s: { device_bacnet_changes: churned.length > 1 ? Math.round((churned.at(-1)![0] - churned[0][0]) / ((churned.at(-1)![1] - churned[0][1]) / 1000)) : null, ...stageRates(s0, s1) },
  bacnet_device_cpu_share: Number(((d1.cpuS - d0.cpuS) / wall).toFixed(3)),
}
process.stdout.write(JSON.stringify(plant) + '\n')
// Stop: SIGTERM, the time until the agent exited and how (exit code 0: an orderly stop; a
// signal: it died without stopping its drivers and closing its buffer).
const stopAt = Date.now()
agent.child.kill('SIGTERM')
const ended = () => agent.child.exitCode !== null || agent.child.signalCode !== null
await until(ended, 'the plant agent to stop', 30_000).catch(() => { log('the plant agent did not stop within 30 s of SIGTERM; killed'); agent.child.kill('SIGKILL') })
process.stdout.write(JSON.stringify({ phase: 'stop', points: MODBUS + BACNET, ms: Date.now() - stopAt, exit_code: agent.child.exitCode, signal: agent.child.signalCode }) + '\n')
bacnetDev.child.kill('SIGTERM')

// Drain: a buffer of one hour's outage on the agent's disk, a new agent with the platform up.
const stateDir = join(dir, 'state-drain')
const buffer = new DiskBuffer({ dir: join(stateDir, 'buffer'), maxBytes: 1024 ** 3 })
const hourAgoUs = (Date.now() - 3_600_000) * 1000
for (let i = 1; i <= BUFFER; i++) { buffer.take(encodeLine('outage/backlog', i, hourAgoUs + i * 3600)); if (i % 10_000 === 0) buffer.flush() }
buffer.close()
log(`${BUFFER} observations in the buffer; starting the agent`)
const seen = new Uint8Array(BUFFER + 1)
let received = 0, twice = 0, last = 0
onLines = (text) => {
  for (const line of text.split('\n')) {
    if (!line.startsWith('outage/backlog ')) continue
    const v = Number(line.slice(line.indexOf('value=') + 6, line.lastIndexOf(' ')))
    if (seen[v]) twice++
    else { seen[v] = 1; received++ }
    last = Date.now()
  }
}
const drainFile = config(stateDir, [{ type: 'modbus', name: 'meters', host: '127.0.0.1', port: mbPort, poll_ms: 1000, points: modbusPoints.slice(0, 10) }])
const drainer = proc([join(ROOT, 'bin/lintel.js'), 'edge', '--config', drainFile], { LINTEL_EDGE_PASSWORD: 'edge-bench-password' })
children.push(drainer.child)
await until(() => drainer.out().includes('connected to'), 'the draining agent to connect')
const connectedAt = Date.now()
await until(() => received >= BUFFER, `all ${BUFFER} buffered observations at the platform (${received} so far)`, 600_000)
const seconds = (last - connectedAt) / 1000
process.stdout.write(JSON.stringify({
  phase: 'drain', buffered: BUFFER, arrived_once: received, arrived_twice: twice, lost: BUFFER - received, seconds: Number(seconds.toFixed(2)),
  observations_per_s: Math.round(BUFFER / seconds), target_per_s: 50_000,
}) + '\n')
drainer.child.kill('SIGTERM')
await until(() => drainer.child.exitCode !== null, 'the draining agent to stop', 60_000)
stopAll()
await sub.endAsync()
await platform.stop()
rmSync(dir, { recursive: true, force: true })
process.exit(0)
