// The alert runtime in the one module shape (engine/running.ts, issue 30 item 5): started, it
// resumes the enabled alerts of the projects this process runs (one that cannot start is
// logged, the others still run); stop() ends them; a start whose resume fails fails with its
// error.
import t, { type Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'
import { startAlerts } from '../../../engine/alerts/index.ts'
import { parseThresholds } from '../../../engine/alerts/config.ts'
import { ObservationBus, observedStore } from '../../../engine/observation-bus.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { addAlert, LOOPBACK_RECEIVERS, seedProject } from './setup.ts'

const S = 1_000_000
const T0 = 1_700_000_000 * S
const config = { thresholds: parseThresholds({ warn: { upper: 25 } }) }

async function setup(t: Test) {
  const catalog = Catalog.open(':memory:', adminEndpoints)
  const raw = await openSqliteStore({ dir: t.testdir() })
  t.teardown(async () => { await raw.close(); catalog.close() })
  const bus = new ObservationBus()
  const errors: string[] = []
  const log = { info: () => {}, warn: () => {}, error: (o: object, msg: string) => { errors.push(`${msg} ${(o as { alert_id?: number }).alert_id}`) } }
  return { catalog, raw, bus, store: observedStore(raw, bus), errors, log, clock: new VirtualClock() }
}

t.test('resumes the enabled alerts of the owned projects; stop ends them', async (t) => {
  const s = await setup(t)
  const { projectId, series } = await seedProject(s.catalog)
  const other = (await s.catalog.projects.create((await s.catalog.companies.list())[0].id, { name: 'Q' }, null)).project
  const otherSeries = (await s.catalog.datapoints.ensure(other.id, ['dq'])).get('dq')!
  const a = await addAlert(s.catalog, projectId, series, 'threshold', config)
  const notOwned = await addAlert(s.catalog, other.id, otherSeries, 'threshold', config)
  const broken = await addAlert(s.catalog, projectId, series, 'threshold', { thresholds: 'not thresholds' })
  const disabled = await addAlert(s.catalog, projectId, series, 'threshold', config)
  await s.catalog.alerts.setStatus(disabled.id, 300)

  const started = await startAlerts({ catalog: s.catalog, store: s.raw, bus: s.bus, log: s.log, clock: s.clock, webhookPolicy: LOOPBACK_RECEIVERS, owns: (p) => p === projectId })
  t.same(started.runtime.runningIds(), [a.id], 'the enabled alert of the owned project, only')
  t.same(s.errors, [`alert could not be resumed ${broken.id}`], 'one that cannot start is logged; the others run')
  t.notOk(started.runtime.isRunning(notOwned.id))

  await s.store.append([{ series, time: T0 + S, value: 27 }])
  await started.runtime.settled()
  t.equal((await s.catalog.alerts.events(a.id, { limit: 10 })).length, 1, 'it evaluates: a raise')

  await started.stop()
  t.same(started.runtime.runningIds(), [])
  await s.store.append([{ series, time: T0 + 2 * S, value: 10 }])
  await started.runtime.settled()
  t.equal((await s.catalog.alerts.events(a.id, { limit: 10 })).length, 1, 'stopped: no reset evaluated')
})

t.test('a failed resume fails the start with its error, nothing left armed', async (t) => {
  const s = await setup(t)
  const alerts = Object.assign(Object.create(s.catalog.alerts), { listByStatus: async () => { throw new Error('catalog unreachable') } })
  const catalog = Object.assign(Object.create(s.catalog), { alerts }) as Catalog
  await t.rejects(startAlerts({ catalog, store: s.raw, bus: s.bus, log: s.log, clock: s.clock }), /catalog unreachable/)
  t.equal(s.clock.pending, 0, 'no timer left armed')
})
