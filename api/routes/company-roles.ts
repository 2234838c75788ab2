// Company roles: they apply to every project of the company, also later ones (rule 4), and
// reach all datapoints, so they carry endpoint grants only, no TagAuths. Each endpoint of a
// company role is the pair (endpoint, all datapoints): only the caller's company roles hold
// such pairs, so only they let the caller grant them (rule 3, api/permissions.ts).
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError } from '../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted, updated } from '../envelope.ts'
import { validateRoleEndpoints } from '../permissions.ts'
import { at } from '../registry.ts'
import { Envelope, Id, Role, RoleBody, RoleParams, RoleUpdateBody } from '../schemas.ts'

const Assignment = Type.Object({ role_id: Type.Integer(), user_id: Type.Integer() })

function noTags(tags: unknown[] | undefined): void {
  if (tags && tags.length > 0) throw new InvalidInputError('Company roles reach all datapoints; TagAuths belong on project roles')
}

export const companyRoleRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { roles } = catalog

  app.route({
    ...at(14),
    schema: { response: { 200: Type.Array(Role) } },
    handler: async (req) => await roles.listCompanyRoles(req.caller.user.company_id),
  })
  app.route({
    ...at(15),
    schema: { body: RoleBody, response: { 201: Envelope(Role) } },
    handler: async (req, reply) => {
      const eps = req.body.authed_endpoints ?? []
      noTags(req.body.authed_tags)
      validateRoleEndpoints(eps, false)
      req.permissions.assertCanGrant({ authed_endpoints: eps, authed_tags: [] }, null)
      return created(reply, await roles.create(req.caller.user.company_id, null, req.body))
    },
  })
  app.route({
    ...at(16),
    schema: { params: RoleParams, response: { 200: Role } },
    handler: async (req) => await roles.getScoped(req.params.role_id, req.caller.user.company_id, null),
  })
  app.route({
    ...at(17),
    schema: { params: RoleParams, body: RoleUpdateBody, response: { 200: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.caller.user.company_id, null)
      noTags(req.body.authed_tags)
      req.permissions.assertCanHandle(role, 'change')
      if (req.body.authed_endpoints) validateRoleEndpoints(req.body.authed_endpoints, false)
      req.permissions.assertCanGrant({ authed_endpoints: req.body.authed_endpoints ?? role.authed_endpoints, authed_tags: [] }, null)
      return updated(reply, await roles.update(role.id, req.body))
    },
  })
  app.route({
    ...at(18),
    schema: { params: RoleParams, response: { 200: Envelope(Role) } },
    handler: async (req, reply) => {
      const role = await roles.getScoped(req.params.role_id, req.caller.user.company_id, null)
      req.permissions.assertCanHandle(role, 'delete')
      return deleted(reply, await roles.delete(role.id))
    },
  })
  for (const no of [19, 20]) {
    app.route({
      ...at(no),
      schema: { params: Type.Object({ role_id: Id, user_id: Id }), response: { [no === 19 ? 201 : 200]: Envelope(Assignment) } },
      handler: async (req, reply) => {
        const { company_id: companyId } = req.caller.user
        const role = await roles.getScoped(req.params.role_id, companyId, null)
        const user = await catalog.users.getInCompany(req.params.user_id, companyId)
        // Rule 3: assigning grants every pair of the role; only what the caller holds itself.
        req.permissions.assertCanHandle(role, no === 19 ? 'assign' : 'unassign')
        const resource = { role_id: role.id, user_id: user.id }
        if (no === 19) {
          await roles.assign(user.id, role.id)
          return created(reply, resource)
        }
        await roles.unassign(user.id, role.id)
        return deleted(reply, resource)
      },
    })
  }
}
