// A project: read it with a page of the datapoints the caller may read, change it, delete it
// (rule 9). Deleting first stops everything running for the project (onProjectDeleting, the
// project runtimes of the composition root), then removes it from the catalog, then its
// series from the store.
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { RouteContext } from '../route-context.ts'
import { DEFAULT_PER_PAGE, MAX_PER_PAGE, datapointPage } from '../datapoint-pages.ts'
import { deleted, updated } from '../envelope.ts'
import { canAccessDatapoint } from '../permissions.ts'
import { Device, visibleDevices } from '../project-devices.ts'
import { at } from '../registry.ts'
import { Datapoint, Description, Envelope, MAX_PAGE, Name, Project, ProjectParams } from '../schemas.ts'

/** A project with the settings of its MQTT interface (operator-assigned) and of sampling. */
const ProjectDetail = Type.Composite([Project, Type.Object({
  load_balancing_group: Type.String(), project_handle: Type.String(), hash_id_length: Type.Integer(), sampling_n: Type.Integer(), time_zone: Type.String(),
})])

/**
 * Datapoints deleted per step when a project is deleted (1,000 held the event loop 36-46 ms
 * per step, 250 held 12-14 on one day and up to 57 ms on a slow day: test/api/bounded-requests.test.ts).
 */
const DELETE_STEP = 100

// Optional with defaults (the OpenAPI document must not mark them required: issue 15, item 8).
const PageQuery = Type.Object({
  page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
  per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE, description: `default ${DEFAULT_PER_PAGE}, at most ${MAX_PER_PAGE}` })),
}, { additionalProperties: false })

const PageMeta = Type.Object({ current_page: Type.Integer(), items_per_page: Type.Integer(), total_items: Type.Integer(), total_pages: Type.Integer() })

export const projectRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog, store, onProjectDeleted, onProjectDeleting }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(30),
    schema: {
      params: ProjectParams,
      querystring: PageQuery,
      response: { 200: Type.Object({ project: ProjectDetail, datapoints: Type.Array(Datapoint), devices: Type.Array(Device), meta: PageMeta }) },
    },
    handler: async (req) => {
      const filter = req.permissions.datapointFilter(30, req.project.id)
      const readable = filter.all ? 'all' as const : (dp: Parameters<typeof canAccessDatapoint>[1]) => canAccessDatapoint(filter, dp, 'read')
      const { datapoints, meta } = await datapointPage(catalog, req.project.id, req.query.page ?? 1, req.query.per_page ?? DEFAULT_PER_PAGE, readable)
      return { project: await catalog.projects.settings(req.project.id), datapoints, devices: await visibleDevices(catalog, req.project.id, filter), meta }
    },
  })
  app.route({
    ...at(31),
    schema: {
      params: ProjectParams,
      body: Type.Object({
        name: Type.Optional(Name),
        description: Type.Optional(Description),
        time_zone: Type.Optional(Type.String({ minLength: 1, maxLength: 64, description: 'Extension (issue 14): IANA time zone of calendar sample rates (1D, 1W, 1M), default UTC' })),
      }, { additionalProperties: false }),
      response: { 200: Envelope(Type.Composite([Project, Type.Object({ time_zone: Type.String() })])) },
    },
    handler: async (req, reply) => {
      const project = await catalog.projects.update(req.project.id, req.body)
      return updated(reply, { ...project, time_zone: (await catalog.projects.settings(project.id)).time_zone })
    },
  })
  app.route({
    ...at(32),
    schema: { params: ProjectParams, response: { 200: Envelope(Project) } },
    handler: async (req, reply) => {
      // Nothing of the project may run on once it is gone: its virtual datapoints (and later
      // setpoints, alerts, apps) are stopped before the catalog forgets it.
      await onProjectDeleting?.(req.project.id)
      // Datapoints go first, in steps with the event loop free in between (a project may hold
      // 100,000 and more; one cascading DELETE would hold the loop for seconds); the project
      // row and the rest of its metadata go last, by cascade.
      const series: number[] = []
      for (;;) {
        const ids = await catalog.datapoints.removeSomeOfProject(req.project.id, DELETE_STEP)
        for (const id of ids) series.push(id)
        if (ids.length < DELETE_STEP) break
        await yieldToLoop()
      }
      for (const id of await catalog.datapoints.idsOfProject(req.project.id)) series.push(id) // made meanwhile
      const project = await catalog.projects.delete(req.project.id)
      onProjectDeleted?.(project.id)
      // The catalog no longer names these series, so a failure here leaves only unreachable data.
      if (series.length > 0) await store.deleteSeries(series)
      return deleted(reply, project)
    },
  })
}
