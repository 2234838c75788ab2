// The setpoint messages of the controls protocol (spec 3 "Controls messages"; issue 11 item 3),
// both directions on `CONTROLS/<group>/<handle>`. Pure: builds and reads JSON, no I/O. The
// generic CONTROLS validation (JSON object with a `type`, NEWSPT fields) is
// controls-message.ts; this file adds what an acknowledged write needs.
//
// Platform → edge, `NEWSPT` (spec 3's fields plus the write options):
//   {"type":"NEWSPT","swop_version":0.1,"datapoint":"ahu-1.sp","value":21.5,"priority":13,
//    "reference":"<uuid>","acked":true,"dryrun":false,"keep_out_of_service":false}
//   value null releases the priority (BACnet relinquish). With acked false the edge writes and
//   answers nothing (spec 2 rule 3).
// Edge → platform, `SPTACK` (one type, the outcome in `result`):
//   {"type":"SPTACK","swop_version":0.1,"reference":"<uuid>","datapoint":"ahu-1.sp","result":"accepted"}
//   {"type":"SPTACK",...,"result":"written","priorityArray":[16 × number|null],"present_value":21.5,
//    "effective":true}
//       priorityArray is the array BEFORE the write (index 0 = priority 1); present_value is the
//       value after it (for a dry run: what it would be); effective is false when a more urgent
//       non-null priority holds the present value (spec 2 rule 5)
//   {"type":"SPTACK",...,"result":"refused","reason":"unknown datapoint"}
import { MAX_PRIORITY, NEWSPT, type SetpointMessage } from './controls-message.ts'

export const SWOP_VERSION = 0.1
export const SPTACK = 'SPTACK'
export const PRIORITY_LEVELS = MAX_PRIORITY

export interface NewSetpoint extends SetpointMessage {
  reference: string
  acked: boolean
  dryrun: boolean
  keep_out_of_service: boolean
}

export type AckResult = 'accepted' | 'written' | 'refused'

export interface SetpointAck {
  type: 'SPTACK'
  swop_version: number
  reference: string
  datapoint: string
  result: AckResult
  priorityArray?: (number | null)[]
  present_value?: number | null
  effective?: boolean
  reason?: string
}

export interface SetpointWrite {
  datapoint: string; value: number | null; priority: number; reference: string; acked: boolean; dryrun: boolean; keep_out_of_service: boolean
}

/** The NEWSPT the platform publishes for one operation. */
export function newSetpoint(o: SetpointWrite): NewSetpoint {
  return {
    type: NEWSPT, swop_version: SWOP_VERSION, datapoint: o.datapoint, value: o.value, priority: o.priority,
    reference: o.reference, acked: o.acked, dryrun: o.dryrun, keep_out_of_service: o.keep_out_of_service,
  }
}

/** The write options of a (validated) NEWSPT; missing options mean a plain unacknowledged write. */
export function readNewSetpoint(m: SetpointMessage): NewSetpoint {
  return {
    ...m,
    reference: typeof m.reference === 'string' ? m.reference : '',
    acked: m.acked === true, dryrun: m.dryrun === true, keep_out_of_service: m.keep_out_of_service === true,
  }
}

export function setpointAck(a: Omit<SetpointAck, 'type' | 'swop_version'>): SetpointAck {
  return { type: SPTACK, swop_version: SWOP_VERSION, ...a }
}

const isValue = (v: unknown) => v === null || (typeof v === 'number' && Number.isFinite(v))

/** Reads an SPTACK from a parsed CONTROLS object: the ack, or why it is not one. */
export function readSetpointAck(m: Record<string, unknown>): { ok: true; ack: SetpointAck } | { ok: false; error: string } {
  if (m.type !== SPTACK) return { ok: false, error: `not an ${SPTACK} message` }
  if (typeof m.reference !== 'string' || m.reference.length === 0 || m.reference.length > 100) return { ok: false, error: 'SPTACK: reference must be a string of 1 to 100 characters' }
  if (typeof m.datapoint !== 'string' || m.datapoint.length === 0) return { ok: false, error: 'SPTACK: datapoint must be a non-empty string' }
  if (m.result !== 'accepted' && m.result !== 'written' && m.result !== 'refused') return { ok: false, error: 'SPTACK: result must be accepted, written or refused' }
  if (m.result === 'written') {
    const pa = m.priorityArray
    if (!Array.isArray(pa) || pa.length !== PRIORITY_LEVELS || !pa.every(isValue)) return { ok: false, error: `SPTACK: a written ack needs priorityArray, ${PRIORITY_LEVELS} numbers or nulls` }
    if ('present_value' in m && !isValue(m.present_value)) return { ok: false, error: 'SPTACK: present_value must be a number or null' }
  }
  if (m.result === 'refused' && (typeof m.reason !== 'string' || m.reason.length === 0)) return { ok: false, error: 'SPTACK: a refusal needs a reason' }
  return { ok: true, ack: m as unknown as SetpointAck }
}

/** Whether a CONTROLS message names one datapoint (so the broker checks it against the sender's reach). */
export function datapointOf(m: { type: string; [key: string]: unknown }): string | undefined {
  return (m.type === NEWSPT || m.type === SPTACK) && typeof m.datapoint === 'string' ? m.datapoint : undefined
}
