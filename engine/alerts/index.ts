// The alert runtime with its notifier, as the composition root wires it (server/runtimes.ts):
// the webhook, e-mail and log adapters of the notification port over the catalog's durable outbox.
import type { Catalog } from '../../catalog/index.ts'
import type { ObservationBus } from '../observation-bus.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { logAdapter } from '../notify/log.ts'
import { Notifier } from '../notify/outbox.ts'
import type { NotifyLog } from '../notify/port.ts'
import type { WebhookAddressPolicy } from '../notify/address-policy.ts'
import { webhookAdapter } from '../notify/webhook.ts'
import { emailAdapter, type SmtpSettings } from '../notify/email.ts'
import { systemClock, type Clock } from '../../core/clock/clock.ts'
import type { Running } from '../running.ts'
import { AlertRuntime, type AlertRuntimeLog } from './runtime.ts'

export interface AlertsOptions {
  catalog: Catalog
  store: Pick<TimeseriesStore, 'read'>
  bus: ObservationBus
  log: AlertRuntimeLog & NotifyLog
  clock?: Clock
  /** Bound of the outbox (undelivered notifications); default 100,000. */
  maxOutbox?: number
  /** Bound of one company's undelivered notifications (LINTEL_ALERT_OUTBOX_PER_COMPANY); default 10,000. */
  maxOutboxPerCompany?: number
  baseBackoffMs?: number
  maxBackoffMs?: number
  /** Which addresses webhooks may reach (default: no internal address). */
  webhookPolicy?: WebhookAddressPolicy
  /** Whether this process runs the project's alerts (scaled mode); default all. */
  owns?: (projectId: number) => boolean
  /** At most one notification per alert per this many ms (LINTEL_ALERT_NOTIFY_INTERVAL_S); default 0: every event. */
  notifyIntervalMs?: number
  /** The SMTP server of the e-mail channel (LINTEL_SMTP_*); without it e-mail notifications wait in the outbox. */
  smtp?: SmtpSettings
}

export function openAlerts(o: AlertsOptions): AlertRuntime & { close(): Promise<void> } {
  const clock = o.clock ?? systemClock
  let runtime: AlertRuntime | undefined = undefined
  const notifier = new Notifier({
    store: o.catalog.alerts, adapters: { webhook: webhookAdapter({ policy: o.webhookPolicy }), log: logAdapter(o.log), ...(o.smtp ? { email: emailAdapter(o.smtp) } : {}) }, clock, log: o.log,
    targetOf: (id) => runtime!.targetOf(id), maxEntries: o.maxOutbox, baseBackoffMs: o.baseBackoffMs, maxBackoffMs: o.maxBackoffMs,
    maxPerCompany: o.maxOutboxPerCompany,
    companyOf: async (id) => {
      const alert = await o.catalog.alerts.find(id)
      return alert && (await o.catalog.projects.get(alert.project_id)).company_id
    },
  })
  runtime = new AlertRuntime({ catalog: o.catalog, store: o.store, bus: o.bus, notifier, log: o.log, clock, owns: o.owns, notifyIntervalMs: o.notifyIntervalMs })
  return Object.assign(runtime, {
    close: async () => {
      await runtime!.stopAll()
      await notifier.stop()
    },
  })
}

/**
 * The alert runtime in the one module shape (engine/running.ts): started, it resumes the
 * enabled alerts of the projects this process runs; stop() ends them and the notifier (the
 * outbox keeps what is undelivered for the next start).
 */
export async function startAlerts(o: AlertsOptions): Promise<Running & { runtime: AlertRuntime }> {
  const alerts = openAlerts(o)
  try {
    await alerts.resume()
  } catch (err) {
    await alerts.close()
    throw err
  }
  return { runtime: alerts, stop: () => alerts.close() }
}
