// The outbox is bounded per company (issue 29): company B's flood of notifications to a receiver
// that is down drops B's own oldest ones, never company A's; and when the bound in all is hit,
// the company holding the most loses its oldest first. Company A's notifications all arrive.
import t, { type Test } from 'tap'
import { Notifier } from '../../../engine/notify/outbox.ts'
import type { Delivery, NotificationAdapter } from '../../../engine/notify/port.ts'
import { waitFor } from '../../helpers/wait.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { addAlert, alertSetup, seedProject } from '../alerts/setup.ts'

async function twoCompanies(t: Test, bounds: { maxEntries?: number; maxPerCompany?: number }) {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const alertA = await addAlert(s.catalog, projectId, series, 'threshold', {}, {})
  const alertB = await addAlert(s.catalog, projectId, series, 'threshold', {}, {})
  const companyOf = async (alertId: number) => (alertId === alertA.id ? 1 : 2) // A: company 1, B: company 2
  const arrived: Delivery[] = []
  let aUp = false
  const adapter: NotificationAdapter = {
    // B's receiver is down for good; A's is down until the test brings it up.
    deliver: async (d) => { if (d.alertId === alertB.id || !aUp) throw new Error('receiver down'); arrived.push(d) },
  }
  const warnings: { obj: any; msg: string }[] = []
  const clock = new VirtualClock()
  const n = new Notifier({
    store: s.catalog.alerts, adapters: { webhook: adapter }, clock, companyOf,
    targetOf: async (id) => ({ webhook: { url: `http://receiver-${id}.example/hook`, secret: 'x'.repeat(16) } }),
    log: { info: () => {}, warn: (obj, msg) => { warnings.push({ obj, msg }) } }, maxInFlight: 1, baseBackoffMs: 1000, maxBackoffMs: 1000, ...bounds,
  })
  t.teardown(() => n.stop())
  const add = async (alertId: number, count: number) => {
    const entries = await s.catalog.alerts.outboxAdd(Array.from({ length: count }, (_, i) => ({ alert_id: alertId, channel: 'webhook', payload: `{"n":${i}}` })))
    await n.enqueue(entries.map((e) => ({ id: e.id, alertId, channel: 'webhook', payload: e.payload })))
    return entries.map((e) => e.id)
  }
  const bringAUp = async () => {
    aUp = true
    // Each lane is on hold after its failed first attempt: pass the back-off, then every retry is due.
    for (let i = 0; i < 20 && arrived.length === 0; i++) { clock.advance(1000 * 1000); await new Promise((r) => setImmediate(r)) }
  }
  return { s, n, alertA, alertB, add, arrived, warnings, bringAUp }
}

t.test('company B floods past its bound: B loses its own oldest, A\'s notifications all arrive', async (t) => {
  const { s, n, alertA, add, arrived, warnings, bringAUp } = await twoCompanies(t, { maxPerCompany: 5 })
  const aIds = await add(alertA.id, 3)
  await waitFor(() => n.metrics().failed_attempts >= 1, { what: 'the first attempt of A\'s lane to fail' })
  const bIds = await add(alertA.id + 1, 50)
  await waitFor(() => n.metrics().dropped === 45, { what: 'B over its bound of 5 by 45: 45 dropped', timeoutMs: 10_000 })
  t.ok(warnings.some((w) => w.msg.includes('outbox full') && w.obj.company_id === 2 && w.obj.which === 'per company'), 'the drop is logged with the company')
  const left = (await s.catalog.alerts.outboxPending(1000)).map((e) => e.id)
  t.same(left, [...aIds, ...bIds.slice(-5)], 'the outbox keeps all of A and B\'s newest five')
  await bringAUp()
  await waitFor(() => arrived.length === 3, { what: 'company A\'s three notifications' })
  t.same(arrived.map((d) => d.id), aIds)
})

t.test('the bound in all: the company holding the most loses its oldest, not the others', async (t) => {
  const { s, n, alertA, add, arrived, bringAUp } = await twoCompanies(t, { maxEntries: 10 })
  const aIds = await add(alertA.id, 3)
  const bIds = await add(alertA.id + 1, 50)
  await waitFor(() => n.metrics().dropped === 43, { what: '43 of B dropped', timeoutMs: 10_000 })
  t.same((await s.catalog.alerts.outboxPending(1000)).map((e) => e.id), [...aIds, ...bIds.slice(-7)])
  await bringAUp()
  await waitFor(() => arrived.length === 3, { what: 'company A\'s three notifications' })
})
