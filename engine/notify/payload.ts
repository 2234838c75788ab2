// The documented notification payload (README "Alerts"; issue 13: "Document the payload").
// One JSON object per raise, reset, acknowledgement or clear; the same text is signed and sent:
//   { "type": "alert.raise" | "alert.reset" | "alert.ack" | "alert.clear",
//     "alert": { "id", "name", "kind", "project_id", "dataPointID", "attributes" },
//     "event": { "id", "kind", "level", "previous_level", "value", "time" },
//              with "by" and "comment" for ack and clear (who acknowledged or cleared it),
//     "coalesced": n }   only on the notification that ends an alert's rate window
//                        (engine/alerts/debounce.ts): the events it stands for, itself included
// `event.id` is unique and stable: delivery is at least once, so receivers drop repeats by it.
import { createHmac } from 'node:crypto'

export interface PayloadAlert { id: number; name: string; kind: string; project_id: number; dataPointID: string; attributes: Record<string, string> }
export interface PayloadEvent { id: number; kind: 'raise' | 'reset' | 'ack' | 'clear'; level: string | null; previous_level: string | null; value: number | null; time: number; actor?: string | null; comment?: string | null }

/** RFC 3339 UTC with up to microseconds, from µs since the epoch (DESIGN.md "Conventions"). */
export function rfc3339(us: number): string {
  const ms = Math.floor(us / 1000)
  const iso = new Date(ms).toISOString() // ...sss Z
  const micro = Math.floor(us - ms * 1000)
  const text = micro === 0 ? iso.replace('.000Z', 'Z') : iso.replace('Z', String(micro).padStart(3, '0') + 'Z')
  return text
}

export function alertPayload(alert: PayloadAlert, event: PayloadEvent, coalesced?: number): string {
  return JSON.stringify({
    type: `alert.${event.kind}`,
    alert: { id: alert.id, name: alert.name, kind: alert.kind, project_id: alert.project_id, dataPointID: alert.dataPointID, attributes: alert.attributes },
    event: {
      id: event.id, kind: event.kind, level: event.level, previous_level: event.previous_level, value: event.value, time: rfc3339(event.time),
      ...(event.kind === 'ack' || event.kind === 'clear' ? { by: event.actor ?? null, comment: event.comment ?? null } : {}),
    },
    ...(coalesced === undefined ? {} : { coalesced }),
  })
}

/**
 * The signature header: `t=<unix seconds>,v1=<hex HMAC-SHA256(secret, "<t>.<body>")>`. The
 * timestamp is signed with the body, so a receiver can refuse replays older than it accepts.
 */
export function signature(secret: string, body: string, unixSeconds: number): string {
  return `t=${unixSeconds},v1=${createHmac('sha256', secret).update(`${unixSeconds}.${body}`).digest('hex')}`
}
