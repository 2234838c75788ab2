// An alert runtime over an in-memory catalog, a SQLite store in the test directory and the
// observation bus, with a virtual clock and a recording notifier log (no HTTP).
import type { Test } from 'tap'
import { adminEndpoints } from '../../../api/registry.ts'
import { Catalog } from '../../../catalog/index.ts'
import { openAlerts } from '../../../engine/alerts/index.ts'
import { ALERT_LIFECYCLE } from '../../../engine/alerts/lifecycle.ts'
import { WebhookAddressPolicy } from '../../../engine/notify/address-policy.ts'
import { ObservationBus, observedStore } from '../../../engine/observation-bus.ts'
import type { TimeseriesStore } from '../../../engine/store/port.ts'
import { openSqliteStore } from '../../../engine/store/sqlite-store.ts'
import { VirtualClock } from '../../../core/clock/virtual-clock.ts'

/** The tests' receivers listen on loopback, which the default policy refuses. */
export const LOOPBACK_RECEIVERS = new WebhookAddressPolicy(['127.0.0.1'])

export const quietLog = { info: () => {}, warn: () => {}, error: () => {} }

export async function alertSetup(t: Test, opts: { dir?: string; catalogDir?: string; clock?: VirtualClock; notifyIntervalMs?: number; log?: { info(o: object, m: string): void; warn(o: object, m: string): void; error(o: object, m: string): void } } = {}) {
  const catalog = Catalog.open(opts.catalogDir ?? ':memory:', adminEndpoints)
  const raw: TimeseriesStore = await openSqliteStore({ dir: opts.dir ?? t.testdir() })
  const bus = new ObservationBus()
  const store = observedStore(raw, bus)
  const clock = opts.clock ?? new VirtualClock()
  const alerts = openAlerts({ catalog, store: raw, bus, log: opts.log ?? quietLog, clock, webhookPolicy: LOOPBACK_RECEIVERS, notifyIntervalMs: opts.notifyIntervalMs })
  let closed = false
  const close = async () => {
    if (closed) return
    closed = true
    await alerts.close()
    await raw.close()
    catalog.close()
  }
  /** A crash: the files stay as they are, nothing is flushed or checkpointed. */
  const crash = async () => {
    closed = true
    await raw.close()
    catalog.close()
  }
  t.teardown(close)
  return { catalog, raw, store, bus, clock, alerts, close, crash }
}

/** A company, a project and a datapoint (created once per catalog). */
export async function seedProject(catalog: Catalog, dataPointID = 'dp') {
  let company = (await catalog.companies.list())[0]
  if (!company) company = await catalog.companies.create('Acme')
  const existing = (await catalog.projects.listByCompany(company.id))[0]
  const project = existing ?? (await catalog.projects.create(company.id, { name: 'P' }, null)).project
  const series = (await catalog.datapoints.ensure(project.id, [dataPointID])).get(dataPointID)!
  return { projectId: project.id, series }
}

export async function addAlert(catalog: Catalog, projectId: number, series: number, kind: 'threshold' | 'throughput', config: object, notification: object = {}) {
  return catalog.alerts.create(projectId, { datapoint: series, kind, name: `${kind} alert`, description: '', status_code: ALERT_LIFECYCLE.initial, config, notification, attributes: {} })
}
