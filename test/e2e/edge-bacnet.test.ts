// The configured edge agent on a BACnet device, end to end (issue 32, "Test devices"): the real
// `lintel edge --config` process, the BACnet device simulator process (loopback, non-default
// UDP ports), a platform that the test stops and starts again.
//   device → agent (COV) → broker → store → API read, the points' tags through META;
//   API setpoint → agent → WriteProperty at the priority, the priority array in the log;
//   the broker stopped while the device's values change (COV notifications) → all arrive after
//   the restart; the agent SIGKILLed during the outage → nothing lost that its buffer had taken.
import { readdirSync, readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { bacnetDevice, edgeProcess, freeUdpPort } from '../helpers/edge-processes.ts'
import { restartablePlatform } from '../helpers/restartable-platform.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

const NULLS = new Array(16).fill(null)

async function writeConfig(dir: string, o: { tls: number; ca: string; account: string; project: string; device: number }): Promise<string> {
  const file = join(dir, 'edge.json')
  writeFileSync(file, JSON.stringify({
    broker: { url: `mqtts://127.0.0.1:${o.tls}`, ca: o.ca, account: o.account, project: o.project },
    state_dir: 'state', buffer: { max_bytes: '64MiB' }, health: { interval_s: 1 },
    drivers: [{
      type: 'bacnet', name: 'ahu', address: `127.0.0.1:${o.device}`, device_instance: 1234, local_port: await freeUdpPort(), poll_ms: 500, cov_lifetime_s: 60,
      points: [
        { id: 'ahu/supply', object: 'analog-input:1', unit: '°C', description: 'supply air' },
        { id: 'ahu/outdoor', object: 'analog-input:2', unit: '°C' },
        { id: 'ahu/sp', object: 'analog-value:1', unit: '°C', writable: true },
      ],
    }],
  }))
  return file
}

/** The lines of a point in the buffer's segment files. */
function bufferedLines(stateDir: string, id: string): string[] {
  const dir = join(stateDir, 'buffer')
  return readdirSync(dir).filter((f) => f.endsWith('.log')).flatMap((f) => readFileSync(join(dir, f), 'utf8').split('\n'))
    .filter((l) => l.startsWith(id + ' '))
}

/** Values of a point in the lines of the buffer's segment files. */
function buffered(stateDir: string, id: string): number[] {
  return bufferedLines(stateDir, id).map((l) => Number(/value=([-\d.]+)/.exec(l)![1]))
}

t.test('BACnet end to end: COV values and tags at the platform, a setpoint written at its priority, an outage with a SIGKILL', async (t) => {
  const dir = t.testdir()
  const platform = await restartablePlatform(t, dir)
  const site = await platform.site('AHU', 'edge-b')
  const device = await bacnetDevice(t)
  const file = await writeConfig(dir, { tls: platform.tls, ca: platform.caFile, account: site.account, project: site.project, device: device.port })
  const env = { LINTEL_EDGE_PASSWORD: site.password }
  const first = edgeProcess(t, ['--config', file], env)
  await waitFor(async () => (await platform.values(site.pid, 'ahu/supply')).includes(21.5), { what: () => `ahu/supply at the platform (agent: ${first.err()})`, timeoutMs: 60_000 })
  device.send('set 0:1 22.25')
  await waitFor(async () => (await platform.values(site.pid, 'ahu/supply')).includes(22.25), { what: 'the COV change at the platform', timeoutMs: 30_000 })
  const read = (await platform.http('GET', `/v2/datapoint/timeseries?project_id=${site.pid}&dataPointID=ahu/sp`)).body
  await waitFor(async () => (await platform.http('GET', `/v2/datapoint/timeseries?project_id=${site.pid}&dataPointID=ahu/sp`)).body.tags?.length >= 7, { what: 'the tags of ahu/sp', timeoutMs: 30_000 })
  const tags = (await platform.http('GET', `/v2/datapoint/timeseries?project_id=${site.pid}&dataPointID=ahu/sp`)).body.tags
  t.same(Object.fromEntries(tags.map((x: { key: string; value: string }) => [x.key, x.value])), {
    protocol: 'bacnet', device: 'ahu', device_instance: '1234', object_type: 'analog-value', instance: '1', unit: '°C', writable: 'true',
  }, `tags through META (first read: ${read.data?.length} value(s))`)

  t.equal((await platform.http('PUT', `/v2/datapoint?project_id=${site.pid}&dataPointID=ahu/sp`, { setpoint_min_value: 15, setpoint_max_value: 30 })).status, 200)
  const w = await platform.http('POST', `/v2/datapoint/setpoint?project_id=${site.pid}&dataPointID=ahu/sp&value=23.5&priority=8&acked=true`)
  t.equal(w.status, 200, JSON.stringify(w.body))
  const op = await waitFor(async () => { const o = (await platform.http('GET', `/v2/datapoint/setpoint/${w.body.resource.reference}`)).body; return o.status === 'written' && o }, { what: 'the setpoint to be written', timeoutMs: 30_000 })
  t.same(JSON.parse(op.log).at(-1).priorityArray, NULLS, 'the device\'s priority array before the write')
  t.match(device.proc.out(), /written 2:1 23\.5 @8/, 'WriteProperty at priority 8 reached the device')
  await waitFor(async () => (await platform.values(site.pid, 'ahu/sp')).includes(23.5), { what: 'the written value in the series', timeoutMs: 30_000 })

  // Outage: the platform stops; the device's value changes 20 times; the agent buffers them, then is killed.
  await platform.stop()
  const stateDir = join(dir, 'state')
  const changes = Array.from({ length: 20 }, (_, i) => 30 + i)
  for (const v of changes) {
    device.send(`set 0:1 ${v}`)
    await waitFor(() => buffered(stateDir, 'ahu/supply').includes(v), { what: `the change to ${v} in the agent's buffer`, timeoutMs: 30_000 })
  }
  const linesBeforeKill = bufferedLines(stateDir, 'ahu/supply') // with their times, for a failure's message
  first.child.kill('SIGKILL')
  await settleWithin(first.exited, { what: 'the SIGKILLed agent to exit' })
  const second = edgeProcess(t, ['--config', file], env)
  await waitFor(() => second.err().includes('recovered from the buffer'), { what: () => `the second agent to recover its buffer (stderr: ${second.err()})`, timeoutMs: 30_000 })
  await platform.start()
  let seen: Array<{ time: string; value: number }> = []
  const status = () => { try { return readFileSync(join(stateDir, 'status.json'), 'utf8').replace(/\s+/g, ' ') } catch { return 'none' } }
  const values = await waitFor(async () => {
    seen = (await platform.http('GET', `/v2/datapoint/timeseries?project_id=${site.pid}&dataPointID=ahu/supply`)).body.data ?? []
    const v = seen.map((d) => d.value)
    return changes.every((c) => v.includes(c)) ? v : undefined
  }, {
    what: () => `every change made during the outage at the platform (the platform holds ${JSON.stringify(seen)}; the buffer held at the kill ${JSON.stringify(linesBeforeKill)}; still buffered: ${JSON.stringify(buffered(stateDir, 'ahu/supply'))}; agent status ${status()}; second agent, exit ${second.child.exitCode}: ${second.err()}; first agent: ${first.err().slice(-2000)})`,
    timeoutMs: 120_000,
  })
  const during = values.filter((v) => v >= 30)
  t.same(during.slice(0, changes.length), changes, 'all 20 changes of the outage arrived, once each, in order')
  second.child.kill('SIGTERM')
  t.equal(await settleWithin(second.exited, { what: 'the second agent to stop', timeoutMs: 30_000 }), 0)
})
