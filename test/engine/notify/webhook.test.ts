// Notifications (issue 13 item 4): the webhook adapter against a real HTTP receiver that checks
// the HMAC signature; a receiver down for an hour of simulated back-off that comes back and gets
// everything in order; the bound of the outbox (drops counted and logged); the log adapter;
// an outbox left by a previous run delivered on start.
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { createHmac, timingSafeEqual } from 'node:crypto'
import { parseThresholds } from '../../../engine/alerts/config.ts'
import { logAdapter } from '../../../engine/notify/log.ts'
import { Notifier } from '../../../engine/notify/outbox.ts'
import { WebhookAddressPolicy } from '../../../engine/notify/address-policy.ts'
import { webhookAdapter } from '../../../engine/notify/webhook.ts'
import { waitFor } from '../../helpers/wait.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { MICROS_PER_MS as MS } from '../../../core/clock/clock.ts'
import { addAlert, alertSetup, LOOPBACK_RECEIVERS, quietLog, seedProject } from '../alerts/setup.ts'

const SECRET = 'receiver-shared-secret'
const S = 1_000_000
const T0 = 1_700_000_000 * S

/** A receiver that verifies `x-lintel-signature` the way the README tells integrators to. */
function verify(req: IncomingMessage, body: string): boolean {
  const m = /^t=(\d+),v1=([0-9a-f]{64})$/.exec(String(req.headers['x-lintel-signature']))
  if (!m) return false
  const expected = createHmac('sha256', SECRET).update(`${m[1]}.${body}`).digest()
  return timingSafeEqual(expected, Buffer.from(m[2], 'hex'))
}

async function receiver(t: Test) {
  const got: { body: any; valid: boolean; delivery: string }[] = []
  let server: Server | undefined
  let port = 0
  const up = async () => {
    server = createServer((req, res) => {
      let body = ''
      req.on('data', (c) => { body += c })
      req.on('end', () => {
        got.push({ body: JSON.parse(body), valid: verify(req, body), delivery: String(req.headers['x-lintel-delivery']) })
        res.writeHead(verify(req, body) ? 204 : 401).end()
      })
    })
    await new Promise<void>((resolve) => server!.listen(port, '127.0.0.1', resolve))
    port = (server!.address() as AddressInfo).port
  }
  const down = () => new Promise<void>((resolve) => { server!.closeAllConnections(); server!.close(() => resolve()) })
  await up()
  t.teardown(() => server?.listening ? down() : undefined)
  return { got, up, down, url: () => `http://127.0.0.1:${port}/hook` }
}

t.test('a raise reaches the receiver, signed; the documented payload', async (t) => {
  const r = await receiver(t)
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog, 'ahu/temp')
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ crit: { upper: 30 } }) }, { webhook: { url: r.url(), secret: SECRET } })
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0 + 1500, value: 31.5 }])
  await waitFor(() => r.got.length === 1, { what: 'the webhook call' })
  t.same(r.got[0].body, {
    type: 'alert.raise',
    alert: { id: a.id, name: 'threshold alert', kind: 'threshold', project_id: projectId, dataPointID: 'ahu/temp', attributes: {} },
    event: { id: 1, kind: 'raise', level: 'crit', previous_level: null, value: 31.5, time: '2023-11-14T22:13:20.001500Z' },
  })
  t.ok(r.got[0].valid, 'the signature verifies with the shared secret')
  await waitFor(async () => (await s.catalog.alerts.outboxCount()) === 0, { what: 'the outbox to be emptied' })
})

t.test('a receiver down for an hour gets everything, in order, once it is back', async (t) => {
  const r = await receiver(t)
  const url = r.url()
  await r.down()
  const clock = new VirtualClock()
  const s = await alertSetup(t, { clock })
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) }, { webhook: { url, secret: SECRET } })
  await s.alerts.start(a)
  for (let i = 0; i < 6; i++) await s.store.append([{ series, time: T0 + i * S, value: i % 2 === 0 ? 11 : 0 }])
  await s.alerts.settled()
  const m = () => s.alerts.metrics().notifications!
  await waitFor(() => m().failed_attempts >= 1, { what: 'the first failed attempt' })
  // An hour of simulated back-off: probes at 1, 2, 4, 8, 16, then every 30 s.
  for (let elapsed = 0; elapsed < 3_600_000; elapsed += 30_000) {
    const before = m().failed_attempts
    clock.advance(30_000 * MS)
    await waitFor(() => m().failed_attempts > before, { what: 'a probe of the down receiver' })
  }
  t.ok(m().failed_attempts <= 6 + 120, `after the first six, one probe per back-off while down (${m().failed_attempts} attempts in an hour)`)
  t.equal(await s.catalog.alerts.outboxCount(), 6, 'all six notifications are still in the outbox')
  t.same(r.got, [])
  await r.up()
  clock.advance(30_000 * MS)
  await waitFor(() => r.got.length === 6, { what: 'six deliveries after the receiver came back' })
  t.same(r.got.map((g) => `${g.body.event.kind} ${g.body.event.id}`), ['raise 1', 'reset 2', 'raise 3', 'reset 4', 'raise 5', 'reset 6'], 'in order')
  t.ok(r.got.every((g) => g.valid))
  // The receiver records a call before the sender has read its answer: wait for the count.
  await waitFor(() => m().delivered === 6, { what: 'the sixth delivery counted' })
  t.match(m(), { delivered: 6, dropped: 0, pending: 0 })
  await waitFor(async () => (await s.catalog.alerts.outboxCount()) === 0, { what: 'the outbox to be emptied' })
})

t.test('the bound: the oldest are dropped, counted and logged; the log adapter; delivery after a restart', async (t) => {
  const r = await receiver(t)
  const url = r.url()
  await r.down()
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', {}, {})
  const warnings: { obj: any; msg: string }[] = []
  const infos: any[] = []
  const log = { info: (obj: object) => { infos.push(obj) }, warn: (obj: object, msg: string) => { warnings.push({ obj, msg }) } }
  const target = { webhook: { url, secret: SECRET }, log: true }
  const clock = new VirtualClock()
  const notifier = new Notifier({ store: s.catalog.alerts, adapters: { webhook: webhookAdapter({ policy: LOOPBACK_RECEIVERS }), log: logAdapter(log) }, targetOf: async () => target, clock, log, maxEntries: 3 })
  const payload = (n: number) => JSON.stringify({ type: 'alert.raise', n })
  const entries = await s.catalog.alerts.outboxAdd([1, 2, 3, 4, 5].map((n) => ({ alert_id: a.id, channel: 'webhook', payload: payload(n) })))
  await notifier.enqueue(entries.map((e) => ({ id: e.id, alertId: a.id, channel: 'webhook', payload: e.payload })))
  await waitFor(() => notifier.metrics().failed_attempts === 5, { what: 'the five first attempts to fail' })
  t.match(notifier.metrics(), { dropped: 2, pending: 3 })
  const drops = warnings.filter((w) => w.msg.includes('outbox full'))
  t.match(drops.at(-1), { obj: { total_dropped: 2, bound: 3 } }, 'every drop is logged with the running count')
  t.equal(await s.catalog.alerts.outboxCount(), 3)
  await notifier.stop()

  // A new run finds the three left in the outbox and delivers them once the receiver is up.
  await r.up()
  const next = new Notifier({ store: s.catalog.alerts, adapters: { webhook: webhookAdapter({ policy: LOOPBACK_RECEIVERS }), log: logAdapter(log) }, targetOf: async () => target, clock, log })
  await next.start()
  await waitFor(() => r.got.length === 3, { what: 'the three kept notifications' })
  t.same(r.got.map((g) => g.body.n), [3, 4, 5], 'the newest three, in order')
  const [logged] = await s.catalog.alerts.outboxAdd([{ alert_id: a.id, channel: 'log', payload: payload(9) }])
  await next.enqueue([{ id: logged.id, alertId: a.id, channel: 'log', payload: logged.payload }])
  await waitFor(() => infos.length === 1, { what: 'the log line' })
  t.match(infos[0], { alert_id: a.id, notification: { n: 9 } })
  await next.stop()
  t.equal(await s.catalog.alerts.outboxCount(), 0)
})

t.test('notifications of a deleted alert are not deliverable: counted and logged, not retried', async (t) => {
  const s = await alertSetup(t)
  const warnings: string[] = []
  const n = new Notifier({ store: s.catalog.alerts, adapters: {}, targetOf: async () => undefined, clock: new VirtualClock(), log: { ...quietLog, warn: (_o, m) => { warnings.push(m) } } })
  await n.enqueue([{ id: 1, alertId: 99, channel: 'webhook', payload: '{}' }])
  t.match(n.metrics(), { undeliverable: 1, pending: 0 })
  t.match(warnings, [/not deliverable/])
})

t.test('a host name that resolves to an internal address is refused when connecting, before any request', async (t) => {
  const r = await receiver(t)
  const url = r.url().replace('127.0.0.1', 'localhost')
  const d = { id: 1, alertId: 1, channel: 'webhook', payload: JSON.stringify({ type: 'alert.raise' }) }
  const guarded = webhookAdapter()
  t.teardown(() => guarded.close?.())
  await t.rejects(guarded.deliver(d, { webhook: { url, secret: SECRET } }), /webhook host localhost is the internal address (127\.0\.0\.1|::1)/)
  await t.rejects(guarded.deliver(d, { webhook: { url: r.url(), secret: SECRET } }), /webhook host 127\.0\.0\.1 is the internal address 127\.0\.0\.1/)
  t.equal(r.got.length, 0, 'the receiver got nothing')
  const allowed = webhookAdapter({ policy: new WebhookAddressPolicy(['localhost']) })
  t.teardown(() => allowed.close?.())
  await allowed.deliver(d, { webhook: { url, secret: SECRET } })
  t.equal(r.got.length, 1, 'allowed by name: delivered')
})
