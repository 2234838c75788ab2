// The alert runtime (engine/alerts/runtime.ts): disable resets a raised alert with an event,
// a project's alerts stop with it, a deleted alert's transitions are not stored, minimum
// durations on the live stream.
import t from 'tap'
import { parseThresholds } from '../../../engine/alerts/config.ts'
import { ALERT_LIFECYCLE } from '../../../engine/alerts/lifecycle.ts'
import { addAlert, alertSetup, seedProject } from './setup.ts'

const S = 1_000_000
const T0 = 1_700_000_000 * S

t.test('disable while raised: a reset without a value, the checkpoint forgotten', async (t) => {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) }, { log: true })
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0, value: 11 }])
  await s.alerts.settled()
  await s.alerts.disable(a)
  t.notOk(s.alerts.isRunning(a.id))
  t.match((await s.catalog.alerts.events(a.id, { limit: 10 })).map((e) => [e.kind, e.level, e.value]), [['reset', 'warn', null], ['raise', 'warn', 11]])
  t.equal(await s.catalog.alerts.state(a.id), undefined)
  t.equal(s.alerts.metrics().notifications!.pending + s.alerts.metrics().notifications!.delivered, 2, 'both notified (log channel)')
})

t.test('minimum duration on the live stream, and stopProject', async (t) => {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ crit: { upper: 50, duration_seconds: 60 } }) })
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0, value: 51 }, { series, time: T0 + 30 * S, value: 52 }])
  await s.alerts.settled()
  t.equal(await s.catalog.alerts.eventCount(a.id), 0, 'not yet: 30 s of 60')
  await s.store.append([{ series, time: T0 + 60 * S, value: 53 }])
  await s.alerts.settled()
  t.match(await s.catalog.alerts.events(a.id, { limit: 1 }), [{ kind: 'raise', level: 'crit', value: 53, time: T0 + 60 * S }])
  await s.alerts.stopProject(projectId)
  t.same(s.alerts.runningIds(), [])
  const evaluated = s.alerts.metrics().evaluated
  await s.store.append([{ series, time: T0 + 61 * S, value: 0 }])
  t.equal(s.alerts.metrics().evaluated, evaluated, 'a stopped alert evaluates nothing')
})

t.test('an alert deleted while running: its transitions are not stored', async (t) => {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) })
  await s.alerts.start(a)
  await s.catalog.alerts.remove(a.id)
  await s.store.append([{ series, time: T0, value: 11 }])
  await s.alerts.settled()
  t.equal(s.alerts.metrics().raised, 1, 'evaluated')
  t.equal(await s.catalog.alerts.eventCount(a.id), 0, 'but nothing stored for a deleted alert')
  t.equal(await s.catalog.alerts.outboxCount(), 0)
})

t.test('disabled through an API in another process: the worker\'s reconcile resets the raised alert, once', async (t) => {
  const s = await alertSetup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const a = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) }, { log: true })
  await s.alerts.start(a)
  await s.store.append([{ series, time: T0, value: 11 }])
  await s.alerts.settled()
  // The API process only writes the status; this process learns it by reconciling.
  await s.catalog.alerts.setStatus(a.id, ALERT_LIFECYCLE.next(a.status_code, 'disable', a.name))
  await s.alerts.reconcile()
  t.notOk(s.alerts.isRunning(a.id))
  t.match((await s.catalog.alerts.events(a.id, { limit: 10 })).map((e) => [e.kind, e.level, e.value]), [['reset', 'warn', null], ['raise', 'warn', 11]])
  t.equal(await s.catalog.alerts.state(a.id), undefined)
  // API and worker in one process: the route's disable and a reconcile at once give one reset.
  const c = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) }, { log: true })
  await s.alerts.start(c)
  await s.store.append([{ series, time: T0 + 2 * S, value: 13 }])
  await s.alerts.settled()
  const cMoved = await s.catalog.alerts.setStatus(c.id, ALERT_LIFECYCLE.next(c.status_code, 'disable', c.name))
  await Promise.all([s.alerts.disable(cMoved), s.alerts.reconcile()])
  t.same((await s.catalog.alerts.events(c.id, { limit: 10 })).map((e) => e.kind), ['reset', 'raise'], 'one reset')
  // A deleted alert just stops.
  const b = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: parseThresholds({ warn: { upper: 10 } }) })
  await s.alerts.start(b)
  await s.store.append([{ series, time: T0 + 3 * S, value: 12 }])
  await s.alerts.settled()
  await s.catalog.alerts.remove(b.id)
  await s.alerts.reconcile()
  t.notOk(s.alerts.isRunning(b.id))
})
