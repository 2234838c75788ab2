// A refused broker login (issue 32): the agent keeps trying, each wait twice the one before up
// to a bound, logged, and connects once the broker accepts; a connection resets the wait.
// The broker is a real aedes broker on loopback whose authenticate hook refuses the first logins.
import { createServer, type AddressInfo } from 'node:net'
import { Aedes } from 'aedes'
import mqtt from 'mqtt'
import t, { type Test } from 'tap'
import { startEdgeAgent } from '../../edge/agent.ts'
import { backOffRefusedLogins, retryRefusedLogins } from '../../edge/connect-retry.ts'
import { SimulatedBacnetDriver } from '../../edge/simulated-driver.ts'
import { waitFor } from '../helpers/wait.ts'

/** A broker that refuses the first `refusals` logins (CONNACK 5, not authorized); login times recorded. */
async function refusingBroker(t: Test, refusals: number): Promise<{ url: string; logins: number[]; refuse: (n: number) => void }> {
  const broker = await Aedes.createBroker()
  const logins: number[] = []
  let left = refusals
  broker.authenticate = (_client, _user, _pass, cb) => {
    logins.push(Date.now())
    if (left > 0) { left--; cb(Object.assign(new Error('not authorized'), { returnCode: 5 }) as never, false); return }
    cb(null, true)
  }
  const server = createServer(broker.handle)
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(async () => { await new Promise<void>((resolve) => broker.close(() => resolve())); server.close() })
  return { url: `mqtt://127.0.0.1:${(server.address() as AddressInfo).port}`, logins, refuse: (n) => { left = n } }
}

t.test('the agent retries a refused login with a doubling wait, logged, and connects once the broker accepts', async (t) => {
  const broker = await refusingBroker(t, 3)
  const logs: string[] = []
  const agent = await startEdgeAgent({
    url: broker.url, username: 'edge', password: 'pw', group: 'g', handle: 'h', driver: SimulatedBacnetDriver.numbered('p', 1),
    reconnectPeriod: 100, offline: true, log: (m) => logs.push(m),
  })
  t.teardown(() => agent.stop())
  await waitFor(() => agent.client.connected, { what: () => `the agent to connect (log: ${logs.join(' | ')})`, timeoutMs: 20_000 })
  const refused = logs.filter((l) => l.includes('refused the login'))
  t.same(refused.map((l) => /next attempt in (\d+ m?s)/.exec(l)?.[1]), ['100 ms', '200 ms', '400 ms'], 'each refusal logged with a doubling wait')
  t.match(refused[0], /Connection refused: Not authorized/, 'the broker\'s reason in the log')
  t.equal(broker.logins.length, 4, 'three refused logins, then the accepted one')
  const gaps = broker.logins.slice(1).map((x, i) => x - broker.logins[i])
  for (const [i, min] of [100, 200, 400].entries()) t.ok(gaps[i] >= min - 15, `attempt ${i + 2} waited ${gaps[i]} ms (≥ ${min})`)
  t.equal(agent.client.options.reconnectPeriod, 100, 'the connection reset the wait to the reconnect period')
})

t.test('the wait is bounded and starts over after a connection', async (t) => {
  const broker = await refusingBroker(t, 4)
  const waits: string[] = []
  const client = mqtt.connect(broker.url, { username: 'edge', password: 'pw', reconnectPeriod: 50, ...retryRefusedLogins })
  t.teardown(() => client.end(true))
  backOffRefusedLogins(client, (m) => waits.push(/next attempt in (\d+ m?s)/.exec(m)![1]), 150)
  await waitFor(() => client.connected, { what: () => `the client to connect (${waits.join(', ')})`, timeoutMs: 20_000 })
  t.same(waits, ['50 ms', '100 ms', '150 ms', '150 ms'], 'doubling up to the bound of 150 ms')
  // Refused again after a lost connection: the wait starts over at the reconnect period.
  broker.refuse(1)
  waits.length = 0
  client.stream.destroy()
  await waitFor(() => waits.length === 1 && client.connected, { what: () => `the client to reconnect (${waits.join(', ')})`, timeoutMs: 20_000 })
  t.same(waits, ['50 ms'], 'back to the reconnect period')
})
