// The controls-app messages of the controls protocol (issue 31 item 3; contract-31), beside
// NEWSPT/SPTACK on `CONTROLS/<group>/<handle>`. Pure: builders and strict readers of parsed
// CONTROLS objects (controls-message.ts parses the JSON), each reader answering the message or
// why it is not one.
//
// Platform → edge, `APPDEF` (the whole definition; the edge keeps the highest revision):
//   {"type":"APPDEF","swop_version":0.1,"app_id":"<id>","revision":3,"desired":"run"|"stop"|"delete",
//    "algorithm":"schedule","variation"?:"...","zone":"Europe/Berlin","pins":{"<pin>":"<datapoint>"},
//    "configuration":{ScheduleConfig},"holidays":[HolidayRule]}
//   a delete's configuration and holidays are not read (they may be left out).
// Edge → platform:
//   `APPSTATE` {"type":"APPSTATE","swop_version":0.1,"app_id","revision","state":"Running"|"Stopped"|
//              "Failed"|"Deleted","reason"?}: the answer to an APPDEF, and on the edge's own changes
//   `APPLOG`   {"type":"APPLOG","swop_version":0.1,"app_id","seq" (per app from 1, contiguous, across
//              agent restarts),"time" (ISO UTC),"kind":"write"|"reset"|"state"|"conflict"|"error",
//              "datapoint"?,"value"?,"priority"?,"message"}: sent in seq order; stored once per (app_id, seq)
//   `APPSYNC`  {"type":"APPSYNC","swop_version":0.1,"apps":[{"app_id","revision"}]}: after every
//              (re)connect; the platform answers with an APPDEF for each app whose revision differs
import { scheduleConfig, validateScheduleConfig, type FieldError, type ScheduleConfig } from '../core/schedule/config.ts'
import { validateHolidays, type HolidayRule } from '../core/schedule/holidays.ts'
import { isValidZone } from '../core/clock/zone.ts'
import { MAX_PRIORITY, MIN_PRIORITY } from './controls-message.ts'
import { MAX_ID_LENGTH } from './line-protocol.ts'
import { SWOP_VERSION } from './setpoint-messages.ts'

export const APPDEF = 'APPDEF'
export const APPSTATE = 'APPSTATE'
export const APPLOG = 'APPLOG'
export const APPSYNC = 'APPSYNC'
export const APP_MESSAGE_TYPES = [APPDEF, APPSTATE, APPLOG, APPSYNC] as const

export type Desired = 'run' | 'stop' | 'delete'
export type AppState = 'Running' | 'Stopped' | 'Failed' | 'Deleted'
export type AppLogKind = 'write' | 'reset' | 'state' | 'conflict' | 'error'
export const APP_STATES: readonly AppState[] = ['Running', 'Stopped', 'Failed', 'Deleted']
export const APP_LOG_KINDS: readonly AppLogKind[] = ['write', 'reset', 'state', 'conflict', 'error']
export const ALGORITHMS = ['schedule'] as const
const MAX_APP_ID = 100
const MAX_TEXT = 2000

export interface AppDef {
  type: 'APPDEF'
  swop_version: number
  app_id: string
  revision: number
  desired: Desired
  algorithm: 'schedule'
  variation?: string
  zone: string
  /** pin name -> datapoint id (of the edge's driver) */
  pins: Record<string, string>
  configuration: ScheduleConfig
  holidays: HolidayRule[]
}

export interface AppStateMessage { type: 'APPSTATE'; swop_version: number; app_id: string; revision: number; state: AppState; reason?: string }

export interface AppLog {
  type: 'APPLOG'
  swop_version: number
  app_id: string
  seq: number
  time: string
  kind: AppLogKind
  datapoint?: string
  value?: number | null
  priority?: number
  message: string
}

export interface AppSync { type: 'APPSYNC'; swop_version: number; apps: { app_id: string; revision: number }[] }

export type Read<T> = { ok: true; message: T } | { ok: false; error: string }

/** Whether a CONTROLS message is one of the app messages (so the broker applies their rules). */
export function isAppMessage(m: { type: string }): boolean {
  return (APP_MESSAGE_TYPES as readonly string[]).includes(m.type)
}

export function appDef(d: Omit<AppDef, 'type' | 'swop_version'>): AppDef {
  return { type: APPDEF, swop_version: SWOP_VERSION, ...d }
}
export function appState(s: Omit<AppStateMessage, 'type' | 'swop_version'>): AppStateMessage {
  return { type: APPSTATE, swop_version: SWOP_VERSION, ...s }
}
export function appLog(l: Omit<AppLog, 'type' | 'swop_version'>): AppLog {
  return { type: APPLOG, swop_version: SWOP_VERSION, ...l }
}
export function appSync(apps: { app_id: string; revision: number }[]): AppSync {
  return { type: APPSYNC, swop_version: SWOP_VERSION, apps }
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v)
const isAppId = (v: unknown): v is string => typeof v === 'string' && v.length > 0 && v.length <= MAX_APP_ID
const isRevision = (v: unknown): v is number => typeof v === 'number' && Number.isSafeInteger(v) && v >= 0
const text = (v: unknown, max = MAX_TEXT) => typeof v === 'string' && v.length <= max
/** The first problem as one line: `configuration.week[2].time must be ...`. */
const first = (prefix: string, errors: FieldError[]) => {
  const f = errors[0].field
  return `${f === prefix || f.startsWith(prefix + '[') ? f : `${prefix}.${f}`} ${errors[0].reason}`
}

function head(m: Record<string, unknown>, type: string): string | undefined {
  if (m.type !== type) return `not an ${type} message`
  if (typeof m.swop_version !== 'number' || !Number.isFinite(m.swop_version)) return `${type}: swop_version must be a number`
  return undefined
}

/** Reads an APPDEF; the configuration gets its defaults filled in. */
export function readAppDef(m: Record<string, unknown>): Read<AppDef> {
  const h = head(m, APPDEF); if (h) return { ok: false, error: h }
  const fail = (error: string): Read<AppDef> => ({ ok: false, error: `APPDEF: ${error}` })
  if (!isAppId(m.app_id)) return fail(`app_id must be a string of 1 to ${MAX_APP_ID} characters`)
  if (!isRevision(m.revision)) return fail('revision must be a non-negative integer')
  if (m.desired !== 'run' && m.desired !== 'stop' && m.desired !== 'delete') return fail('desired must be run, stop or delete')
  if (!(ALGORITHMS as readonly string[]).includes(m.algorithm as string)) return fail(`algorithm must be one of ${ALGORITHMS.join(', ')}`)
  if (m.variation !== undefined && !text(m.variation, 200)) return fail('variation must be a string')
  if (typeof m.zone !== 'string' || !isValidZone(m.zone)) return fail('zone must be an IANA time zone')
  if (!isObject(m.pins)) return fail('pins must be an object of pin name to datapoint id')
  for (const [pin, dp] of Object.entries(m.pins)) {
    if (typeof dp !== 'string' || dp.length === 0 || dp.length > MAX_ID_LENGTH) return fail(`pins.${pin} must be a datapoint id`)
  }
  // A delete needs no configuration: whatever it carries is not read.
  if (m.desired === 'delete') {
    return { ok: true, message: { ...(m as unknown as AppDef), pins: { ...m.pins } as Record<string, string>, configuration: scheduleConfig({ week: [] }), holidays: [] } }
  }
  const ce = validateScheduleConfig(m.configuration, Object.keys(m.pins))
  if (ce.length > 0) return fail(first('configuration', ce))
  const he = validateHolidays(m.holidays)
  if (he.length > 0) return fail(first('holidays', he))
  const def: AppDef = {
    type: APPDEF, swop_version: m.swop_version as number, app_id: m.app_id, revision: m.revision, desired: m.desired, algorithm: 'schedule',
    zone: m.zone, pins: { ...m.pins } as Record<string, string>, configuration: scheduleConfig(m.configuration as Record<string, unknown>),
    holidays: (m.holidays as HolidayRule[]).map((r) => ({ ...r })),
  }
  if (m.variation !== undefined) def.variation = m.variation as string
  return { ok: true, message: def }
}

export function readAppState(m: Record<string, unknown>): Read<AppStateMessage> {
  const h = head(m, APPSTATE); if (h) return { ok: false, error: h }
  if (!isAppId(m.app_id)) return { ok: false, error: `APPSTATE: app_id must be a string of 1 to ${MAX_APP_ID} characters` }
  if (!isRevision(m.revision)) return { ok: false, error: 'APPSTATE: revision must be a non-negative integer' }
  if (!(APP_STATES as readonly unknown[]).includes(m.state)) return { ok: false, error: `APPSTATE: state must be one of ${APP_STATES.join(', ')}` }
  if (m.reason !== undefined && !text(m.reason)) return { ok: false, error: `APPSTATE: reason must be a string of at most ${MAX_TEXT} characters` }
  return { ok: true, message: m as unknown as AppStateMessage }
}

export function readAppLog(m: Record<string, unknown>): Read<AppLog> {
  const h = head(m, APPLOG); if (h) return { ok: false, error: h }
  const fail = (error: string): Read<AppLog> => ({ ok: false, error: `APPLOG: ${error}` })
  if (!isAppId(m.app_id)) return fail(`app_id must be a string of 1 to ${MAX_APP_ID} characters`)
  if (typeof m.seq !== 'number' || !Number.isSafeInteger(m.seq) || m.seq < 1) return fail('seq must be an integer from 1')
  if (typeof m.time !== 'string' || !/^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z$/.test(m.time) || Number.isNaN(Date.parse(m.time))) return fail('time must be an ISO UTC time (…Z)')
  if (!(APP_LOG_KINDS as readonly unknown[]).includes(m.kind)) return fail(`kind must be one of ${APP_LOG_KINDS.join(', ')}`)
  if (m.datapoint !== undefined && (typeof m.datapoint !== 'string' || m.datapoint.length === 0 || m.datapoint.length > MAX_ID_LENGTH)) return fail('datapoint must be a datapoint id')
  if (m.value !== undefined && m.value !== null && (typeof m.value !== 'number' || !Number.isFinite(m.value))) return fail('value must be a number or null')
  if (m.priority !== undefined && (typeof m.priority !== 'number' || !Number.isInteger(m.priority) || m.priority < MIN_PRIORITY || m.priority > MAX_PRIORITY)) {
    return fail(`priority must be an integer from ${MIN_PRIORITY} to ${MAX_PRIORITY}`)
  }
  if (!text(m.message)) return fail(`message must be a string of at most ${MAX_TEXT} characters`)
  return { ok: true, message: m as unknown as AppLog }
}

export function readAppSync(m: Record<string, unknown>): Read<AppSync> {
  const h = head(m, APPSYNC); if (h) return { ok: false, error: h }
  if (!Array.isArray(m.apps)) return { ok: false, error: 'APPSYNC: apps must be an array of {app_id, revision}' }
  for (const [i, a] of m.apps.entries()) {
    if (!isObject(a) || !isAppId(a.app_id) || !isRevision(a.revision)) return { ok: false, error: `APPSYNC: apps[${i}] must be {app_id, revision}` }
  }
  return { ok: true, message: m as unknown as AppSync }
}
