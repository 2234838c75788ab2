// Alerts (spec 3 "Further endpoints named by release notes"; issue 13 item 5), endpoints
// 100-108. Payload shapes are "not shown" in the spec: designed here, documented in the README
// and in OpenAPI through these schemas. States and moves are the engine's lifecycle table
// (engine/alerts/lifecycle.ts); the rules of thresholds are engine/alerts/config.ts.
//
// Access (issue 13 item 5): every endpoint needs its grant AND read access, through that
// endpoint, to the alert's datapoint (TagAuth read). An alert whose datapoint the caller
// cannot read does not exist for the caller (404), like one of another company. Routes under
// /v2/alert take the project as the query parameter project_id; an alert of another project
// is not found there. The webhook secret is write-only: answers show `secret_set`.
import type { WebhookAddressPolicy } from '../../engine/notify/address-policy.ts'
import { literalRefusal } from '../../engine/notify/webhook.ts'
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AlertEvent, AlertKind, AlertRecord } from '../../catalog/alerts.ts'
import type { Actor } from '../../engine/alerts/people.ts'
import { conditionNow } from '../../engine/alerts/people.ts'
import { ConflictError, InvalidInputError, NotFoundError, TooLargeError } from '../../core/errors.ts'
import { LEVELS, parseNotification, parseThresholds, parseThroughput } from '../../engine/alerts/config.ts'
import { ALERT_CONDITION, ALERT_LIFECYCLE } from '../../engine/alerts/lifecycle.ts'
import { rfc3339 } from '../../engine/notify/payload.ts'
import { alertNotificationCallbacks } from './alert-notification-doc.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, done } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id, MAX_PAGE, ProjectParams } from '../schemas.ts'

/** What the routes need of the alert runtime (engine/alerts/runtime.ts). */
export interface AlertRunner {
  start(alert: AlertRecord): Promise<void>
  stop(id: number): Promise<void>
  disable(alert: AlertRecord): Promise<void>
  acknowledge(alert: AlertRecord, who: Actor): Promise<AlertEvent>
  clear(alert: AlertRecord, who: Actor): Promise<AlertEvent>
}

const LevelT = Type.Union(LEVELS.map((l) => Type.Literal(l)))
const LevelThreshold = Type.Object({
  upper: Type.Optional(Type.Number({ description: 'Raised when value >= upper' })),
  lower: Type.Optional(Type.Number({ description: 'Raised when value <= lower' })),
  upper_reset: Type.Optional(Type.Number({ description: 'Hysteresis (<= upper): a raised level holds while value >= upper_reset; default upper' })),
  lower_reset: Type.Optional(Type.Number({ description: 'Hysteresis (>= lower): a raised level holds while value <= lower_reset; default lower' })),
  duration_seconds: Type.Optional(Type.Number({ minimum: 0, description: 'The raise condition must hold this long without interruption (event time); resets are immediate' })),
}, { additionalProperties: false, description: 'One level: an upper and/or a lower threshold' })
const Thresholds = Type.Object({ info: Type.Optional(LevelThreshold), warn: Type.Optional(LevelThreshold), crit: Type.Optional(LevelThreshold) },
  { additionalProperties: false, description: 'At least one level; the most severe level that is due wins' })
const Throughput = Type.Object({
  window_seconds: Type.Integer({ description: 'The window (1 to 2,678,400 s), in arrival time' }),
  min_count: Type.Optional(Type.Integer({ description: 'Raised when fewer observations arrived within the window; default 1' })),
  level: Type.Optional(Type.Union(LEVELS.map((l) => Type.Literal(l)), { description: 'The level raised; default warn' })),
}, { additionalProperties: false })
const NotificationIn = Type.Object({
  webhook: Type.Optional(Type.Object({
    url: Type.String({ maxLength: 2000, description: 'http(s) URL of the receiver; internal addresses are refused unless the operator allows them (LINTEL_WEBHOOK_ALLOW). The payload: see the callback alertNotification' }),
    secret: Type.String({ maxLength: 200, description: 'HMAC-SHA256 key of x-lintel-signature, 16 to 200 characters; write-only (answers show secret_set)' }),
  }, { additionalProperties: false })),
  log: Type.Optional(Type.Boolean({ description: 'One structured log line per raise or reset' })),
  email: Type.Optional(Type.Object({
    to: Type.Array(Type.String({ maxLength: 254 }), { minItems: 1, maxItems: 20, description: 'Recipients, 1 to 20 e-mail addresses; sent through the operator\'s SMTP server (LINTEL_SMTP_HOST)' }),
  }, { additionalProperties: false })),
}, { additionalProperties: false })
const Attributes = Type.Record(Type.String({ maxLength: 200 }), Type.String({ maxLength: 2000 }), { maxProperties: 50 })
const Common = {
  name: Type.String({ minLength: 1, maxLength: 200 }),
  dataPointID: Type.String({ minLength: 1, maxLength: 1000 }),
  description: Type.Optional(Type.String({ maxLength: 2000 })),
  enabled: Type.Optional(Type.Boolean()),
  notification: Type.Optional(NotificationIn),
  attributes: Type.Optional(Attributes),
}
const Alert = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), kind: Type.String(), name: Type.String(), description: Type.String(),
  dataPointID: Type.String(), enabled: Type.Boolean(), status: Type.String(), status_code: Type.Integer(),
  thresholds: Type.Optional(Thresholds), throughput: Type.Optional(Throughput),
  notification: Type.Object({ webhook: Type.Optional(Type.Object({ url: Type.String(), secret_set: Type.Boolean() })), log: Type.Boolean(), email: Type.Optional(Type.Object({ to: Type.Array(Type.String()) })) }),
  attributes: Type.Record(Type.String(), Type.String()),
  state: Type.Object({
    raised: Type.Boolean(), level: Type.Union([LevelT, Type.Null()]),
    condition: Type.String({ description: 'Normal, Raised or Acknowledged (the condition table of docs/alerts.md)' }),
    acknowledged: Type.Union([Type.Object({ by: Type.String(), at: Type.String(), comment: Type.Union([Type.String(), Type.Null()]) }), Type.Null()]),
  }),
  created_at: Type.String(),
})
const Event = Type.Object({
  id: Type.Integer(), kind: Type.String(), level: Type.Union([Type.String(), Type.Null()]), previous_level: Type.Union([Type.String(), Type.Null()]),
  value: Type.Union([Type.Number(), Type.Null()]), time: Type.String(), recorded_at: Type.String(),
  by: Type.Optional(Type.String({ description: 'ack and clear: who acknowledged or cleared it' })),
  comment: Type.Optional(Type.Union([Type.String(), Type.Null()])),
})
const PersonBody = Type.Object({ comment: Type.Optional(Type.String({ maxLength: 2000, description: 'Why, for the event history and the notification' })) }, { additionalProperties: false })
const Meta = Type.Object({ current_page: Type.Integer(), items_per_page: Type.Integer(), total_items: Type.Integer(), total_pages: Type.Integer() })
const ProjectQuery = Type.Object({ project_id: Id }, { additionalProperties: false })
const AlertParams = Type.Object({ alert_id: Id })
const SORTS = ['id', 'name', 'created_at', 'dataPointID', 'level'] as const

/** Alerts one datapoint may have (issue 29: no limit let one datapoint fan out into thousands of alerts). */
export const DEFAULT_ALERTS_PER_DATAPOINT = 100

export const alertRoutes: FastifyPluginAsync<RouteContext & { runner: AlertRunner; webhookPolicy: WebhookAddressPolicy; maxAlertsPerDatapoint?: number; emailEnabled?: boolean }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, runner } = ctx
  const alerts = catalog.alerts
  const access = new DatapointAccess(catalog)

  /** The alert if it belongs to the request's project and the caller may read its datapoint through `no`. */
  const readable = async (req: FastifyRequest, no: number, id: number): Promise<AlertRecord> => {
    const a = await alerts.find(id)
    const notFound = () => new NotFoundError(`Alert ${id} not found in project ${req.project.id}`)
    if (!a || a.project_id !== req.project.id) throw notFound()
    await access.assertVisible(req, no, [a.dataPointID], notFound)
    return a
  }
  const view = async (a: AlertRecord) => {
    const { code, level, ack } = await conditionNow(catalog, a)
    const n = a.notification as { webhook?: { url: string }; log?: boolean; email?: { to: string[] } }
    return {
      id: a.id, project_id: a.project_id, kind: a.kind, name: a.name, description: a.description, dataPointID: a.dataPointID,
      enabled: a.status_code === 200, status: ALERT_LIFECYCLE.text(a.status_code), status_code: a.status_code,
      ...(a.kind === 'threshold' ? { thresholds: a.config.thresholds as object } : { throughput: a.config.throughput as { window_seconds: number } }),
      notification: { ...(n.webhook ? { webhook: { url: n.webhook.url, secret_set: true } } : {}), log: n.log === true, ...(n.email ? { email: { to: n.email.to } } : {}) },
      attributes: a.attributes,
      state: {
        raised: level !== null, level: level as never, condition: ALERT_CONDITION.text(code),
        acknowledged: ack ? { by: ack.actor, at: new Date(ack.at).toISOString(), comment: ack.comment } : null,
      },
      created_at: new Date(a.created_at).toISOString(),
    }
  }

  const create = async (req: FastifyRequest, no: number, kind: AlertKind, body: { name: string; dataPointID: string; description?: string; enabled?: boolean; notification?: unknown; attributes?: Record<string, string> }, config: object) => {
    const pid = req.project.id
    await access.require(req, no, body.dataPointID, 'read')
    const notification = parseNotification(body.notification)
    if (notification.email && !ctx.emailEnabled) throw new InvalidInputError('notification.email: this installation sends no e-mail (the operator has not configured an SMTP server: LINTEL_SMTP_HOST)')
    // Names that resolve to internal addresses are refused when the webhook connects.
    const refused = notification.webhook && literalRefusal(notification.webhook.url, ctx.webhookPolicy)
    if (refused) throw new InvalidInputError(`notification.webhook.url: ${refused}`)
    const ids = await catalog.datapoints.ensure(pid, [body.dataPointID])
    const max = ctx.maxAlertsPerDatapoint ?? DEFAULT_ALERTS_PER_DATAPOINT
    const series = ids.get(body.dataPointID)!
    const existing = (await alerts.listByProject(pid)).filter((x) => x.datapoint === series).length
    if (existing >= max) throw new TooLargeError(`Too many alerts: datapoint '${body.dataPointID}' already has ${existing} alerts, at most ${max} (LINTEL_ALERTS_PER_DATAPOINT); delete one first`)
    const a = await alerts.create(pid, {
      datapoint: ids.get(body.dataPointID)!, kind, name: body.name, description: body.description ?? '',
      status_code: body.enabled === false ? 300 : ALERT_LIFECYCLE.initial, config, notification, attributes: body.attributes ?? {},
    })
    if (a.status_code === 200) await runner.start(a)
    return view(a)
  }

  app.route({
    ...at(100),
    schema: {
      querystring: ProjectQuery, body: Type.Object({ ...Common, thresholds: Thresholds }, { additionalProperties: false }), response: { 201: Envelope(Alert) },
      callbacks: alertNotificationCallbacks,
    },
    handler: async (req, reply) => {
      return created(reply, await create(req, 100, 'threshold', req.body, { thresholds: parseThresholds(req.body.thresholds) }))
    },
  })

  app.route({
    ...at(101),
    schema: {
      querystring: ProjectQuery, body: Type.Object({ ...Common, throughput: Throughput }, { additionalProperties: false }), response: { 201: Envelope(Alert) },
      callbacks: alertNotificationCallbacks,
    },
    handler: async (req, reply) => {
      return created(reply, await create(req, 101, 'throughput', req.body, { throughput: parseThroughput(req.body.throughput) }))
    },
  })

  app.route({
    ...at(102),
    schema: { params: AlertParams, querystring: ProjectQuery, response: { 200: Envelope(Alert) } },
    handler: async (req, reply) => {
      const a = await readable(req, 102, req.params.alert_id)
      const moved = await alerts.setStatus(a.id, ALERT_LIFECYCLE.next(a.status_code, 'enable', a.name))
      await runner.start(moved)
      return done(reply, await view(moved))
    },
  })

  app.route({
    ...at(103),
    schema: { params: AlertParams, querystring: ProjectQuery, response: { 200: Envelope(Alert) } },
    handler: async (req, reply) => {
      const a = await readable(req, 103, req.params.alert_id)
      const moved = await alerts.setStatus(a.id, ALERT_LIFECYCLE.next(a.status_code, 'disable', a.name))
      await runner.disable(moved)
      return done(reply, await view(moved))
    },
  })

  app.route({
    ...at(104),
    schema: { params: AlertParams, querystring: ProjectQuery, response: { 200: Envelope(Alert) } },
    handler: async (req, reply) => {
      const a = await readable(req, 104, req.params.alert_id)
      ALERT_LIFECYCLE.next(a.status_code, 'delete', a.name)
      await runner.stop(a.id)
      const answer = await view(a)
      await alerts.remove(a.id)
      return deleted(reply, answer)
    },
  })

  // Acknowledge and clear (issue 34 item 3): moves of the condition table (ALERT_CONDITION);
  // from a state that does not allow them, 409 naming the state.
  const byPerson = (no: 200 | 201, move: 'acknowledge' | 'clear') => app.route({
    ...at(no),
    schema: { params: AlertParams, querystring: ProjectQuery, body: Type.Optional(PersonBody), response: { 200: Envelope(Alert) } },
    handler: async (req, reply) => {
      const a = await readable(req, no, req.params.alert_id)
      await runner[move](a, { actor: req.caller.user.email, comment: req.body?.comment ?? null })
      return done(reply, await view(a))
    },
  })
  byPerson(200, 'acknowledge')
  byPerson(201, 'clear')

  app.route({
    ...at(105),
    schema: {
      params: ProjectParams,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })),
        per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })),
        search: Type.Optional(Type.String({ maxLength: 200 })),
        level: Type.Optional(LevelT),
        enabled: Type.Optional(Type.Boolean()),
        dataPointID: Type.Optional(Type.String({ maxLength: 1000 })),
        kind: Type.Optional(Type.Union([Type.Literal('threshold'), Type.Literal('throughput')])),
        sort: Type.Optional(Type.String({ maxLength: 40 })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(Alert), meta: Meta }) },
    },
    handler: async (req) => {
      const { page = 1, per_page: perPage = 20, search, level, enabled, dataPointID, kind, sort = 'id' } = req.query
      const desc = sort.startsWith('-')
      const key = (desc ? sort.slice(1) : sort) as (typeof SORTS)[number]
      if (!SORTS.includes(key)) throw new InvalidInputError(`Unsupported sort '${sort}': sort by ${SORTS.join(', ')}, with a leading '-' for descending order`)
      const needle = search?.toLowerCase()
      const all = []
      for (const a of await alerts.listByProject(req.project.id)) {
        if (enabled !== undefined && (a.status_code === 200) !== enabled) continue
        if (dataPointID !== undefined && a.dataPointID !== dataPointID) continue
        if (kind !== undefined && a.kind !== kind) continue
        if (level !== undefined && !levelsOf(a).includes(level)) continue
        if (needle !== undefined && ![a.name, a.description, a.dataPointID].some((s) => s.toLowerCase().includes(needle))) continue
        if (!(await access.readsAll(req, 105, [a.dataPointID], a.project_id))) continue
        all.push(a)
      }
      const value = (a: AlertRecord): string | number => key === 'level' ? Math.max(...levelsOf(a).map((l) => (LEVELS as readonly string[]).indexOf(l))) : key === 'dataPointID' ? a.dataPointID : a[key]
      all.sort((x, y) => {
        const a = value(x), b = value(y)
        const c = a < b ? -1 : a > b ? 1 : x.id - y.id
        return desc ? -c : c
      })
      const items = await Promise.all(all.slice((page - 1) * perPage, page * perPage).map(view))
      return { items, meta: { current_page: page, items_per_page: perPage, total_items: all.length, total_pages: Math.ceil(all.length / perPage) } }
    },
  })

  app.route({
    ...at(106),
    schema: { params: Type.Object({ project_id: Id, alert_id: Id }) },
    handler: async (req) => {
      await readable(req, 106, req.params.alert_id)
      throw new ConflictError(`Alert ${req.params.alert_id}: in-place modification of alerts is no longer supported; delete it (DELETE /v2/alert/${req.params.alert_id}?project_id=${req.project.id}) and create it again`)
    },
  })

  app.route({
    ...at(107),
    schema: { params: Type.Object({ project_id: Id, alert_id: Id }), response: { 200: Alert } },
    handler: async (req) => view(await readable(req, 107, req.params.alert_id)),
  })

  app.route({
    ...at(108),
    schema: {
      params: Type.Object({ project_id: Id, alert_id: Id }),
      querystring: Type.Object({ page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE })), per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(Event), meta: Meta }) },
    },
    handler: async (req) => {
      const a = await readable(req, 108, req.params.alert_id)
      const { page = 1, per_page: perPage = 50 } = req.query
      const total = await alerts.eventCount(a.id)
      // Newest first; a page is read as the first page*perPage events (pages are short in practice).
      const events = (await alerts.events(a.id, { limit: page * perPage })).slice((page - 1) * perPage)
      return {
        items: events.map((e) => ({
          id: e.id, kind: e.kind, level: e.level, previous_level: e.previous_level, value: e.value, time: rfc3339(e.time), recorded_at: new Date(e.recorded_at).toISOString(),
          ...(e.kind === 'ack' || e.kind === 'clear' ? { by: e.actor ?? '', comment: e.comment ?? null } : {}),
        })),
        meta: { current_page: page, items_per_page: perPage, total_items: total, total_pages: Math.ceil(total / perPage) },
      }
    },
  })
}

/** The levels an alert can raise (its configured thresholds, or its throughput level). */
function levelsOf(a: AlertRecord): string[] {
  if (a.kind === 'throughput') return [String((a.config.throughput as { level: string }).level)]
  return Object.keys(a.config.thresholds as object)
}
