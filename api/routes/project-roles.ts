// Project roles: grants of Project-scoped endpoints (never Company ones, rule 4) and TagAuths
// naming the datapoints they reach (rule 5). Each endpoint of a role is paired with all of
// the role's TagAuths; every change is checked on the role as it will be, pair by pair,
// against the caller's own pairs (rule 3, api/permissions.ts). Changing, deleting, assigning
// or unassigning a role needs the caller to hold every pair of the role as it is.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, updated } from '../envelope.ts'
import { validateRoleEndpoints } from '../permissions.ts'
import { at } from '../registry.ts'
import { Envelope, Id, ProjectParams, ProjectRoleParams, Role, RoleBody, RoleUpdateBody, TagAuthInput } from '../schemas.ts'

const Assignment = Type.Object({ role_id: Type.Integer(), user_id: Type.Integer() })

export const projectRoleRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { roles } = catalog

  app.route({
    ...at(33),
    schema: { params: ProjectParams, response: { 200: Type.Array(Role) } },
    handler: async (req) => await roles.listProjectRoles(req.project.id),
  })
  app.route({
    ...at(34),
    schema: { params: ProjectParams, body: RoleBody, response: { 201: Envelope(Role) } },
    handler: async (req, reply) => {
      const grant = { authed_endpoints: req.body.authed_endpoints ?? [], authed_tags: req.body.authed_tags ?? [] }
      validateRoleEndpoints(grant.authed_endpoints, true)
      req.permissions.assertCanGrant(grant, req.project.id)
      return created(reply, await roles.create(req.project.company_id, req.project.id, req.body))
    },
  })
  app.route({
    ...at(35),
    schema: { params: ProjectRoleParams, response: { 200: Role } },
    handler: async (req) => await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id),
  })
  app.route({
    ...at(36),
    schema: { params: ProjectRoleParams, body: RoleUpdateBody, response: { 200: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id)
      req.permissions.assertCanHandle(role, 'change')
      if (req.body.authed_endpoints) validateRoleEndpoints(req.body.authed_endpoints, true)
      // The role as it will be: new endpoints pair with the kept TagAuths and vice versa.
      const grant = { authed_endpoints: req.body.authed_endpoints ?? role.authed_endpoints, authed_tags: req.body.authed_tags ?? role.authed_tags }
      req.permissions.assertCanGrant(grant, req.project.id)
      return updated(reply, await roles.update(role.id, req.body))
    },
  })
  app.route({
    ...at(37),
    schema: { params: ProjectRoleParams, response: { 200: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id)
      req.permissions.assertCanHandle(role, 'delete')
      return deleted(reply, await roles.delete(role.id))
    },
  })
  app.route({
    ...at(38),
    schema: { params: ProjectRoleParams, body: TagAuthInput, response: { 201: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id)
      req.permissions.assertCanHandle(role, 'change')
      // The new TagAuth pairs with every endpoint the role grants.
      req.permissions.assertCanGrant({ authed_endpoints: role.authed_endpoints, authed_tags: [req.body] }, req.project.id)
      return created(reply, await roles.addTagAuth(role.id, req.body))
    },
  })
  app.route({
    ...at(39),
    schema: { params: Type.Object({ project_id: Id, role_id: Id, tagauth_id: Id }), response: { 200: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id)
      req.permissions.assertCanHandle(role, 'change')
      return deleted(reply, await roles.removeTagAuth(role.id, req.params.tagauth_id))
    },
  })
  for (const no of [40, 41]) {
    app.route({
      ...at(no),
      schema: { params: Type.Object({ project_id: Id, role_id: Id, user_id: Id }), response: { [no === 40 ? 201 : 200]: Envelope(Assignment) } },
      handler: async (req, reply) => {
        const role = await roles.getScoped(req.params.role_id, req.project.company_id, req.project.id)
        const user = await catalog.users.getInCompany(req.params.user_id, req.project.company_id)
        req.permissions.assertCanHandle(role, no === 40 ? 'assign' : 'unassign')
        const resource = { role_id: role.id, user_id: user.id }
        if (no === 40) {
          await roles.assign(user.id, role.id)
          return created(reply, resource)
        }
        await roles.unassign(user.id, role.id)
        return deleted(reply, resource)
      },
    })
  }
}
