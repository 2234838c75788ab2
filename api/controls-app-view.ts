// How controls apps and their logs look in answers (issue 31; spec 2 "Controls app": id,
// algorithm, component_in_project_id, name, status {code, message}; the rest is ours), the
// request shape of a schedule configuration for OpenAPI, and the one 400 of an invalid one.
import { Type, type TSchema } from '@sinclair/typebox'
import type { ControlsApp, ControlsAppLogEntry } from '../catalog/controls-apps.ts'
import { InvalidInputError } from '../core/errors.ts'
import type { FieldError, ScheduleConfig } from '../core/schedule/index.ts'
import { APP_LIFECYCLE } from '../engine/controls/lifecycle.ts'
import type { ConfiguredValue } from './controls-app-access.ts'

const AnyObject = Type.Unsafe<Record<string, unknown>>({ type: 'object', additionalProperties: true })
const Nullable = <T extends TSchema>(t: T) => Type.Union([t, Type.Null()])

export const AppStatus = Type.Object({
  code: Type.Integer(), message: Type.String(),
  reason: Type.String({ description: 'What the edge agent said with its state (a failure, a conflict); empty otherwise' }),
})

export const AppView = Type.Object({
  id: Type.String(), controls_app_id: Type.String(), project_id: Type.Integer(), component_in_project_id: Type.Integer(),
  algorithm: Type.String(), variation: Type.String(), name: Type.String(), description: Type.String(),
  configuration: AnyObject, pins: Type.Record(Type.String(), Type.String(), { description: 'Pin name → datapoint the app writes' }),
  status: AppStatus,
  deployment: Type.Object({
    desired: Type.String({ description: 'run, stop or delete: what the edge agent was told' }),
    revision: Type.Integer(), confirmed_revision: Type.Integer({ description: 'The revision the edge agent last confirmed (0: none yet)' }),
    pending: Type.Boolean({ description: 'The edge agent has not confirmed the current revision yet' }),
  }),
  created_by: Type.String(), created_at: Type.String(), updated_at: Type.String(),
})

export const LogItem = Type.Object({
  type: Type.String({ description: 'status_change or deployment (the platform), or what the edge reported: write, reset, state, conflict, error' }),
  ts: Type.String({ description: 'Unix time in nanoseconds' }), time: Type.String(), message: Type.String(),
  status_code: Nullable(Type.Integer()), status_text: Type.Union([Type.String(), Type.Null()]),
  seq: Nullable(Type.Integer()), datapoint: Type.Union([Type.String(), Type.Null()]), value: Nullable(Type.Number()), priority: Nullable(Type.Integer()),
})

export const Meta = Type.Object({ current_page: Type.Integer(), items_per_page: Type.Integer(), total_items: Type.Integer(), total_pages: Type.Integer() })

const field = (description: string) => Type.Unsafe<unknown>({ description })
/** The body of POST /v2/controls/app (algorithm schedule), for OpenAPI; core/schedule validates it. */
export const ScheduleConfigBody = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  description: 'The configuration of a schedule app. Validated field by field: a 400 names the field (configuration.week[2].time) and the reason.',
  properties: {
    priority: field('1..16, default 13; not more urgent than the project allows'),
    alive_timeout_s: field('60..604800, default 900: after a lost connection this long the edge writes the reset values'),
    auto_recovery: field('default true: the edge restarts the app after reconnection'),
    reset_values: field('per pin a number or null (release, the default)'),
    week: field('switching times, at least one: [{days: [mon..sun], time: "HH:mm", values: {pin: number|null}}]'),
    holiday: field('the program of a holiday, replacing that day\'s entries: [{time: "HH:mm", values: {...}}]'),
  },
  example: {
    priority: 13, reset_values: { flow_temp_setpoint: null },
    week: [{ days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '06:00', values: { flow_temp_setpoint: 21 } }, { days: ['mon', 'tue', 'wed', 'thu', 'fri'], time: '22:00', values: { flow_temp_setpoint: 16 } }],
    holiday: [{ time: '00:00', values: { flow_temp_setpoint: 16 } }],
  },
})

const iso = (ms: number) => new Date(ms).toISOString()

export function appStatus(app: ControlsApp) {
  return { code: app.status_code, message: APP_LIFECYCLE.text(app.status_code), reason: app.status_reason }
}

export function appView(app: ControlsApp) {
  return {
    id: app.id, controls_app_id: app.id, project_id: app.project_id, component_in_project_id: app.componentinproject_id,
    algorithm: app.algorithm, variation: app.variation, name: app.name, description: app.description,
    configuration: app.configuration, pins: app.pins, status: appStatus(app),
    deployment: { desired: app.desired, revision: app.revision, confirmed_revision: app.confirmed_revision, pending: app.deployed && app.revision > app.confirmed_revision },
    created_by: app.created_by, created_at: iso(app.created_at), updated_at: iso(app.updated_at),
  }
}

export function logItem(e: ControlsAppLogEntry) {
  return {
    type: e.kind, ts: (BigInt(e.time_us) * 1000n).toString(), time: iso(Math.floor(e.time_us / 1000)), message: e.message,
    status_code: e.status_code, status_text: e.status_code === null ? null : APP_LIFECYCLE.text(e.status_code),
    seq: e.seq, datapoint: e.datapoint, value: e.value, priority: e.priority,
  }
}

/** The 400 of an invalid configuration or calendar: every problem (up to 10) as `field: reason`. */
export function fieldsInvalid(what: string, prefix: string, errors: readonly FieldError[]): InvalidInputError {
  const named = errors.slice(0, 10).map((e) => `${e.field === prefix || e.field.startsWith(`${prefix}[`) || e.field.startsWith(`${prefix}.`) ? e.field : `${prefix}.${e.field}`}: ${e.reason}`)
  const more = errors.length > 10 ? ` (and ${errors.length - 10} more)` : ''
  return new InvalidInputError(`Invalid ${what}: ${named.join('; ')}${more}`, 'CONTROLS_APP_CONFIG_INVALID')
}

/** Every value the configuration writes, with its JSON path. */
export function configuredValues(c: ScheduleConfig): ConfiguredValue[] {
  const out: ConfiguredValue[] = []
  const add = (path: string, values: Record<string, number | null>) => {
    for (const [pin, value] of Object.entries(values)) out.push({ field: `configuration.${path}.${pin}`, pin, value })
  }
  c.week.forEach((e, i) => add(`week[${i}].values`, e.values))
  c.holiday.forEach((e, i) => add(`holiday[${i}].values`, e.values))
  add('reset_values', c.reset_values)
  return out
}
