// Alerts (issue 13, spec 3 "Further endpoints"): definitions keyed by project and datapoint,
// the evaluation checkpoint of each alert, its raise/reset events, and the durable outbox of
// notifications. The lifecycle codes are the engine's table (engine/alerts/lifecycle.ts);
// what a checkpoint or a payload holds is the engine's business: this module stores text.
// Every method is async (the catalog is becoming a Promise-returning port).
import type { AlertEventKind } from '../core/alert-acknowledgement.ts'
export { endsAcknowledgement, notifiesWhileAcknowledged } from '../core/alert-acknowledgement.ts'

export type AlertKind = 'threshold' | 'throughput'
export type AlertLevel = 'info' | 'warn' | 'crit'

export interface AlertRecord {
  id: number
  project_id: number
  /** The catalog id of the watched datapoint (its series). */
  datapoint: number
  dataPointID: string
  kind: AlertKind
  name: string
  description: string
  status_code: number
  config: Record<string, unknown>
  notification: Record<string, unknown>
  attributes: Record<string, string>
  /** Milliseconds since the epoch. */
  created_at: number
}

export interface NewAlert {
  datapoint: number
  kind: AlertKind
  name: string
  description: string
  status_code: number
  config: object
  notification: object
  attributes: Record<string, string>
}


/**
 * raise / reset: the evaluation moved (engine/alerts); ack / clear: a person acknowledged or
 * cleared the raised alert (issue 34 item 3), with who (`actor`, the user's e-mail) and a comment.
 */
export type { AlertEventKind }

export interface AlertEvent {
  id: number
  alert_id: number
  kind: AlertEventKind
  level: AlertLevel | null
  previous_level: AlertLevel | null
  value: number | null
  /** µs since the epoch: the time of the observation (or timer) that caused it. */
  time: number
  recorded_at: number
  /** Who acknowledged or cleared it (ack, clear); null for raises and resets. */
  actor?: string | null
  comment?: string | null
}

export type NewEvent = Omit<AlertEvent, 'id' | 'alert_id' | 'recorded_at'>

/** The acknowledgement of an alert's current raise: until it resets or is cleared. */
export interface AlertAck { alert_id: number; event_id: number; actor: string; comment: string | null; level: AlertLevel | null; at: number }

// The rule of acknowledgement (an acknowledged alert's raises are not notified until a reset
// or a clear) is core/alert-acknowledgement.ts, applied by both adapters in recordTransitions.

/** One raise or reset: its event, the checkpoint after it, and the channels to notify. */
export interface Transition {
  alertId: number
  event: NewEvent
  state: string
  channels: string[]
}

export interface OutboxEntry { id: number; alert_id: number; channel: string; payload: string; attempts: number; created_at: number }

export interface AlertRow {
  id: number; project_id: number; datapoint: number; datapoint_id: string; kind: AlertKind; name: string; description: string
  status_code: number; config: string; notification: string; attributes: string; created_at: number
}

export const ALERT_SELECT = 'SELECT a.*, d.datapoint_id FROM alerts a JOIN datapoints d ON d.id = a.datapoint'

export const toAlert = (r: AlertRow): AlertRecord => ({
  id: r.id, project_id: r.project_id, datapoint: r.datapoint, dataPointID: r.datapoint_id, kind: r.kind, name: r.name,
  description: r.description, status_code: r.status_code, config: JSON.parse(r.config), notification: JSON.parse(r.notification),
  attributes: JSON.parse(r.attributes), created_at: r.created_at,
})
