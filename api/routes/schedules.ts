// The holiday calendar of a project and the resolved schedules of a mapped component (spec 2:
// "Schedules run through an app of algorithm schedule. Its resolved switching times and
// holidays can be read with .../schedules and .../holidays"; issue 31 item 2), endpoints
// 178-181. Resolution is core/schedule's (the same code the edge agent runs), in the project's
// time zone. A range is given by start (inclusive) and end (exclusive): RFC 3339 timestamps,
// or dates YYYY-MM-DD meaning local midnight in the project's zone.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError, OverloadedError } from '../../core/errors.ts'
import { zoneCalendar } from '../../core/clock/zone.ts'
import { parseTimestamp } from '../../core/timestamp.ts'
import { dateOf, dayOf, holidaysIn, scheduleConfig, switchingTimes, validateHolidays, MAX_RANGE_US, type HolidayRule } from '../../core/schedule/index.ts'
import type { ComponentLibrary } from '../../engine/analytics/library.ts'
import type { ControlsAppService } from '../../engine/controls/service.ts'
import { DELETING } from '../../engine/controls/lifecycle.ts'
import type { RouteContext } from '../route-context.ts'
import { updated } from '../envelope.ts'
import { ControlsAppAccess } from '../controls-app-access.ts'
import { AppStatus, appStatus, fieldsInvalid } from '../controls-app-view.ts'
import { at } from '../registry.ts'
import { Envelope, Id } from '../schemas.ts'

const Rule = Type.Object({
  name: Type.String(), date: Type.String({ description: 'YYYY-MM-DD' }),
  end: Type.Optional(Type.String({ description: 'YYYY-MM-DD, inclusive' })), yearly: Type.Optional(Type.Boolean({ description: 'recurs every year on its month and day' })),
})
/** The request body: checked by core/schedule (a 400 naming holidays[i].field), so the schema only documents it. */
const RulesBody = Type.Unsafe<unknown[]>({
  type: 'array', items: { type: 'object', properties: Rule.properties },
  description: 'The whole calendar (replaces the stored one): single dates, ranges (end inclusive), yearly ones',
  example: [{ name: 'Christmas', date: '2026-12-24', end: '2026-12-26', yearly: true }, { name: 'Plant holiday', date: '2026-08-03', end: '2026-08-14' }],
})
const Calendar = Type.Object({ project_id: Type.Integer(), holidays: Type.Array(Rule), updated_at: Type.Union([Type.String(), Type.Null()]) })
const Range = Type.Object({
  start: Type.String({ minLength: 1, maxLength: 64, description: 'RFC 3339 timestamp, or YYYY-MM-DD (local midnight in the project time zone); inclusive' }),
  end: Type.String({ minLength: 1, maxLength: 64, description: 'as start; exclusive' }),
}, { additionalProperties: false })
const CipParams = Type.Object({ project_id: Id, componentinproject_id: Id })
const Head = { project_id: Type.Integer(), componentinproject_id: Type.Integer(), zone: Type.String(), start: Type.String(), end: Type.String() }
const Switching = Type.Object({
  time: Type.String(), local: Type.String({ description: 'the local wall time it runs at, YYYY-MM-DDTHH:mm' }),
  values: Type.Record(Type.String(), Type.Union([Type.Number(), Type.Null()])), holiday: Type.Optional(Type.String()),
})
const ScheduleOfApp = Type.Object({ controls_app_id: Type.String(), name: Type.String(), status: AppStatus, priority: Type.Integer(), switching: Type.Array(Switching) })

export const scheduleRoutes: FastifyPluginAsync<RouteContext & { library: ComponentLibrary; controls?: ControlsAppService }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, library, controls } = ctx
  const guard = new ControlsAppAccess(catalog, library)

  /** The range as µs in the project's zone; 400 naming the parameter. */
  const range = async (req: FastifyRequest, q: { start: string; end: string }) => {
    const zone = (await catalog.projects.settings(req.project.id)).time_zone
    const cal = zoneCalendar(zone)
    const instant = (name: string, text: string) => {
      const day = dayOf(text)
      const us = day !== undefined ? cal.midnight(day) : parseTimestamp(text)
      if (us === undefined) throw new InvalidInputError(`Cannot parse ${name} '${text}': use an RFC 3339 timestamp or a date YYYY-MM-DD`)
      return us
    }
    const fromUs = instant('start', q.start)
    const toUs = instant('end', q.end)
    if (toUs <= fromUs) throw new InvalidInputError(`end (${q.end}) must be after start (${q.start})`)
    if (toUs - fromUs > MAX_RANGE_US) throw new InvalidInputError(`The range from start to end is longer than ${MAX_RANGE_US / 86_400_000_000} days`)
    return { zone, cal, fromUs, toUs }
  }
  const rulesOf = async (projectId: number) => (await catalog.controlsApps.holidays(projectId)).rules as HolidayRule[]

  app.route({
    ...at(178),
    schema: { params: Type.Object({ project_id: Id }), body: RulesBody, response: { 200: Envelope(Type.Object({ ...Calendar.properties, redeployed: Type.Integer() })) } },
    handler: async (req, reply) => {
      const errors = validateHolidays(req.body)
      if (errors.length > 0) throw fieldsInvalid('holiday calendar', 'holidays', errors)
      if (!controls) throw new OverloadedError('The holiday calendar cannot be changed in this process: its controls apps are deployed through the MQTT broker (LINTEL_ROLES with api and broker, or LINTEL_REDIS_URL)')
      // The calendar changes what every deployed app writes: the caller must be able to write all of it.
      for (const a of await catalog.controlsApps.listByProject(req.project.id)) {
        if (a.deployed && a.desired !== 'delete') await guard.mayWriteDatapoints(req, 178, a.pins)
      }
      const rules = (req.body as HolidayRule[]).map((r) => ({ name: r.name, date: r.date, ...(r.end !== undefined ? { end: r.end } : {}), ...(r.yearly !== undefined ? { yearly: r.yearly } : {}) }))
      const saved = await catalog.controlsApps.setHolidays(req.project.id, rules, Date.now())
      const redeployed = await controls.holidaysChanged(req.project.id)
      return updated(reply, { project_id: req.project.id, holidays: saved.rules as HolidayRule[], updated_at: new Date(saved.updated_at!).toISOString(), redeployed })
    },
  })

  app.route({
    ...at(179),
    schema: { params: Type.Object({ project_id: Id }), response: { 200: Calendar } },
    handler: async (req) => {
      const c = await catalog.controlsApps.holidays(req.project.id)
      return { project_id: req.project.id, holidays: c.rules as HolidayRule[], updated_at: c.updated_at === null ? null : new Date(c.updated_at).toISOString() }
    },
  })

  app.route({
    ...at(180),
    schema: { params: CipParams, querystring: Range, response: { 200: Type.Object({ ...Head, apps: Type.Array(ScheduleOfApp) }) } },
    handler: async (req) => {
      const cip = await guard.component(req, req.params.componentinproject_id)
      const r = await range(req, req.query)
      const rules = await rulesOf(req.project.id)
      const sees = guard.listTest(req, 180)
      const apps = []
      for (const a of await catalog.controlsApps.list(req.project.id, { componentinproject_id: cip.id, algorithm: 'schedule' }, { offset: 0, limit: 1000 }).then((p) => p.items)) {
        if (a.status_code === DELETING || !(await sees(a))) continue
        const config = scheduleConfig(a.configuration)
        const switching = switchingTimes(config, rules, r.zone, r.fromUs, r.toUs).map((s) => ({
          time: new Date(s.timeUs / 1000).toISOString(), local: s.local, values: s.values, ...(s.holiday !== undefined ? { holiday: s.holiday } : {}),
        }))
        apps.push({ controls_app_id: a.id, name: a.name, status: appStatus(a), priority: config.priority, switching })
      }
      return { project_id: req.project.id, componentinproject_id: cip.id, zone: r.zone, start: req.query.start, end: req.query.end, apps }
    },
  })

  app.route({
    ...at(181),
    schema: { params: CipParams, querystring: Range, response: { 200: Type.Object({ ...Head, holidays: Type.Array(Type.Object({ date: Type.String(), name: Type.String() })) }) } },
    handler: async (req) => {
      const cip = await guard.component(req, req.params.componentinproject_id)
      const r = await range(req, req.query)
      // The local dates the range touches: the day of start to the day of its last instant.
      const first = dateOf(r.cal.at(r.fromUs).day)
      const last = dateOf(r.cal.at(r.toUs - 1).day)
      const holidays = holidaysIn(await rulesOf(req.project.id), first, last)
      return { project_id: req.project.id, componentinproject_id: cip.id, zone: r.zone, start: req.query.start, end: req.query.end, holidays }
    },
  })
}
