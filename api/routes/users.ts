// The caller's own record (access rules 1 and 8): no grant needed, only the caller changes.
// Changing the email or the password needs `current_password`, the account's password, with
// Basic and bearer callers alike (issue 9, item 5): a stolen token or an open session cannot
// take the account over. A wrong current_password counts as a failed login (throttled). A new
// password revokes every bearer token of the user, including the one of this call.
// Deleting one's own user (endpoint 3) needs HTTP Basic credentials (issue 29): a bearer
// token alone answers 403, as minting tokens does, so a stolen token cannot end the account.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ForbiddenError, InvalidInputError } from '../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { deleted, updated } from '../envelope.ts'
import { at } from '../registry.ts'
import { Email, Envelope, Password, PersonName, Project, Role, User } from '../schemas.ts'

export const userRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog, auth }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(1),
    schema: { response: { 200: Type.Object({ user: User, roles: Type.Array(Role), companyroles: Type.Array(Role) }) } },
    handler: async (req) => {
      const roles = await catalog.roles.rolesOfUser(req.caller.user.id)
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
        current_password: Type.Optional(Type.String({ maxLength: 1024 })),
      }, { additionalProperties: false }),
      response: { 200: Envelope(User) },
    },
    handler: async (req, reply) => {
      const { current_password: current, ...change } = req.body
      const me = req.caller.user
      const emailChanges = change.email !== undefined && change.email !== me.email
      if (emailChanges || change.password !== undefined) {
        const what = [emailChanges && 'email', change.password !== undefined && 'password'].filter(Boolean).join(' and ')
        if (current === undefined) throw new InvalidInputError(`Changing the ${what} needs current_password: the current password of this account`)
        await auth.confirmPassword(me, current, req.ip)
      }
      const update = () => catalog.users.update(me.id, change)
      return updated(reply, await (emailChanges ? auth.probes.guard(me.company_id, 'user emails', update) : update()))
    },
  })
  app.route({
    ...at(3),
    schema: { response: { 200: Envelope(User) } },
    handler: async (req, reply) => {
      if (req.caller.token !== undefined) throw new ForbiddenError('A bearer token cannot delete its user: call DELETE /v2/user with HTTP Basic credentials (email and password)')
      return deleted(reply, await catalog.users.delete(req.caller.user.id))
    },
  })
  app.route({
    ...at(4),
    schema: { response: { 200: Type.Array(Project) } },
    handler: async (req) => {
      const { user } = req.caller
      return req.permissions.hasCompanyRole
        ? await catalog.projects.listByCompany(user.company_id)
        : await catalog.projects.listByIds(req.permissions.projectIds())
    },
  })
}
