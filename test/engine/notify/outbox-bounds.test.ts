// The alert outbox's promises (docs/alerts.md, issue 36 item 5), checked exactly against an
// in-memory outbox and receivers the test answers by hand: the per-company bound counts only
// what is undelivered and drops that company's oldest; the bound in all is never exceeded
// (also after drops of notifications in flight); every drop is counted and logged with the
// company and the running total; at most `maxInFlight` requests per receiver; a receiver down
// holds only its own lane, with one probe at a time; retries go out oldest first; stop() sends
// nothing more and waits for the attempts in flight; delivered notifications leave the outbox,
// nothing else does.
import t, { type Test } from 'tap'
import { Notifier, type NotifierOptions } from '../../../engine/notify/outbox.ts'
import type { Delivery, NotifyTarget } from '../../../engine/notify/port.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { waitFor } from '../../helpers/wait.ts'

const MSG = 'alert outbox full: dropped the oldest undelivered notifications'
const MS = 1000 // µs

/** A request the test answers: ok() delivers, fail() refuses. */
interface Call { d: Delivery; url: string | undefined; ok: () => void; fail: () => void }

function harness(t: Test, opts: Partial<NotifierOptions> & { companies?: Record<number, number> } = {}) {
  const rows = new Map<number, { id: number; alert_id: number; channel: string; payload: string }>()
  const deletes: number[][] = []
  const store = {
    outboxPending: async (limit: number, after = 0) => [...rows.values()].filter((r) => r.id > after).sort((a, b) => a.id - b.id).slice(0, limit),
    outboxCount: async () => rows.size,
    outboxDelete: async (ids: readonly number[]) => { deletes.push([...ids]); for (const id of ids) rows.delete(id) },
  }
  const calls: Call[] = []
  const open = new Set<Call>()
  const delivered: number[] = []
  const adapter = {
    deliver: (d: Delivery, target: NotifyTarget) => new Promise<void>((resolve, reject) => {
      const c: Call = {
        d, url: target.webhook?.url,
        ok: () => { open.delete(c); delivered.push(d.id); resolve() },
        fail: () => { open.delete(c); reject(new Error('receiver down')) },
      }
      calls.push(c)
      open.add(c)
    }),
  }
  const warnings: { obj: any; msg: string }[] = []
  const clock = new VirtualClock()
  const companyCalls: number[] = []
  const companies = opts.companies ?? {}
  const n = new Notifier({
    store, adapters: { webhook: adapter }, clock,
    targetOf: async (alertId) => ({ webhook: { url: `http://receiver-${alertId}.example/hook`, secret: 'x'.repeat(16) } }),
    companyOf: async (alertId) => { companyCalls.push(alertId); return companies[alertId] },
    log: { info: () => {}, warn: (obj, msg) => { warnings.push({ obj, msg }) } },
    baseBackoffMs: 1000, maxBackoffMs: 1000,
    ...opts,
  })
  t.teardown(async () => { for (const c of [...open]) c.fail(); await n.stop() })
  let next = 1
  /** Stores `count` notifications of `alertId` in the outbox and hands them to the notifier. */
  const add = async (alertId: number, count: number) => {
    const list: Delivery[] = []
    for (let i = 0; i < count; i++) {
      const row = { id: next++, alert_id: alertId, channel: 'webhook', payload: `{"n":${i}}` }
      rows.set(row.id, row)
      list.push({ id: row.id, alertId, channel: 'webhook', payload: row.payload })
    }
    await n.enqueue(list)
    return list.map((d) => d.id)
  }
  const inOutbox = () => [...rows.keys()].sort((a, b) => a - b)
  const openFor = (alertId: number) => [...open].filter((c) => c.d.alertId === alertId)
  const drops = () => warnings.filter((w) => w.msg === MSG)
  const turn = () => new Promise((resolve) => setImmediate(resolve))
  /** The receivers answer every request (waiting and new) until `total` were delivered. */
  const deliverUntil = (total: number, what: string) => waitFor(() => { for (const c of [...open]) c.ok(); return delivered.length >= total }, { what })
  return { n, clock, add, rows, inOutbox, deletes, calls, open, openFor, delivered, warnings, drops, companyCalls, turn, deliverUntil }
}

const range = (from: number, to: number) => Array.from({ length: to - from + 1 }, (_, i) => from + i)

t.test('per company: beyond the bound that company\'s oldest are dropped, counted and logged', async (t) => {
  const h = harness(t, { maxPerCompany: 5, maxInFlight: 1, companies: { 1: 7 } })
  await h.add(1, 5)
  t.equal(h.n.metrics().dropped, 0, 'exactly at the bound: nothing dropped')
  t.same(h.drops(), [])
  await h.add(1, 3)
  t.same(h.inOutbox(), range(4, 8), 'the three oldest left the outbox, the five newest stay')
  // id 1 is in flight: it stays pending until its attempt ends; 2 and 3 were waiting.
  t.match(h.n.metrics(), { dropped: 2, pending: 6, delivered: 0 })
  t.equal(h.drops().length, 1, 'one log line for the drop')
  t.match(h.drops()[0].obj, { company_id: 7, dropped: 2, in_flight: 1, total_dropped: 2, bound: 5, which: 'per company', first: 1, last: 3 })
  h.openFor(1)[0].fail()
  await waitFor(() => h.n.metrics().dropped === 3, { what: 'the failed attempt of the dropped notification to count as dropped' })
  t.match(h.n.metrics(), { dropped: 3, pending: 5, failed_attempts: 1, delivered: 0 })
  t.match(h.drops()[1].obj, { dropped: 1, total_dropped: 3, bound: 5, first: 1, last: 1 })
  // The dropped notification is not retried: the next probe is the oldest kept one.
  h.clock.advance(1000 * MS)
  await waitFor(() => h.open.size === 1, { what: 'the probe after the back-off' })
  t.equal(h.openFor(1)[0].d.id, 4, 'the probe is the oldest notification kept')
  await h.deliverUntil(5, 'the five kept notifications delivered')
  t.same(h.delivered, range(4, 8), 'delivered oldest first, none of the dropped')
  await waitFor(() => h.inOutbox().length === 0, { what: 'the outbox to empty' })
  t.match(h.n.metrics(), { pending: 0, dropped: 3 })
})

t.test('a notification dropped while in flight and then delivered counts as delivered, not dropped', async (t) => {
  const h = harness(t, { maxPerCompany: 2, maxInFlight: 1 })
  await h.add(1, 3)
  t.match(h.n.metrics(), { dropped: 0, pending: 3 }, 'the oldest is in flight: dropped only if its attempt fails')
  t.match(h.drops()[0].obj, { dropped: 0, in_flight: 1, first: 1, last: 1 })
  await h.deliverUntil(3, 'all three delivered')
  t.match(h.n.metrics(), { dropped: 0, pending: 0, failed_attempts: 0 })
  t.same(h.delivered, [1, 2, 3])
})

t.test('the per-company bound counts only what is undelivered', async (t) => {
  // Alerts 1 and 2 belong to company 1; alert 1's receiver answers, alert 2's is down.
  const h = harness(t, { maxPerCompany: 3, maxInFlight: 1, companies: { 1: 1, 2: 1 } })
  await h.add(2, 2) // id 1 in flight, id 2 waiting
  await h.add(1, 1) // id 3
  h.openFor(1)[0].ok()
  await waitFor(() => h.n.metrics().delivered === 1, { what: 'alert 1\'s notification delivered' })
  t.equal(h.n.metrics().dropped, 0)
  await h.add(1, 1) // id 4: company 1 holds 1, 2 and 4 undelivered: at the bound
  t.equal(h.n.metrics().dropped, 0, 'a delivered notification does not count against the bound')
  h.openFor(1)[0].ok()
  await waitFor(() => h.n.metrics().delivered === 2, { what: 'the second of alert 1' })
  await h.add(2, 2) // ids 5 and 6: company 1 holds 1, 2, 5, 6: one over
  t.same(h.inOutbox(), [2, 5, 6], 'one over the bound: the oldest (1) left the outbox')
  t.match(h.drops()[0].obj, { company_id: 1, dropped: 0, in_flight: 1, first: 1, last: 1 }, 'it was in flight: dropped if that attempt fails')
})

t.test('companyOf is asked once per alert; an unknown or failing lookup shares company 0', async (t) => {
  const h = harness(t, { maxPerCompany: 3, maxInFlight: 1, companyOf: async (alertId: number) => { if (alertId === 2) throw new Error('catalog down'); return undefined } })
  await h.add(1, 2)
  await h.add(2, 2)
  t.same(h.inOutbox(), [2, 3, 4], 'alerts of no known company share one bound')
  t.match(h.drops()[0].obj, { company_id: 0, in_flight: 1, first: 1, last: 1 })
  const h2 = harness(t, { companies: { 1: 1 } })
  await h2.add(1, 3)
  await h2.add(1, 2)
  t.same(h2.companyCalls, [1], 'the company of an alert is looked up once')
})

t.test('the bound in all is never exceeded, also after drops of queued and in-flight notifications', async (t) => {
  const h = harness(t, { maxPerCompany: 8, maxEntries: 10, maxInFlight: 1, companies: { 1: 1, 2: 2 } })
  await h.add(1, 10) // id 1 in flight; company 1 over its bound by two: 1 (in flight) and 2 dropped
  t.same(h.inOutbox(), range(3, 10))
  t.match(h.n.metrics(), { dropped: 1, pending: 9 })
  h.openFor(1)[0].fail()
  await waitFor(() => h.n.metrics().dropped === 2, { what: 'the in-flight drop to count' })
  t.match(h.n.metrics(), { pending: 8 })
  await h.add(2, 2) // 10 in all: at the bound
  t.equal(h.n.metrics().dropped, 2, 'exactly at the bound in all: nothing more dropped')
  t.equal(h.inOutbox().length, 10)
  // The dropped one's failed attempt did not put the lane on hold: 3 went out meanwhile.
  t.same(h.openFor(1).map((c) => c.d.id), [3])
  await h.add(2, 1) // 11: company 1 holds the most: its oldest (3) goes
  t.equal(h.inOutbox().length, 10, 'the outbox never holds more than the bound in all')
  t.same(h.inOutbox(), [...range(4, 10), 11, 12, 13])
  t.match(h.drops().at(-1)!.obj, { company_id: 1, which: 'in all', bound: 10, dropped: 0, in_flight: 1, first: 3, last: 3, total_dropped: 2 })
  h.openFor(1)[0].fail()
  await waitFor(() => h.n.metrics().dropped === 3, { what: 'the failed attempt of 3 to count as dropped' })
  t.match(h.n.metrics(), { pending: 10 })
  await h.add(2, 1) // 11 again: company 1 (7 left) still holds the most: 4 goes, waiting or in flight
  t.equal(h.inOutbox().length, 10, 'still never more than the bound in all')
  t.same(h.inOutbox(), [...range(5, 10), 11, 12, 13, 14])
})

t.test('the bound in all drops from the company holding the most, even when it is not the first', async (t) => {
  const h = harness(t, { maxEntries: 6, maxInFlight: 1, companies: { 1: 1, 2: 2, 3: 3 } })
  await h.add(1, 2) // ids 1, 2
  await h.add(2, 4) // ids 3-6
  await h.add(3, 1) // id 7: 7 in all; company 2 holds the most
  t.same(h.inOutbox(), [1, 2, 4, 5, 6, 7], 'company 2\'s oldest (3) left the outbox')
  t.match(h.drops()[0].obj, { company_id: 2, which: 'in all', bound: 6, in_flight: 1, first: 3, last: 3 })
  t.match(h.n.metrics(), { dropped: 0, pending: 7 }, 'it was in flight: counted when that attempt fails')
  h.openFor(2)[0].fail()
  await waitFor(() => h.n.metrics().dropped === 1, { what: 'the failed attempt of the dropped notification' })
  t.match(h.n.metrics(), { pending: 6 })
})

t.test('at most maxInFlight requests per receiver; the rest wait in order', async (t) => {
  const h = harness(t, { maxInFlight: 2 })
  await h.add(1, 5)
  await h.add(2, 1)
  t.same(h.openFor(1).map((c) => c.d.id), [1, 2], 'two requests to receiver 1')
  t.same(h.openFor(2).map((c) => c.d.id), [6], 'receiver 2 is another lane, not held behind receiver 1')
  h.openFor(1)[0].ok()
  await waitFor(() => h.openFor(1).length === 2, { what: 'the next waiting one sent' })
  t.same(h.openFor(1).map((c) => c.d.id), [2, 3])
  for (let i = 0; i < 4; i++) { await waitFor(() => h.openFor(1).length > 0, { what: 'a request' }); h.openFor(1)[0].ok(); await h.turn() }
  await waitFor(() => h.delivered.filter((id) => id <= 5).length === 5, { what: 'receiver 1 gets all five' })
  t.same(h.delivered.filter((id) => id <= 5), [1, 2, 3, 4, 5], 'in order')
})

t.test('a receiver down holds only its own lane: one probe at a time, retries oldest first', async (t) => {
  const h = harness(t, { maxInFlight: 3 })
  await h.add(1, 3)
  // The three attempts fail newest first: they go back in their places by id.
  for (const c of [...h.openFor(1)].reverse()) { c.fail(); await waitFor(() => !h.open.has(c), { what: 'the failure' }) }
  await waitFor(() => h.n.metrics().failed_attempts === 3, { what: 'three failed attempts' })
  // Another receiver is not held by receiver 1's back-off.
  await h.add(2, 1)
  t.same(h.openFor(2).map((c) => c.d.id), [4], 'receiver 2 asked at once')
  h.openFor(2)[0].ok()
  await h.add(1, 1) // id 5 waits behind the back-off
  t.equal(h.openFor(1).length, 0, 'nothing sent to receiver 1 during its back-off')
  h.clock.advance(1000 * MS)
  await waitFor(() => h.openFor(1).length === 1, { what: 'the probe' })
  t.equal(h.openFor(1)[0].d.id, 1, 'the probe is the oldest')
  await h.add(1, 1) // id 6: on hold, a probe in flight: not sent
  h.clock.advance(5000 * MS)
  await h.turn()
  t.equal(h.openFor(1).length, 1, 'one probe at a time while on hold')
  await h.deliverUntil(6, 'everything delivered once the receiver is back')
  t.same(h.delivered.filter((id) => id !== 4), [1, 2, 3, 5, 6], 'oldest first')
})

t.test('delivered notifications leave the outbox in one batch per turn; nothing else is deleted', async (t) => {
  const h = harness(t, { maxInFlight: 3 })
  await h.add(1, 3)
  for (const c of [...h.openFor(1)]) c.ok()
  await waitFor(() => h.inOutbox().length === 0, { what: 'the outbox to empty' })
  t.same(h.deletes, [[1, 2, 3]], 'one delete of the three delivered ids')
  await h.n.stop()
  t.same(h.deletes, [[1, 2, 3]], 'stop() deletes nothing more')
})

t.test('stop() waits for an attempt in flight: delivered, it leaves the outbox before stop() returns', async (t) => {
  const h = harness(t, { maxInFlight: 1 })
  await h.add(1, 1)
  let stopped = false
  const stopping = h.n.stop().then(() => { stopped = true })
  await h.turn()
  t.notOk(stopped, 'stop() waits while the request is open')
  h.openFor(1)[0].ok()
  await stopping
  t.same([h.deletes, h.inOutbox()], [[[1]], []], 'the delivered notification was deleted before stop() returned (the store may close next)')
  t.equal(h.n.metrics().delivered, 1)
})

t.test('after stop() nothing more is sent, and the back-off timer is cancelled', async (t) => {
  const h = harness(t, { maxInFlight: 1 })
  await h.add(1, 1)
  h.openFor(1)[0].fail()
  await waitFor(() => h.n.metrics().failed_attempts === 1, { what: 'the failure' })
  t.equal(h.clock.pending, 1, 'the back-off timer')
  await h.n.stop()
  t.equal(h.clock.pending, 0, 'stop() cancels it')
  await h.add(2, 1)
  h.clock.advance(10_000 * MS)
  await h.turn()
  t.equal(h.calls.length, 1, 'nothing sent after stop()')
  t.same(h.inOutbox(), [1, 2], 'what is undelivered stays in the outbox')
})

t.test('failures are logged once per 100 attempts, not per attempt', async (t) => {
  const h = harness(t, { maxInFlight: 1 })
  await h.add(1, 1)
  for (let i = 1; i <= 101; i++) {
    await waitFor(() => h.open.size === 1, { what: `attempt ${i}` })
    h.openFor(1)[0].fail()
    await waitFor(() => h.n.metrics().failed_attempts === i, { what: `failure ${i}` })
    h.clock.advance(1000 * MS)
  }
  t.equal(h.warnings.filter((w) => w.msg.startsWith('alert notification failed')).length, 2, 'the 1st and the 101st failure')
})

t.test('an alert deleted before sending: counted undeliverable, logged, removed from the outbox', async (t) => {
  const h = harness(t, { targetOf: async () => undefined })
  await h.add(1, 1)
  t.match(h.n.metrics(), { undeliverable: 1, pending: 0 })
  t.match(h.warnings[0].obj, { alert_id: 1, delivery: 1 })
  await waitFor(() => h.inOutbox().length === 0, { what: 'the undeliverable notification to leave the outbox' })
})
