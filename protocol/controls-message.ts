// Controls messages on `CONTROLS/<group>/<handle>` (spec 3, "MQTT broker interface",
// "Controls messages"): JSON messages of the setpoint-writing protocol between platform and
// edge device. Pure validation; the broker routes valid messages and drops invalid ones.
//
// Every message is a JSON object with a non-empty string `type`.
// - `type: "NEWSPT"` (the setpoint message) is validated:
//     swop_version  finite number, required (0.1 in the spec's example)
//     datapoint     non-empty string (<= MAX_ID_LENGTH characters), required
//     value         finite number, or null; required. null is accepted beyond the spec's
//                   "number": it is how a setpoint is released ("reset value null", spec 2,
//                   and `value` "number or the string null" of POST /v2/datapoint/setpoint)
//     priority      integer 1..16, required: the BACnet priority array has 16 levels
//                   (1 highest; 8 manual operator; 13 the platform's default). The
//                   per-project maximum (spec 2: priorities above 8 refused unless unlocked)
//                   is a policy of the setpoint service, not of this codec.
//   Other keys (reference, dryrun, ...) are kept as they are.
// - Any other `type` is an opaque protocol message (its own specification describes it):
//   routed unchanged, not interpreted. The type is case-sensitive (`newspt` is opaque).
// Payloads larger than maxBytes (64 KiB by default) are refused.

import { MAX_ID_LENGTH } from './line-protocol.ts'

export const NEWSPT = 'NEWSPT'
export const MIN_PRIORITY = 1
export const MAX_PRIORITY = 16
export const MAX_CONTROLS_BYTES = 64 * 1024

export interface SetpointMessage {
  type: 'NEWSPT'
  swop_version: number
  datapoint: string
  value: number | null
  priority: number
  [key: string]: unknown
}

export interface OpaqueControlsMessage {
  type: string
  [key: string]: unknown
}

export type ControlsMessage = SetpointMessage | OpaqueControlsMessage

export type ControlsParseResult = { ok: true; message: ControlsMessage } | { ok: false; error: string }

/** Whether a parsed message is a (validated) setpoint message. */
export function isSetpointMessage(m: ControlsMessage): m is SetpointMessage {
  return m.type === NEWSPT
}

function setpointError(m: Record<string, unknown>): string | undefined {
  if (typeof m.swop_version !== 'number' || !Number.isFinite(m.swop_version)) return 'swop_version must be a number'
  if (typeof m.datapoint !== 'string' || m.datapoint.length === 0) return 'datapoint must be a non-empty string'
  if (m.datapoint.length > MAX_ID_LENGTH) return `datapoint longer than ${MAX_ID_LENGTH} characters`
  if (!('value' in m)) return 'value is missing'
  if (m.value !== null && (typeof m.value !== 'number' || !Number.isFinite(m.value))) return 'value must be a number or null'
  if (typeof m.priority !== 'number' || !Number.isInteger(m.priority) || m.priority < MIN_PRIORITY || m.priority > MAX_PRIORITY) {
    return `priority must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`
  }
  return undefined
}

/** Parses and validates a CONTROLS payload (see header). */
export function parseControlsMessage(payload: Buffer, opts: { maxBytes?: number } = {}): ControlsParseResult {
  const maxBytes = opts.maxBytes ?? MAX_CONTROLS_BYTES
  if (payload.length === 0) return { ok: false, error: 'empty payload' }
  if (payload.length > maxBytes) return { ok: false, error: `payload larger than ${maxBytes} bytes` }
  let text = payload.toString('utf8')
  if (text.charCodeAt(0) === 0xfeff) text = text.slice(1)
  let m: unknown
  try {
    m = JSON.parse(text)
  } catch (e) {
    return { ok: false, error: `invalid JSON: ${(e as Error).message}` }
  }
  if (typeof m !== 'object' || m === null || Array.isArray(m)) return { ok: false, error: 'controls message must be a JSON object' }
  const o = m as Record<string, unknown>
  if (typeof o.type !== 'string' || o.type.length === 0) return { ok: false, error: 'type must be a non-empty string' }
  if (o.type === NEWSPT) {
    const error = setpointError(o)
    if (error !== undefined) return { ok: false, error: `NEWSPT: ${error}` }
  }
  return { ok: true, message: o as ControlsMessage }
}
