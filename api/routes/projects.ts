// A project: read it with the datapoints the caller may read, change it, delete it (rule 9).
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { RouteContext } from '../app.ts'
import { deleted, updated } from '../envelope.ts'
import { canAccessDatapoint } from '../permissions.ts'
import { Device, visibleDevices } from '../project-devices.ts'
import { at } from '../registry.ts'
import { Datapoint, Description, Envelope, Name, Project, ProjectParams } from '../schemas.ts'

/** A project with the settings of its MQTT interface (operator-assigned) and of sampling. */
const ProjectDetail = Type.Composite([Project, Type.Object({
  load_balancing_group: Type.String(), project_handle: Type.String(), hash_id_length: Type.Integer(), sampling_n: Type.Integer(),
})])

export const projectRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog, store, onProjectDeleted }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(30),
    schema: { params: ProjectParams, response: { 200: Type.Object({ project: ProjectDetail, datapoints: Type.Array(Datapoint), devices: Type.Array(Device) }) } },
    handler: async (req) => {
      const filter = req.permissions.datapointFilter(30, req.project.id)
      const datapoints = catalog.datapoints.listByProject(req.project.id).filter((dp) => canAccessDatapoint(filter, dp, 'read'))
      return { project: catalog.projects.settings(req.project.id), datapoints, devices: visibleDevices(catalog, req.project.id, filter) }
    },
  })
  app.route({
    ...at(31),
    schema: {
      params: ProjectParams,
      body: Type.Object({ name: Type.Optional(Name), description: Type.Optional(Description) }, { additionalProperties: false }),
      response: { 200: Envelope(Project) },
    },
    handler: async (req, reply) => updated(reply, catalog.projects.update(req.project.id, req.body)),
  })
  app.route({
    ...at(32),
    schema: { params: ProjectParams, response: { 200: Envelope(Project) } },
    handler: async (req, reply) => {
      const series = catalog.datapoints.idsOfProject(req.project.id)
      const project = catalog.projects.delete(req.project.id)
      onProjectDeleted?.(project.id)
      // The catalog no longer names these series, so a failure here leaves only unreachable data.
      if (series.length > 0) await store.deleteSeries(series)
      return deleted(reply, project)
    },
  })
}
