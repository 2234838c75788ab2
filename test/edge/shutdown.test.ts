// SIGTERM of the configured agent is bounded (issue 32): with 11,000 points (10,000 Modbus
// registers polled every second, 1,000 BACnet objects on a device that does not answer, so
// their subscriptions are still being tried) and no broker, `lintel edge` stops within a few
// seconds, exit code 0, and what it polled stays in its buffer on disk for the next start.
// Before, the agent listened for the signal only once every driver had started: a SIGTERM
// during the BACnet subscriptions (one request timeout per unanswered object) was not acted
// on for minutes (bench:edge-plant had to SIGKILL it).
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import t from 'tap'
import { DiskBuffer } from '../../edge/buffer/disk-buffer.ts'
import { edgeProcess, freeUdpPort, modbusDevice } from '../helpers/edge-processes.ts'
import { freePort } from '../helpers/free-port.ts'
import { settleWithin, waitFor } from '../helpers/wait.ts'

t.test('SIGTERM stops an agent with 11,000 points within a few seconds, its buffer kept', async (t) => {
  const device = await modbusDevice(t, ['--bulk', '10000'])
  const dir = t.testdir()
  const file = join(dir, 'edge.json')
  writeFileSync(file, JSON.stringify({
    broker: { url: `mqtts://127.0.0.1:${await freePort()}`, account: 'edge', project: 'g/h' }, // nobody listens: buffering
    state_dir: join(dir, 'state'), health: { interval_s: 1 },
    drivers: [
      { type: 'modbus', name: 'meters', host: '127.0.0.1', port: device.port, poll_ms: 1000, points: Array.from({ length: 10_000 }, (_, i) => ({ id: `mb/r${i}`, kind: 'holding', address: 1000 + i, type: 'uint16' })) },
      { type: 'bacnet', name: 'silent', address: `127.0.0.1:${await freeUdpPort()}`, device_instance: 1, local_port: await freeUdpPort(), points: Array.from({ length: 1000 }, (_, i) => ({ id: `bn/av${i}`, object: `analog-value:${i}` })) },
    ],
  }))
  const agent = edgeProcess(t, ['--config', file], { LINTEL_EDGE_PASSWORD: 'x' })
  const status = () => { try { return JSON.parse(readFileSync(join(dir, 'state', 'status.json'), 'utf8')) } catch { return undefined } }
  // A full poll of the 10,000 registers is in the buffer (the health snapshot counts them).
  await waitFor(() => status()?.drivers?.[0]?.pointsPolled >= 10_000, { what: () => `10,000 registers polled (stderr: ${agent.err().slice(-500)})`, timeoutMs: 60_000 })
  t.notOk(agent.err().includes('COV subscription'), 'the BACnet subscriptions are still waiting for the silent device')
  const t0 = Date.now()
  agent.child.kill('SIGTERM')
  t.equal(await settleWithin(agent.exited, { what: 'the agent to stop on SIGTERM', timeoutMs: 20_000 }), 0, 'exit code 0')
  const ms = Date.now() - t0
  t.ok(ms < 8000, `stopped ${ms} ms after SIGTERM (bound: 8 s; each stop step waits at most 2 s)`)
  t.match(agent.err(), /SIGTERM: stopped in \d+ ms/, 'the stop is logged')
  const last = status()
  t.equal(last.broker.connected, false, 'the status file written at the stop')
  const buffer = new DiskBuffer({ dir: join(dir, 'state', 'buffer'), maxBytes: 1 << 30 })
  t.teardown(() => buffer.close())
  t.ok(buffer.counters.recovered >= 10_000, `the polled values are in the buffer for the next start (${buffer.counters.recovered})`)
})
