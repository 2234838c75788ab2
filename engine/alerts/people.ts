// What people do with a raised alert (issue 34 item 3): acknowledge it (who, when, a comment)
// and clear it (a reset by hand). The moves are the condition table's (lifecycle.ts,
// ALERT_CONDITION); the rule that an acknowledged alert notifies no further raise until it
// resets lives where transitions are stored (catalog/alerts.ts), so it holds in whichever
// process evaluates the alert.
//
// Acknowledge: one transaction stores the `ack` event, the acknowledgement and its
// notifications (alert.ack). Clear: the alert stops (its checkpoint written), a `clear` event
// with the evaluation state set back to Normal is stored with its notifications (alert.clear),
// and the alert starts again from that state: a condition that still holds raises anew on the
// next observation (threshold; a minimum duration starts over) or after one window (throughput).
import type { AlertEvent, AlertLevel, AlertRecord, OutboxEntry } from '../../catalog/alerts.ts'
import type { Catalog } from '../../catalog/index.ts'
import { nowMs, systemClock, type Clock } from '../../core/clock/clock.ts'
import { alertPayload } from '../notify/payload.ts'
import { channelsOf, parseNotification } from './config.ts'
import { ALERT_CONDITION, ALERT_LIFECYCLE, conditionOf } from './lifecycle.ts'

/** Who acts, and why. */
export interface Actor { actor: string; comment: string | null }

/** What of the alert runtime these moves use; absent in a process that does not run alerts. */
export interface RunningAlerts {
  isRunning(id: number): boolean
  stop(id: number): Promise<void>
  start(alert: AlertRecord): Promise<void>
  settled(): Promise<void>
  deliver(entries: readonly OutboxEntry[]): Promise<void>
}

export interface PeopleDeps { catalog: Catalog; runtime?: RunningAlerts; clock?: Clock }

/** The raised level in the alert's stored evaluation state (null: Normal). */
async function storedLevel(catalog: Catalog, id: number): Promise<AlertLevel | null> {
  const text = await catalog.alerts.state(id)
  return text ? (JSON.parse(text) as { level?: AlertLevel | null }).level ?? null : null
}

/** The alert's condition now: its code in ALERT_CONDITION, the raised level and the acknowledgement. */
export async function conditionNow(catalog: Catalog, alert: AlertRecord) {
  const level = await storedLevel(catalog, alert.id)
  const ack = level === null ? undefined : await catalog.alerts.ack(alert.id)
  return { code: conditionOf(level, ack !== undefined), level, ack }
}

export async function acknowledgeAlert(d: PeopleDeps, alert: AlertRecord, who: Actor): Promise<AlertEvent> {
  await d.runtime?.settled() // raises and resets seen so far are stored
  const now = await conditionNow(d.catalog, alert)
  ALERT_CONDITION.next(now.code, 'acknowledge', alert.name)
  const channels = channelsOf(parseNotification(alert.notification))
  const stored = await d.catalog.alerts.acknowledge(alert.id, { ...who, level: now.level, time: nowMs(d.clock ?? systemClock) * 1000 }, channels, (a, e) => alertPayload(a, e))
  if (!stored) ALERT_CONDITION.next(2, 'acknowledge', alert.name) // acknowledged meanwhile by someone else: the same 409
  await d.runtime?.deliver(stored!.outbox)
  return stored!.event
}

export async function clearAlert(d: PeopleDeps, alert: AlertRecord, who: Actor): Promise<AlertEvent> {
  const wasRunning = d.runtime?.isRunning(alert.id) ?? false
  if (wasRunning) await d.runtime!.stop(alert.id) // its checkpoint is written: the level is current
  try {
    const now = await conditionNow(d.catalog, alert)
    ALERT_CONDITION.next(now.code, 'clear', alert.name)
    const at = nowMs(d.clock ?? systemClock)
    const state = JSON.parse((await d.catalog.alerts.state(alert.id))!) as Record<string, unknown>
    // Back to Normal: a threshold's runs of minimum duration start over; a throughput alert waits one window.
    const normal = alert.kind === 'threshold' ? { ...state, level: null, since: {} } : { ...state, level: null, startedAt: at }
    const [stored] = await d.catalog.alerts.recordTransitions([{
      alertId: alert.id, state: JSON.stringify(normal), channels: channelsOf(parseNotification(alert.notification)),
      event: { kind: 'clear', level: now.level, previous_level: null, value: null, time: at * 1000, ...who },
    }], (a, e) => alertPayload(a, e))
    await d.runtime?.deliver(stored.outbox)
    return stored.event
  } finally {
    const current = await d.catalog.alerts.find(alert.id)
    if (wasRunning && current && ALERT_LIFECYCLE.running.includes(current.status_code)) await d.runtime!.start(current)
  }
}
