// The live subscription protocol (issue 33; endpoint 190, `GET /v2/live`, a WebSocket). Pure:
// reads the client's messages and builds the server's, no socket. One JSON object per text
// frame; times are RFC 3339 (UTC) as in every HTTP answer, values numbers.
//
// Authentication is on the upgrade request, as for HTTP: `Authorization: Basic|Bearer ...`, or,
// for browsers (which cannot set headers on a WebSocket), the sub-protocols
// `lintel.v1, bearer.<token>` (the server selects `lintel.v1`). Failure: HTTP 401 before the
// upgrade. Each subscribe needs endpoint 190 in its project; the datapoints delivered are those
// the TagAuths of the caller's roles granting 190 let it read, re-checked whenever roles or a
// datapoint's tags change.
//
// Client → server
//   {"type":"subscribe","project_id":1,"datapoints":["ahu1/temp"],"alerts":true,
//    "since":"2024-03-31T00:00:00Z","ref":"c1"}
//       datapoints: identifiers, or "all" (every readable datapoint of the project, also ones
//       created later); alerts: also the raises, resets, acknowledgements and clears of the project's alerts whose
//       datapoint the caller reads (default false). since (optional, resume after a reconnect):
//       one time for all, or {"<dataPointID>": time}: the server first sends what the store holds
//       after that time (`"fill":true`), then goes live, without a hole or a duplicate. ref:
//       any string, echoed on the answer. A second subscribe of a project adds to the first.
//   {"type":"unsubscribe","project_id":1,"datapoints":["ahu1/temp"],"ref":"c2"}
//       datapoints omitted: the whole project (its alerts too); "alerts":false alone stops alerts.
//
// Server → client
//   {"type":"subscribed","ref":"c1","project_id":1,"datapoints":["ahu1/temp"],"alerts":true}
//       datapoints: those delivered (unknown or unreadable ones are left out, alike), or "all".
//   {"type":"observations","project_id":1,"dataPointID":"ahu1/temp",
//    "data":[{"time":"2024-03-31T00:00:00Z","value":18.5}],"fill":true}
//       new observations of one datapoint once durable, in the order they were stored (late data
//       keeps its time, so `time` need not grow); `fill` marks the resume from the store.
//   {"type":"live","project_id":1}            the resume's fill is done; what follows is live
//   {"type":"alert","project_id":1,"alert_id":7,"dataPointID":"ahu1/temp","kind":"raise",
//    "level":"crit","previous_level":null,"value":31.5,"time":"2024-03-31T00:10:00Z"}
//   {"type":"revoked","project_id":1,"dataPointID":"ahu1/temp"}
//       the caller may no longer read it (roles or tags changed): nothing more of it is sent
//   {"type":"unsubscribed","ref":"c2","project_id":1,"datapoints":["ahu1/temp"]}
//   {"type":"error","ref":"c1","code":"ENDPOINT_NOT_GRANTED","error":"Unauthorized access to endpoint: 190 - GET /v2/live"}
//       a refused message: the connection stays open (codes of docs/errors.md)
//
// Close codes (LIVE_CLOSE): 4401 the login ended (token revoked or expired, password changed,
// user deleted); 4408 the send queue overflowed (a slow reader: reconnect with `since`); 4409
// the live source was interrupted (scaled mode: reconnect with `since`); 4400 a binary frame
// (a text frame that is not a valid message gets an error frame); 1009 a frame larger than 64 KiB; 1001 the server stops; 1013 this
// process serves no live subscriptions (scaled mode without LINTEL_REDIS_URL).
import { formatTimestamp, parseTimestamp } from '../core/timestamp.ts'

export const LIVE_SUBPROTOCOL = 'lintel.v1'
/** Browsers send their token as the sub-protocol `bearer.<token>`. */
export const BEARER_SUBPROTOCOL_PREFIX = 'bearer.'
/** Largest client frame accepted, bytes. */
export const MAX_CLIENT_FRAME_BYTES = 64 * 1024
/** Identifiers one subscribe may name. */
export const MAX_DATAPOINTS_PER_MESSAGE = 10_000

export const LIVE_CLOSE = {
  /** The login ended: token revoked or expired, password or email changed, user deleted. */
  LOGIN_ENDED: 4401,
  /** The socket's send queue overflowed: the client reads too slowly. */
  SEND_QUEUE_OVERFLOW: 4408,
  /** The source of live observations was interrupted (scaled mode); resume with `since`. */
  SOURCE_INTERRUPTED: 4409,
  /** A binary frame (text frames that are not JSON get an error frame; too large ones 1009). */
  BAD_FRAME: 4400,
  /** The server stops. */
  GOING_AWAY: 1001,
  /** The server could not open the session (the catalog failed); it logged why. */
  INTERNAL: 1011,
  /** This process serves no live subscriptions (scaled mode without LINTEL_REDIS_URL). */
  UNAVAILABLE: 1013,
} as const

export interface SubscribeMessage {
  type: 'subscribe'
  project_id: number
  datapoints: string[] | 'all'
  alerts: boolean
  /** µs since the epoch: one for all datapoints, or per identifier. */
  since?: number | Map<string, number>
  ref?: string
}

export interface UnsubscribeMessage {
  type: 'unsubscribe'
  project_id: number
  /** Omitted: the whole project. */
  datapoints?: string[]
  alerts?: boolean
  ref?: string
}

export type ClientMessage = SubscribeMessage | UnsubscribeMessage

/** A refused message: its text names the field and why; `ref` if one could be read. */
export class LiveMessageError extends Error {
  constructor (message: string, readonly ref?: string) { super(message) }
}

/** Reads one client text frame, or throws LiveMessageError naming the field. */
export function parseClientMessage(text: string): ClientMessage {
  let raw: unknown
  try { raw = JSON.parse(text) } catch { throw new LiveMessageError('The message is not JSON') }
  if (typeof raw !== 'object' || raw === null || Array.isArray(raw)) throw new LiveMessageError('The message must be a JSON object')
  const m = raw as Record<string, unknown>
  const ref = typeof m.ref === 'string' ? m.ref.slice(0, 200) : undefined
  const fail = (text: string): never => { throw new LiveMessageError(text, ref) }
  if (m.ref !== undefined && typeof m.ref !== 'string') fail('ref must be a string')
  const allowed = m.type === 'subscribe' ? SUBSCRIBE_FIELDS : m.type === 'unsubscribe' ? UNSUBSCRIBE_FIELDS : fail(`type must be 'subscribe' or 'unsubscribe', got ${JSON.stringify(m.type)}`)
  for (const k of Object.keys(m)) if (!allowed.has(k)) fail(`Unknown field '${k}' in a ${String(m.type)} message`)
  const projectId = m.project_id
  if (typeof projectId !== 'number' || !Number.isSafeInteger(projectId) || projectId < 1) fail('project_id must be a positive integer')
  if (m.alerts !== undefined && typeof m.alerts !== 'boolean') fail('alerts must be true or false')
  if (m.type === 'unsubscribe') {
    const datapoints = m.datapoints === undefined ? undefined : identifiers(m.datapoints, fail)
    return { type: 'unsubscribe', project_id: projectId as number, ...(datapoints ? { datapoints } : {}), ...(m.alerts === undefined ? {} : { alerts: m.alerts as boolean }), ...(ref ? { ref } : {}) }
  }
  if (m.datapoints === undefined) fail("datapoints is required: a list of identifiers or \"all\"")
  const datapoints = m.datapoints === 'all' ? 'all' as const : identifiers(m.datapoints, fail)
  const since = m.since === undefined ? undefined : sinceOf(m.since, fail)
  return { type: 'subscribe', project_id: projectId as number, datapoints, alerts: m.alerts === true, ...(since === undefined ? {} : { since }), ...(ref ? { ref } : {}) }
}

const SUBSCRIBE_FIELDS = new Set(['type', 'project_id', 'datapoints', 'alerts', 'since', 'ref'])
const UNSUBSCRIBE_FIELDS = new Set(['type', 'project_id', 'datapoints', 'alerts', 'ref'])

function identifiers(v: unknown, fail: (t: string) => never): string[] {
  if (!Array.isArray(v)) return fail('datapoints must be a list of identifiers or "all"')
  if (v.length > MAX_DATAPOINTS_PER_MESSAGE) fail(`datapoints lists at most ${MAX_DATAPOINTS_PER_MESSAGE} identifiers, got ${v.length}`)
  for (const [i, id] of v.entries()) if (typeof id !== 'string' || id === '') fail(`datapoints[${i}] must be a non-empty string`)
  return [...new Set(v as string[])]
}

function timeOf(v: unknown, field: string, fail: (t: string) => never): number {
  const t = typeof v === 'string' ? parseTimestamp(v) : undefined
  return t ?? fail(`${field} must be an RFC 3339 timestamp, got ${JSON.stringify(v)}`)
}

function sinceOf(v: unknown, fail: (t: string) => never): number | Map<string, number> {
  if (typeof v === 'string') return timeOf(v, 'since', fail)
  if (typeof v !== 'object' || v === null || Array.isArray(v)) return fail('since must be a timestamp or an object of timestamps keyed by dataPointID')
  return new Map(Object.entries(v).map(([id, t]) => [id, timeOf(t, `since['${id}']`, fail)]))
}

// ---- server → client (each returns the frame's text) ----

export interface LivePoint { time: number; value: number }

/** The text of one observations frame; built once per datapoint batch and shared by its subscribers. */
export function observationsFrame(projectId: number, dataPointID: string, points: readonly LivePoint[], fill = false): string {
  let data = ''
  for (const p of points) data += `${data === '' ? '' : ','}{"time":"${formatTimestamp(p.time)}","value":${JSON.stringify(p.value)}}`
  return `{"type":"observations","project_id":${projectId},"dataPointID":${JSON.stringify(dataPointID)},"data":[${data}]${fill ? ',"fill":true' : ''}}`
}

export interface LiveAlertEvent {
  alert_id: number; dataPointID: string; kind: 'raise' | 'reset' | 'ack' | 'clear'; level: string | null
  previous_level: string | null; value: number | null; time: number
  /** Who acknowledged or cleared, and their comment (kinds ack and clear, issue 34). */
  actor?: string | null; comment?: string | null
}

export function alertFrame(projectId: number, e: LiveAlertEvent): string {
  return JSON.stringify({ type: 'alert', project_id: projectId, alert_id: e.alert_id, dataPointID: e.dataPointID, kind: e.kind, level: e.level, previous_level: e.previous_level, value: e.value, time: formatTimestamp(e.time), ...(e.actor ? { actor: e.actor, comment: e.comment ?? null } : {}) })
}

export function subscribedFrame(projectId: number, datapoints: string[] | 'all', alerts: boolean, ref?: string): string {
  return JSON.stringify({ type: 'subscribed', ...(ref ? { ref } : {}), project_id: projectId, datapoints, alerts })
}

export function unsubscribedFrame(projectId: number, datapoints: string[] | 'all', ref?: string): string {
  return JSON.stringify({ type: 'unsubscribed', ...(ref ? { ref } : {}), project_id: projectId, datapoints })
}

export const liveFrame = (projectId: number): string => JSON.stringify({ type: 'live', project_id: projectId })

export const revokedFrame = (projectId: number, dataPointID: string): string => JSON.stringify({ type: 'revoked', project_id: projectId, dataPointID })

export function errorFrame(code: string, error: string, ref?: string): string {
  return JSON.stringify({ type: 'error', ...(ref ? { ref } : {}), code, error })
}

/** The server's frames as a client reads them (the console, tests, `npx lintel live`). */
export type ServerMessage =
  | { type: 'subscribed'; ref?: string; project_id: number; datapoints: string[] | 'all'; alerts: boolean }
  | { type: 'unsubscribed'; ref?: string; project_id: number; datapoints: string[] | 'all' }
  | { type: 'observations'; project_id: number; dataPointID: string; data: { time: string; value: number }[]; fill?: true }
  | { type: 'live'; project_id: number }
  | { type: 'alert'; project_id: number; alert_id: number; dataPointID: string; kind: 'raise' | 'reset' | 'ack' | 'clear'; level: string | null; previous_level: string | null; value: number | null; time: string; actor?: string; comment?: string | null }
  | { type: 'revoked'; project_id: number; dataPointID: string }
  | { type: 'error'; ref?: string; code: string; error: string }
