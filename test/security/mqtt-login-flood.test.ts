// Issue 29 item 1 over MQTT: company B floods company A's gateway username with wrong
// passwords from many addresses; A's gateway, which logged in from its address before,
// still connects in the middle of the flood, and only the throttle's limits of guesses are
// checked. Loopback addresses 127.0.0.x stand for distinct sources (Linux routes all of
// 127/8 to lo, so a client can bind any of them).
import t from 'tap'
import type { IClientOptions } from 'mqtt'
import { livePlatform } from '../helpers/live-platform.ts'

/** mqtt.js passes socket options such as localAddress on to tls.connect; its types do not list them. */
const from = (localAddress: string, connectTimeout = 120_000) => ({ localAddress, connectTimeout }) as IClientOptions

t.test('300 concurrent wrong passwords from 60 addresses plus the right one: the gateway connects, at most 10 guesses are checked', async (t) => {
  const live = await livePlatform(t, { LINTEL_MQTT_PREAUTH_MAX: '2000', LINTEL_MQTT_PREAUTH_PER_ADDRESS: '1000' })
  const pid = await live.project('Plant A')
  const gateway = await live.account(pid, 'gw-a', 'write')
  // Company B, with its own project and gateway: the attacker.
  const beta = { email: 'admin@beta.test', password: 'beta-admin-pass' }
  await live.platform.catalog.createCompanyWithAdmin('Beta', beta)
  const bPid = (await live.http('POST', '/v2/company/project', { name: 'B' }, beta)).body.resource.project.id
  const bAcct = await live.http('POST', `/v2/project/${bPid}/mqttuser`, { username: 'gw-b', password: 'gw-b-password', rights: 'write' }, beta)
  t.equal(bAcct.status, 201)

  const first = await live.connect(gateway, from('127.0.0.1'))
  await first.endAsync()
  const metrics = () => live.platform.broker.metrics()
  const refusedBefore = metrics().connections_refused

  const guesses = Array.from({ length: 300 }, (_, i) => live.connect({ username: 'gw-a', password: `guess-${i}-password` },
    from(`127.0.0.${2 + (i % 60)}`)).then(() => 'in', (e: Error) => e.message))
  const device = live.connect(gateway, from('127.0.0.1')).then(() => 'in', (e: Error) => e.message)
  const own = live.connect({ username: 'gw-b', password: 'gw-b-password' }, from('127.0.0.250')).then(() => 'in', (e: Error) => e.message)
  const answers = await Promise.all(guesses)
  t.equal(await device, 'in', "A's gateway connects from its known address in the middle of the flood")
  t.equal(await own, 'in', "B's own gateway is not affected either")
  t.equal(answers.filter((a) => a === 'in').length, 0, 'no guess got in')
  const checked = metrics().connections_refused - refusedBefore
  t.ok(checked <= 10, `${checked} guesses were checked (limit: 10 per account from unknown addresses)`)
  t.equal(metrics().connections_throttled, 300 - checked, 'the others were refused without a password check')
  t.ok(answers.every((a) => /Not authorized|Bad username or password/.test(a)), 'refusals are CONNACK 5 (throttled) or 4 (checked)')
  await t.rejects(live.connect(gateway, from('127.0.0.200')), /Not authorized/, 'a new address of the gateway waits until the flood stops')
  t.ok(await live.connect(gateway, from('127.0.0.1')), 'its known address keeps working')
})
