// Notification rate per alert (issue 29 item 2, engine/alerts/debounce.ts) on a virtual clock:
// a flood of raises and resets of one alert is recorded event by event but notified at most
// once per interval, the events in between coalesced into the window's last notification
// with their count; an alert of another company is notified on its own; stopping sends what
// a window still holds; interval 0 notifies every event as before.
import t from 'tap'
import { parseThresholds } from '../../../engine/alerts/config.ts'
import { NotificationDebounce } from '../../../engine/alerts/debounce.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { waitFor } from '../../helpers/wait.ts'
import { addAlert, alertSetup, quietLog } from './setup.ts'

const S = 1_000_000
const T0 = 1_700_000_000 * S

/** A log that keeps the payloads of the log channel's notifications. */
function recording() {
  const seen: { alert_id: number; notification: { type: string; event: { id: number; value: number | null }; coalesced?: number } }[] = []
  return { seen, log: { ...quietLog, info: (o: any, msg: string) => { if (msg === 'alert notification') seen.push(o) } } }
}

async function twoCompanies(s: Awaited<ReturnType<typeof alertSetup>>) {
  const ids = []
  for (const name of ['Flood', 'Quiet']) {
    const company = await s.catalog.companies.create(name)
    const { project } = await s.catalog.projects.create(company.id, { name: 'P' }, null)
    const series = (await s.catalog.datapoints.ensure(project.id, ['dp'])).get('dp')!
    const a = await addAlert(s.catalog, project.id, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) }, { log: true })
    await s.alerts.start(a)
    ids.push({ alert: a, series })
  }
  return ids
}

t.test('20,000 observations crossing a threshold: every event recorded, two notifications, the second with the count', async (t) => {
  const clock = new VirtualClock(T0)
  const rec = recording()
  const s = await alertSetup(t, { clock, notifyIntervalMs: 60_000, log: rec.log })
  const [flood, quiet] = await twoCompanies(s)
  // One request: 11, 9, 11, 9, ... : 20,000 observations, 20,000 raises and resets.
  await s.store.append(Array.from({ length: 20_000 }, (_, i) => ({ series: flood.series, time: T0 + i * 1000, value: i % 2 === 0 ? 11 : 9 })))
  await s.alerts.settled()
  t.equal(await s.catalog.alerts.eventCount(flood.alert.id), 20_000, 'every raise and reset is recorded, as before')
  await waitFor(() => rec.seen.length === 1, { what: 'the first notification, at once' })
  t.same(rec.seen[0].notification.coalesced, undefined, 'the first one is an ordinary notification')
  t.equal(await s.catalog.alerts.outboxCount(), 0, 'the held events are not in the outbox: the company\'s bound is not filled')
  t.equal(s.alerts.metrics().notifications_held, 19_999, 'they wait for the window\'s notification')
  // Company B's alert in the same window is notified on its own, at once.
  await s.store.append([{ series: quiet.series, time: T0, value: 12 }])
  await s.alerts.settled()
  await waitFor(() => rec.seen.some((n) => n.alert_id === quiet.alert.id), { what: 'the other company\'s notification' })
  t.equal(rec.seen.filter((n) => n.alert_id === flood.alert.id).length, 1, 'still one for the flooding alert inside its window')
  // The window ends: one notification of the newest event, standing for the 19,999 held.
  await clock.settle(60_000_000)
  await waitFor(() => rec.seen.filter((n) => n.alert_id === flood.alert.id).length === 2, { what: 'the coalesced notification' })
  const last = rec.seen.filter((n) => n.alert_id === flood.alert.id)[1].notification
  const newest = (await s.catalog.alerts.events(flood.alert.id, { limit: 1 }))[0]
  t.equal(s.alerts.metrics().notifications_held, 0)
  t.same([last.type, last.event.id, last.event.value, last.coalesced], ['alert.reset', newest.id, 9, 19_999])
  // Nothing else is pending: 20,000 events, 2 notifications.
  await clock.settle(600_000_000)
  t.equal(rec.seen.filter((n) => n.alert_id === flood.alert.id).length, 2)
})

t.test('stopping an alert sends what its window holds; interval 0 notifies every event', async (t) => {
  const clock = new VirtualClock(T0)
  const rec = recording()
  const s = await alertSetup(t, { clock, notifyIntervalMs: 60_000, log: rec.log })
  const [a] = await twoCompanies(s)
  await s.store.append([11, 9, 11].map((value, i) => ({ series: a.series, time: T0 + i * S, value })))
  await s.alerts.settled()
  await waitFor(() => rec.seen.length === 1, { what: 'the first notification' })
  await s.alerts.stop(a.alert.id)
  await waitFor(() => rec.seen.filter((n) => n.alert_id === a.alert.id).length === 2, { what: 'the held notification on stop' })
  t.same(rec.seen.at(-1)!.notification.coalesced, 2, 'the reset and the raise after it')

  const rec0 = recording()
  const s0 = await alertSetup(t, { clock: new VirtualClock(T0), log: rec0.log })
  const [b] = await twoCompanies(s0)
  await s0.store.append([11, 9, 11, 9].map((value, i) => ({ series: b.series, time: T0 + i * S, value })))
  await s0.alerts.settled()
  await waitFor(() => rec0.seen.length === 4, { what: 'one notification per event without a debounce' })
  t.notOk(rec0.seen.some((n) => n.notification.coalesced !== undefined))
})

t.test('the debounce alone: a window per alert, at most one send per interval', async (t) => {
  const clock = new VirtualClock(T0)
  const sent: { alertId: number; count: number; id: number }[] = []
  const d = new NotificationDebounce(10_000, clock, (c) => sent.push({ alertId: c.alertId, count: c.count, id: c.event.id }))
  const ev = (alertId: number, id: number) => ({ id, alert_id: alertId, kind: 'raise' as const, level: 'warn' as const, previous_level: null, value: 1, time: 0, recorded_at: 0 })
  t.equal(d.admit(1), true)
  t.equal(d.admit(2), true, 'another alert has its own window')
  t.equal(d.admit(1), false)
  d.hold(ev(1, 10), ['log'])
  t.equal(d.admit(1), false)
  d.hold(ev(1, 11), ['log'])
  t.equal(d.heldCount(), 2)
  clock.advance(9_999_000)
  t.same(sent, [], 'not before the window ends')
  clock.advance(1000)
  t.same(sent, [{ alertId: 1, count: 2, id: 11 }])
  t.equal(d.admit(1), false, 'the coalesced send opened a new window')
  clock.advance(10_000_000)
  t.equal(d.admit(1), true, 'a quiet window later: at once again')
})
