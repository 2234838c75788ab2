// The caller's own record (access rules 1 and 8): no grant needed, only the caller changes.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { RouteContext } from '../app.ts'
import { deleted, updated } from '../envelope.ts'
import { at } from '../registry.ts'
import { Email, Envelope, Password, PersonName, Project, Role, User } from '../schemas.ts'

export const userRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(1),
    schema: { response: { 200: Type.Object({ user: User, roles: Type.Array(Role), companyroles: Type.Array(Role) }) } },
    handler: async (req) => {
      const roles = catalog.roles.rolesOfUser(req.caller.user.id)
      return {
        user: req.caller.user,
        roles: roles.filter((r) => r.project_id !== undefined),
        companyroles: roles.filter((r) => r.project_id === undefined),
      }
    },
  })
  app.route({
    ...at(2),
    schema: {
      body: Type.Object({
        firstName: Type.Optional(PersonName), lastName: Type.Optional(PersonName), email: Type.Optional(Email), password: Type.Optional(Password),
      }, { additionalProperties: false }),
      response: { 200: Envelope(User) },
    },
    handler: async (req, reply) => updated(reply, catalog.users.update(req.caller.user.id, req.body)),
  })
  app.route({
    ...at(3),
    schema: { response: { 200: Envelope(User) } },
    handler: async (req, reply) => deleted(reply, catalog.users.delete(req.caller.user.id)),
  })
  app.route({
    ...at(4),
    schema: { response: { 200: Type.Array(Project) } },
    handler: async (req) => {
      const { user } = req.caller
      return req.permissions.hasCompanyRole
        ? catalog.projects.listByCompany(user.company_id)
        : catalog.projects.listByIds(req.permissions.projectIds())
    },
  })
}
