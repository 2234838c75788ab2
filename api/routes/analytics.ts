// Analysis functions, instances and results (spec 3 "Analysis"; issue 12 item 4), endpoints
// 150-161. Routes under /v2/analytics take the project as the query parameter project_id.
// Shapes the spec does not show (the answer of creating and of running an instance, the
// grouped views) are designed here and documented in the README and OpenAPI. Timestamps of
// results have the spec's form `YYYY-MM-DD HH:MM:SS+00:00`.
//
// Access: every endpoint needs its grant. An instance is visible through an endpoint only if
// the caller may read, through it, every datapoint mapped to its component (otherwise it and
// its results do not exist for the caller: 404, or left out of lists); creating one needs
// the same. Another company's project is 404 (access hooks).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { AnalysisInstance, AnalysisResult } from '../../catalog/analytics.ts'
import type { ComponentInProject } from '../../catalog/components-in-project.ts'
import { ForbiddenError, InvalidInputError, NotFoundError } from '../../core/errors.ts'
import type { ComponentLibrary } from '../../engine/analytics/library.ts'
import type { AnalyticsService } from '../../engine/analytics/service.ts'
import { specTimestamp } from '../../engine/analytics/weeks.ts'
import { parseTimestamp } from '../../core/timestamp.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, updated } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id } from '../schemas.ts'

const Fn = Type.Object({ id: Type.Integer(), alphanumeric_id: Type.String(), nameDE: Type.String(), nameEN: Type.String() })
const Instance = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(),
  config: Type.Object({ analysisfunction_id: Type.Integer(), componentinproject_id: Type.Integer(), description: Type.String(), enabled: Type.Boolean(), name: Type.String() }),
})
const Kpi = Type.Object({ name: Type.String(), unit: Type.String(), value: Type.Union([Type.Number(), Type.String(), Type.Null()]) })
const Detail = Type.Object({
  result_id: Type.String(), instance_id: Type.Integer(), project_id: Type.Integer(), function_name: Type.String(),
  start: Type.String(), end: Type.String(), status: Type.String(), trigger: Type.String(), interpretation: Type.String(),
  kpi: Type.Array(Kpi), recommendation: Type.Array(Type.String()), info: Type.Array(Type.String()),
  signal_color: Type.Union([Type.String(), Type.Null()]), created_at: Type.String(),
})
const ListItem = Type.Object({ result_id: Type.String(), status: Type.String(), signal_color: Type.Union([Type.String(), Type.Null()]), input_parameters: Type.Object({ start: Type.String(), end: Type.String() }) })
const ComponentHead = { componentinproject_id: Type.Integer(), component_id: Type.Integer(), nameEN: Type.String(), display_name: Type.String() }
const InstanceHead = { instance_id: Type.Integer(), name: Type.String(), analysisfunction_id: Type.Integer(), function_name: Type.String(), enabled: Type.Boolean() }
const Lang = Type.Optional(Type.Union([Type.Literal('en'), Type.Literal('de')]))
const Q = Type.Object({ project_id: Id }, { additionalProperties: false })
const QLang = Type.Object({ project_id: Id, result_language: Lang }, { additionalProperties: false })
const InstanceParams = Type.Object({ instance_id: Id })

export const analyticsRoutes: FastifyPluginAsync<RouteContext & { library: ComponentLibrary; analytics: AnalyticsService }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, library, analytics: service } = ctx
  const repo = catalog.analytics

  const access = new DatapointAccess(catalog)
  /** Whether the caller reads every datapoint mapped to the component through endpoint `no`. */
  const seesAll = (req: FastifyRequest, no: number, cip: ComponentInProject) => access.readsAll(req, no, cip.pins.map((m) => m.dataPointID))
  const cipOf = async (req: FastifyRequest, id: number) => {
    const cip = await catalog.componentsInProject.find(id)
    if (!cip || cip.project_id !== req.project.id) throw new NotFoundError(`Component in project ${id} not found in project ${req.project.id}`)
    return cip
  }
  /** The instance, if it belongs to the request's project and the caller sees all of its component. */
  const instanceOf = async (req: FastifyRequest, no: number, id: number): Promise<{ instance: AnalysisInstance; cip: ComponentInProject }> => {
    const instance = await repo.findInstance(id)
    const cip = instance && instance.project_id === req.project.id ? await catalog.componentsInProject.find(instance.componentinproject_id) : undefined
    if (!instance || !cip || !(await seesAll(req, no, cip))) throw new NotFoundError(`Analysis instance ${id} not found in project ${req.project.id}`)
    return { instance, cip }
  }
  const instanceView = (i: AnalysisInstance) => ({
    id: i.id, project_id: i.project_id,
    config: { analysisfunction_id: i.analysisfunction_id, componentinproject_id: i.componentinproject_id, description: i.description, enabled: i.enabled, name: i.name },
  })
  const detail = (r: AnalysisResult, projectId: number, lang: 'en' | 'de' = 'en') => ({
    result_id: r.result_id, instance_id: r.instance_id, project_id: projectId, function_name: r.texts[lang].function_name,
    start: specTimestamp(r.start), end: specTimestamp(r.end), status: r.status, trigger: r.trigger,
    interpretation: r.texts[lang].interpretation, kpi: r.texts[lang].kpi, recommendation: r.texts[lang].recommendation, info: r.texts[lang].info,
    signal_color: r.signal_color, created_at: specTimestamp(r.created_at * 1000),
  })
  const listItem = (r: AnalysisResult) => ({ result_id: r.result_id, status: r.status, signal_color: r.signal_color, input_parameters: { start: specTimestamp(r.start), end: specTimestamp(r.end) } })
  const componentHead = (cip: ComponentInProject) => ({ componentinproject_id: cip.id, component_id: cip.component_id, nameEN: library.get(cip.component_id)?.nameEN ?? '', display_name: cip.display_name })
  const instanceHead = (i: AnalysisInstance) => ({ instance_id: i.id, name: i.name, analysisfunction_id: i.analysisfunction_id, function_name: service.fn(i.analysisfunction_id)?.nameEN ?? '', enabled: i.enabled })
  /** Visible instances of the project with their components, grouped by component (id order). */
  const grouped = async (req: FastifyRequest, no: number) => {
    const groups = new Map<number, { cip: ComponentInProject; instances: AnalysisInstance[] }>()
    const cips = new Map((await catalog.componentsInProject.listByProject(req.project.id)).map((c) => [c.id, c]))
    for (const i of await repo.instancesOfProject(req.project.id)) {
      const cip = cips.get(i.componentinproject_id)
      if (!cip) continue
      let g = groups.get(cip.id)
      if (!g) {
        if (!(await seesAll(req, no, cip))) continue
        groups.set(cip.id, g = { cip, instances: [] })
      }
      g.instances.push(i)
    }
    return [...groups.values()].sort((a, b) => a.cip.id - b.cip.id)
  }
  const timeParam = (name: string, text: string): number => {
    const t = parseTimestamp(text)
    if (t === undefined) throw new InvalidInputError(`Cannot parse ${name} '${text}': use an RFC 3339 timestamp or YYYY-MM-DD HH:MM:SS+00:00`)
    return t
  }

  app.route({
    ...at(150),
    schema: { querystring: Type.Object({ component_alphanumeric_id: Type.Optional(Type.String({ maxLength: 100 })) }, { additionalProperties: false }), response: { 200: Type.Array(Fn) } },
    handler: async (req) => {
      const aid = req.query.component_alphanumeric_id
      if (aid !== undefined && !library.byAlphanumericId(aid)) throw new InvalidInputError(`Unknown component_alphanumeric_id '${aid}': GET /v2/components lists the library`)
      return service.functions.filter((f) => aid === undefined || Object.hasOwn(f.components, aid))
        .map((f) => ({ id: f.id, alphanumeric_id: f.alphanumeric_id, nameDE: f.nameDE, nameEN: f.nameEN }))
    },
  })

  app.route({
    ...at(151),
    schema: {
      querystring: Q,
      body: Type.Object({
        analysisfunction_id: Id, componentinproject_id: Id, name: Type.String({ minLength: 1, maxLength: 200 }),
        description: Type.Optional(Type.String({ maxLength: 2000 })), enabled: Type.Optional(Type.Boolean()),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Instance) },
    },
    handler: async (req, reply) => {
      const b = req.body
      const fn = service.fn(b.analysisfunction_id)
      if (!fn) throw new InvalidInputError(`Unknown analysisfunction_id ${b.analysisfunction_id}: GET /v2/analytics/functions lists them`)
      const cip = await cipOf(req, b.componentinproject_id)
      const component = library.get(cip.component_id)!
      if (!Object.hasOwn(fn.components, component.alphanumeric_id)) {
        throw new InvalidInputError(`Analysis function ${fn.id} '${fn.alphanumeric_id}' does not apply to the component '${component.alphanumeric_id}' (it applies to ${Object.keys(fn.components).join(', ')})`)
      }
      if (!(await seesAll(req, 151, cip))) throw new ForbiddenError(`Component in project ${cip.id} maps datapoints you cannot read`, 'DATAPOINT_ACCESS_DENIED')
      const i = await repo.createInstance(req.project.id, {
        analysisfunction_id: fn.id, componentinproject_id: cip.id, name: b.name, description: b.description ?? '', enabled: b.enabled ?? true,
        weeks_from: await service.weeksFrom(req.project.id),
      })
      return created(reply, instanceView(i))
    },
  })

  app.route({
    ...at(152),
    schema: { params: InstanceParams, querystring: Q, response: { 200: Instance } },
    handler: async (req) => instanceView((await instanceOf(req, 152, req.params.instance_id)).instance),
  })

  app.route({
    ...at(153),
    schema: { querystring: Q, response: { 200: Type.Array(Instance) } },
    handler: async (req) => (await grouped(req, 153)).flatMap((g) => g.instances).sort((a, b) => a.id - b.id).map(instanceView),
  })

  app.route({
    ...at(154),
    schema: {
      params: InstanceParams,
      querystring: Type.Object({ project_id: Id, start: Type.String({ maxLength: 64 }), end: Type.String({ maxLength: 64 }), result_language: Lang }, { additionalProperties: false }),
      response: { 201: Envelope(Detail) },
    },
    handler: async (req, reply) => {
      const start = timeParam('start', req.query.start)
      const end = timeParam('end', req.query.end)
      if (start >= end) throw new InvalidInputError(`start (${req.query.start}) must be before end (${req.query.end})`)
      const { instance } = await instanceOf(req, 154, req.params.instance_id)
      return created(reply, detail(await service.runNow(instance, start, end), req.project.id, req.query.result_language))
    },
  })

  app.route({
    ...at(155),
    schema: {
      querystring: Q,
      response: { 200: Type.Object({ items: Type.Array(Type.Object({ ...ComponentHead, instances: Type.Array(Type.Object({ ...InstanceHead, result: ListItem })) })) }) },
    },
    handler: async (req) => {
      const latest = new Map((await repo.latestResults(req.project.id)).map((r) => [r.instance_id, r]))
      const items = (await grouped(req, 155)).map((g) => ({
        ...componentHead(g.cip),
        instances: g.instances.filter((i) => latest.has(i.id)).map((i) => ({ ...instanceHead(i), result: listItem(latest.get(i.id)!) })),
      })).filter((g) => g.instances.length > 0)
      return { items }
    },
  })

  app.route({
    ...at(156),
    schema: {
      params: Type.Object({ componentinproject_id: Id }), querystring: Q,
      response: { 200: Type.Object({ ...ComponentHead, instances: Type.Array(Type.Object({ ...InstanceHead, results: Type.Array(ListItem) })) }) },
    },
    handler: async (req) => {
      const cip = await cipOf(req, req.params.componentinproject_id)
      if (!(await seesAll(req, 156, cip))) throw new NotFoundError(`Component in project ${cip.id} not found in project ${req.project.id}`)
      const instances = (await repo.instancesOfProject(req.project.id)).filter((i) => i.componentinproject_id === cip.id)
      return { ...componentHead(cip), instances: await Promise.all(instances.map(async (i) => ({ ...instanceHead(i), results: (await repo.results(i.id)).map(listItem) }))) }
    },
  })

  app.route({
    ...at(157),
    schema: {
      querystring: QLang,
      response: { 200: Type.Object({ items: Type.Array(Type.Object({ ...ComponentHead, results: Type.Array(Detail) })) }) },
    },
    handler: async (req) => {
      const latest = new Map((await repo.latestResults(req.project.id)).map((r) => [r.instance_id, r]))
      const items = (await grouped(req, 157)).map((g) => ({
        ...componentHead(g.cip),
        results: g.instances.filter((i) => latest.has(i.id)).map((i) => detail(latest.get(i.id)!, req.project.id, req.query.result_language)),
      })).filter((g) => g.results.length > 0)
      return { items }
    },
  })

  app.route({
    ...at(158),
    schema: { params: InstanceParams, querystring: Q, response: { 200: Type.Array(ListItem) } },
    handler: async (req) => (await repo.results((await instanceOf(req, 158, req.params.instance_id)).instance.id)).map(listItem),
  })

  app.route({
    ...at(159),
    schema: { params: Type.Object({ instance_id: Id, result_id: Type.String({ minLength: 1, maxLength: 100 }) }), querystring: QLang, response: { 200: Detail } },
    handler: async (req) => {
      const { instance } = await instanceOf(req, 159, req.params.instance_id)
      const r = await repo.findResult(instance.id, req.params.result_id)
      if (!r) throw new NotFoundError(`Result '${req.params.result_id}' not found for analysis instance ${instance.id}`)
      return detail(r, req.project.id, req.query.result_language)
    },
  })

  app.route({
    ...at(160),
    schema: {
      params: InstanceParams, querystring: Q,
      body: Type.Object({ name: Type.Optional(Type.String({ minLength: 1, maxLength: 200 })), description: Type.Optional(Type.String({ maxLength: 2000 })), enabled: Type.Optional(Type.Boolean()) }, { additionalProperties: false }),
      response: { 200: Envelope(Instance) },
    },
    handler: async (req, reply) => {
      const { instance } = await instanceOf(req, 160, req.params.instance_id)
      // Enabling again starts with the next whole week: weeks while disabled are not made up.
      const weeks_from = req.body.enabled === true && !instance.enabled ? await service.weeksFrom(req.project.id) : undefined
      return updated(reply, instanceView(await repo.updateInstance(instance.id, { ...req.body, weeks_from })))
    },
  })

  app.route({
    ...at(161),
    schema: { params: InstanceParams, querystring: Q, response: { 200: Envelope(Instance) } },
    handler: async (req, reply) => {
      const { instance } = await instanceOf(req, 161, req.params.instance_id)
      await repo.removeInstance(instance.id)
      return deleted(reply, instanceView(instance))
    },
  })
}
