// The endpoint list (for authenticated users), the OpenAPI document and a health probe.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { RouteContext } from '../route-context.ts'
import { at, endpoints } from '../registry.ts'

export const metaRoutes: FastifyPluginAsync<RouteContext> = async (app, ctx) => {
  app.route({
    ...at(5),
    schema: {
      response: {
        200: Type.Array(Type.Object({
          number: Type.Integer(), method: Type.String(), path: Type.String(), scope: Type.String(), summary: Type.String(),
        })),
      },
    },
    handler: async () => endpoints,
  })
  app.route({
    ...at(8),
    schema: { response: { 200: Type.Record(Type.String(), Type.Number()) } },
    // The caller's company only (issue 9, item 9): counters of its own projects. The whole
    // process is the operator's (`npx lintel metrics`, server/metrics-snapshot.ts).
    handler: async (req) => ctx.metrics?.((await ctx.catalog.projects.listByCompany(req.caller.user.company_id)).map((p) => p.id)) ?? {},
  })
  app.get('/v2/openapi.json', { schema: { hide: true } }, async () => app.swagger())
  app.get('/v2/health', { schema: { hide: true } }, async () => ({ status: 'ok' }))
}
