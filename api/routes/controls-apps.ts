// Controls apps (spec 2 "Controls apps" endpoints; issue 31 item 1), endpoints 170-177. Routes
// under /v2/controls take the project as the query parameter project_id. The app's state and
// its deployment to the edge agent are the controls-app service's (engine/controls/); this
// plugin applies the safeguards (api/controls-app-access.ts) and shapes the answers
// (api/controls-app-view.ts). Shapes the spec does not show (the read answers, the multi-app
// run) are designed here and documented in docs/controls-apps.md and OpenAPI.
// Without a controls-app service (a process that reaches no broker) the reads work and every
// change answers 503, as setpoint writing does.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ControlsApp } from '../../catalog/controls-apps.ts'
import { InvalidInputError, LintelError, OverloadedError } from '../../core/errors.ts'
import { pinsOf, scheduleConfig, validateScheduleConfig } from '../../core/schedule/index.ts'
import type { ComponentLibrary } from '../../engine/analytics/library.ts'
import type { ControlsAppService } from '../../engine/controls/service.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted } from '../envelope.ts'
import { ControlsAppAccess } from '../controls-app-access.ts'
import { AppStatus, AppView, LogItem, Meta, ScheduleConfigBody, appStatus, appView, configuredValues, fieldsInvalid, logItem } from '../controls-app-view.ts'
import { at } from '../registry.ts'
import { Envelope, Id, MAX_PAGE } from '../schemas.ts'

const AppId = Type.String({ minLength: 1, maxLength: 100 })
const Page = { page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })), per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 20 })) }
const Q = Type.Object({ project_id: Id }, { additionalProperties: false })
const Params = Type.Object({ controls_app_id: AppId })
const RunAnswer = Type.Object({ affected: Type.Boolean(), controls_app_id: Type.String(), status: AppStatus })
const Outcome = Type.Object({
  controls_app_id: Type.String(), affected: Type.Boolean(), status: Type.Union([AppStatus, Type.Null()]),
  error: Type.Union([Type.String(), Type.Null()]), http_status: Type.Integer({ description: 'What the single-app endpoint would have answered' }),
})

const meta = (page: number, perPage: number, total: number) => ({ current_page: page, items_per_page: perPage, total_items: total, total_pages: Math.ceil(total / perPage) })

export const controlsAppRoutes: FastifyPluginAsync<RouteContext & { library: ComponentLibrary; controls?: ControlsAppService }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, library, controls } = ctx
  const guard = new ControlsAppAccess(catalog, library)
  const service = (): ControlsAppService => {
    if (!controls) throw new OverloadedError('Controls apps cannot be changed in this process: it needs the MQTT broker (LINTEL_ROLES with api and broker, or LINTEL_REDIS_URL)')
    return controls
  }
  const visibleApp = async (req: FastifyRequest, no: number, id: string) => guard.visible(req, no, await catalog.controlsApps.find(id), id)
  const priorityOf = (a: ControlsApp) => (typeof a.configuration.priority === 'number' ? a.configuration.priority : 13)

  /** run=true or false of one app, with its safeguards (174 and 175). */
  const setRun = async (req: FastifyRequest, no: number, id: string, run: boolean) => {
    const a = await visibleApp(req, no, id)
    if (run) {
      await guard.mayWrite(req, no, a.pins, priorityOf(a))
      await guard.withinBounds(req, a.pins, configuredValues(scheduleConfig(a.configuration)))
    } else {
      await guard.mayWriteDatapoints(req, no, a.pins) // stopping stays possible when the project's rules changed
    }
    return service().setRun(a.id, run, req.caller.user.email)
  }

  app.route({
    ...at(170),
    schema: {
      querystring: Type.Object({
        project_id: Id, componentinproject_id: Id, algorithm: Type.String({ minLength: 1, maxLength: 100 }),
        variation: Type.Optional(Type.String({ maxLength: 200 })), name: Type.Optional(Type.String({ maxLength: 200 })), description: Type.Optional(Type.String({ maxLength: 2000 })),
      }, { additionalProperties: false }),
      body: ScheduleConfigBody,
      response: { 201: Envelope(AppView) },
    },
    handler: async (req, reply) => {
      const q = req.query
      if (q.algorithm !== 'schedule') throw new InvalidInputError(`algorithm: unknown algorithm '${q.algorithm}' (known: schedule)`, 'CONTROLS_APP_CONFIG_INVALID')
      const cip = await guard.component(req, q.componentinproject_id)
      const mapped = guard.mappedPins(cip)
      const errors = validateScheduleConfig(req.body, Object.keys(mapped))
      if (errors.length > 0) throw fieldsInvalid('configuration', 'configuration', errors)
      const config = scheduleConfig(req.body as Record<string, unknown>)
      const pins = Object.fromEntries(pinsOf(config).map((p) => [p, mapped[p]]))
      await guard.mayWrite(req, 170, pins, config.priority)
      await guard.withinBounds(req, pins, configuredValues(config))
      const a = await service().create({
        projectId: req.project.id, componentInProjectId: cip.id, algorithm: q.algorithm, variation: q.variation ?? '', name: q.name ?? '',
        description: q.description ?? '', configuration: config as unknown as Record<string, unknown>, pins, createdBy: req.caller.user.email,
      })
      return created(reply, appView(a))
    },
  })

  app.route({
    ...at(171),
    schema: {
      querystring: Type.Object({
        project_id: Id, ...Page, componentinproject_id: Type.Optional(Id), algorithm: Type.Optional(Type.String({ maxLength: 100 })),
        status_code: Type.Optional(Type.Integer({ minimum: 100, maximum: 599 })), search: Type.Optional(Type.String({ maxLength: 200 })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(AppView), meta: Meta }) },
    },
    handler: async (req) => {
      const { page = 1, per_page: perPage = 20, componentinproject_id: cip, algorithm, status_code: statusCode, search } = req.query
      const filter = { componentinproject_id: cip, algorithm, status_code: statusCode, search }
      const sees = guard.listTest(req, 171)
      if (sees.all) {
        const found = await catalog.controlsApps.list(req.project.id, filter, { offset: (page - 1) * perPage, limit: perPage })
        return { items: found.items.map(appView), meta: meta(page, perPage, found.total) }
      }
      // A narrower TagAuth: only the apps whose datapoints the caller reads, paged here.
      const all = (await catalog.controlsApps.list(req.project.id, filter, { offset: 0, limit: 1_000_000 })).items
      const visible: ControlsApp[] = []
      for (const a of all) if (await sees(a)) visible.push(a)
      return { items: visible.slice((page - 1) * perPage, page * perPage).map(appView), meta: meta(page, perPage, visible.length) }
    },
  })

  app.route({
    ...at(172),
    schema: { params: Params, querystring: Q, response: { 200: AppView } },
    handler: async (req) => appView(await visibleApp(req, 172, req.params.controls_app_id)),
  })

  app.route({
    ...at(173),
    schema: {
      params: Params, querystring: Type.Object({ project_id: Id, ...Page }, { additionalProperties: false }),
      response: { 200: Type.Object({ controls_app_id: Type.String(), items: Type.Array(LogItem), meta: Meta }) },
    },
    handler: async (req) => {
      const a = await visibleApp(req, 173, req.params.controls_app_id)
      const { page = 1, per_page: perPage = 20 } = req.query
      const found = await catalog.controlsApps.logs(a.id, { offset: (page - 1) * perPage, limit: perPage })
      return { controls_app_id: a.id, items: found.items.map(logItem), meta: meta(page, perPage, found.total) }
    },
  })

  app.route({
    ...at(174),
    schema: {
      params: Params,
      querystring: Type.Object({ project_id: Id, run: Type.Optional(Type.Boolean({ default: true })) }, { additionalProperties: false }),
      response: { 200: RunAnswer },
    },
    handler: async (req) => {
      const out = await setRun(req, 174, req.params.controls_app_id, req.query.run ?? true)
      return { affected: out.affected, controls_app_id: out.app.id, status: appStatus(out.app) }
    },
  })

  app.route({
    ...at(175),
    schema: {
      querystring: Q,
      body: Type.Object({
        run: Type.Boolean({ description: 'true runs, false stops every app named' }),
        controls_app_ids: Type.Array(AppId, { minItems: 1, maxItems: 100, uniqueItems: true }),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ run: Type.Boolean(), succeeded: Type.Integer(), failed: Type.Integer(), results: Type.Array(Outcome) }) },
    },
    handler: async (req) => {
      const results = []
      // One after another, in the order given; one app's refusal does not stop the others.
      for (const id of req.body.controls_app_ids) {
        try {
          const out = await setRun(req, 175, id, req.body.run)
          results.push({ controls_app_id: id, affected: out.affected, status: appStatus(out.app), error: null, http_status: 200 })
        } catch (err) {
          if (!(err instanceof LintelError)) throw err
          results.push({ controls_app_id: id, affected: false, status: null, error: err.message, http_status: err.status })
        }
      }
      const failed = results.filter((r) => r.error !== null).length
      return { run: req.body.run, succeeded: results.length - failed, failed, results }
    },
  })

  const remove = async (req: FastifyRequest, no: number, id: string) => {
    const a = await visibleApp(req, no, id)
    await guard.mayWriteDatapoints(req, no, a.pins)
    return appView(await service().remove(a.id, req.caller.user.email))
  }
  app.route({
    ...at(176),
    schema: { querystring: Type.Object({ project_id: Id, controls_app_id: AppId }, { additionalProperties: false }), response: { 200: Envelope(AppView) } },
    handler: async (req, reply) => deleted(reply, await remove(req, 176, req.query.controls_app_id)),
  })
  app.route({
    ...at(177),
    schema: { params: Params, querystring: Q, response: { 200: Envelope(AppView) } },
    handler: async (req, reply) => deleted(reply, await remove(req, 177, req.params.controls_app_id)),
  })
}
