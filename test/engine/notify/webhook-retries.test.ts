// Webhook delivery when receivers misbehave (issue 36 item 1), as docs/alerts.md promises:
//   - a receiver that accepts the connection and never answers: the request times out, the
//     notification is retried with the documented back-off (1 s doubling, one probe at a
//     time) and stays in the outbox; another receiver's notification is delivered meanwhile;
//   - the `x-lintel-delivery` header: the same on every retry of one notification, distinct
//     between notifications, and never given again once the outbox has emptied.
// The back-off runs on a VirtualClock; the request time-out is undici's (real time, 300 ms).
import t, { type Test } from 'tap'
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { Notifier } from '../../../engine/notify/outbox.ts'
import { webhookAdapter } from '../../../engine/notify/webhook.ts'
import type { NotifyTarget } from '../../../engine/notify/port.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { waitFor } from '../../helpers/wait.ts'
import { addAlert, alertSetup, LOOPBACK_RECEIVERS, quietLog, seedProject } from '../alerts/setup.ts'

const SECRET = 'receiver-shared-secret'
const SECOND = 1_000_000 // µs

/** A receiver whose answer the test chooses per request (undefined: never answer). */
async function receiver(t: Test, answer: (n: number) => number | undefined) {
  const got: { delivery: string; body: string }[] = []
  const open: ServerResponse[] = []
  const server = createServer((req: IncomingMessage, res) => {
    let body = ''
    req.on('data', (c) => { body += c })
    req.on('end', () => {
      got.push({ delivery: String(req.headers['x-lintel-delivery']), body })
      const status = answer(got.length)
      if (status === undefined) open.push(res)
      else res.writeHead(status).end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  t.teardown(() => new Promise<void>((resolve) => { server.closeAllConnections(); server.close(() => resolve()) }))
  return { got, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook` }
}

async function setup(t: Test, targets: Record<number, NotifyTarget>, timeoutMs = 300) {
  const clock = new VirtualClock()
  const s = await alertSetup(t, { clock })
  const warnings: { err?: Error }[] = []
  const notifier = new Notifier({
    store: s.catalog.alerts, clock, targetOf: async (id) => targets[id],
    adapters: { webhook: webhookAdapter({ policy: LOOPBACK_RECEIVERS, timeoutMs }) },
    log: { ...quietLog, warn: (obj: object) => { warnings.push(obj as { err?: Error }) } },
  })
  t.teardown(() => notifier.stop())
  /** Stores notifications in the outbox, as the alert runtime does, and hands them over. */
  const notify = async (alertId: number, ...payloads: object[]) => {
    const entries = await s.catalog.alerts.outboxAdd(payloads.map((p) => ({ alert_id: alertId, channel: 'webhook', payload: JSON.stringify(p) })))
    await notifier.enqueue(entries.map((e) => ({ id: e.id, alertId, channel: 'webhook', payload: e.payload })))
    return entries.map((e) => String(e.id))
  }
  return { s, clock, notifier, notify, warnings, m: () => notifier.metrics() }
}

t.test('a receiver that never answers: timed out, retried with back-off, never blocking another receiver', async (t) => {
  const silent = await receiver(t, () => undefined)
  const good = await receiver(t, () => 204)
  const targets: Record<number, NotifyTarget> = {}
  const c = await setup(t, targets)
  const { projectId, series } = await seedProject(c.s.catalog)
  const a = await addAlert(c.s.catalog, projectId, series, 'threshold', {})
  const b = await addAlert(c.s.catalog, projectId, series, 'threshold', {})
  targets[a.id] = { webhook: { url: silent.url, secret: SECRET } }
  targets[b.id] = { webhook: { url: good.url, secret: SECRET } }
  // The silent receiver's notification goes first; the other must not wait behind it.
  const [hung] = await c.notify(a.id, { type: 'alert.raise', n: 1 })
  await c.notify(b.id, { type: 'alert.raise', n: 2 })
  await waitFor(() => good.got.length === 1, { what: 'the answering receiver to get its notification while the other hangs' })
  t.equal(c.m().failed_attempts, 0, 'delivered while the silent receiver still holds the first request (not blocked behind it)')
  t.equal(silent.got.length, 1)

  await waitFor(() => c.m().failed_attempts === 1, { what: 'the unanswered request to time out (300 ms)' })
  t.match(String(c.warnings[0]?.err?.message), /timeout/i, 'the failure is the request time-out')
  // Documented back-off: 1 s, doubling (to 30 s), one probe at a time, the same delivery.
  for (const [attempt, backoff] of [[2, 1], [3, 2], [4, 4]]) {
    t.equal((c.clock.nextAt ?? 0) - c.clock.now(), backoff * SECOND, `retry ${attempt - 1} is due ${backoff} s after the failure`)
    t.equal(c.clock.advance(backoff * SECOND - 1), 0, `no retry before its ${backoff} s`)
    t.equal(c.clock.advance(1), 1, `the retry at ${backoff} s`)
    await waitFor(() => silent.got.length === attempt, { what: `retry ${attempt - 1} of the unanswered notification` })
    await waitFor(() => c.m().failed_attempts === attempt, { what: `retry ${attempt - 1} to time out` })
  }
  t.same(silent.got.map((g) => g.delivery), [hung, hung, hung, hung], 'every retry is the same delivery, one at a time')
  t.match(c.m(), { delivered: 1, pending: 1, dropped: 0 })
  t.same((await c.s.catalog.alerts.outboxPending(10)).map((e) => String(e.id)), [hung], 'the unanswered notification stays in the outbox; the delivered one left it')
})

t.test('x-lintel-delivery: the same on every retry, distinct per notification, never reused', async (t) => {
  // The first two requests fail (503), then the receiver answers.
  const r = await receiver(t, (n) => (n <= 2 ? 503 : 204))
  const targets: Record<number, NotifyTarget> = {}
  const c = await setup(t, targets)
  const { projectId, series } = await seedProject(c.s.catalog)
  const a = await addAlert(c.s.catalog, projectId, series, 'threshold', {})
  targets[a.id] = { webhook: { url: r.url, secret: SECRET } }
  const ids = await c.notify(a.id, { type: 'alert.raise', n: 1 }, { type: 'alert.reset', n: 2 })
  t.not(ids[0], ids[1])
  await waitFor(() => c.m().failed_attempts === 2, { what: 'both first attempts to be refused' })
  c.clock.advance(2 * SECOND) // the back-off after two failures
  await waitFor(() => c.m().delivered === 2, { what: 'both notifications delivered after the back-off' })
  const byBody = new Map<string, Set<string>>()
  for (const g of r.got) byBody.set(g.body, (byBody.get(g.body) ?? new Set()).add(g.delivery))
  t.equal(r.got.length, 4, 'two refused attempts and two deliveries')
  t.same([...byBody.values()].map((s) => [...s]), [[ids[0]], [ids[1]]], 'each notification keeps its delivery id over its retries, and the two differ')
  await waitFor(async () => (await c.s.catalog.alerts.outboxCount()) === 0, { what: 'the outbox to be emptied' })

  // The outbox is empty: a new notification still gets an id never used before.
  const [later] = await c.notify(a.id, { type: 'alert.raise', n: 3 })
  await waitFor(() => r.got.length === 5, { what: 'the later notification' })
  t.equal(r.got[4].delivery, later, 'the header is the outbox id of the notification')
  t.notOk(ids.includes(later), `a new notification gets a new delivery id after the outbox emptied (${later} vs ${ids.join(', ')})`)
})
