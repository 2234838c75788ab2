// The caller's company: read it, create projects and users in it (access rules 4, 6, 8).
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { NotFoundError } from '../../core/errors.ts'
import type { RouteContext } from '../route-context.ts'
import { created } from '../envelope.ts'
import { at } from '../registry.ts'
import { Company, Description, Email, Envelope, Id, Name, Password, PersonName, Project, Role, User } from '../schemas.ts'

const NewProject = Type.Object({ name: Name, description: Type.Optional(Description) }, { additionalProperties: false })

export const companyRoutes: FastifyPluginAsync<RouteContext> = async (base, { catalog, auth }) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  app.route({
    ...at(10),
    schema: { response: { 200: Type.Object({ company: Company, projects: Type.Array(Project), users: Type.Array(User) }) } },
    handler: async (req) => {
      const companyId = req.caller.user.company_id
      return {
        company: await catalog.companies.get(companyId),
        projects: await catalog.projects.listByCompany(companyId),
        users: await catalog.users.listByCompany(companyId),
      }
    },
  })
  for (const no of [11, 12]) {
    app.route({
      ...at(no),
      schema: { body: NewProject, response: { 201: Envelope(Type.Object({ project: Project, role: Role })) } },
      handler: async (req, reply) => created(reply, await catalog.projects.create(req.caller.user.company_id, req.body, req.caller.user.id)),
    })
  }
  app.route({
    ...at(13),
    schema: {
      body: Type.Object({ company_id: Id, firstName: PersonName, lastName: PersonName, email: Email, password: Password }, { additionalProperties: false }),
      response: { 201: Envelope(User) },
    },
    handler: async (req, reply) => {
      const { company_id: companyId, ...fields } = req.body
      // The new user joins the creator's company; other companies do not exist for the caller.
      if (companyId !== req.caller.user.company_id) throw new NotFoundError(`Company ${companyId} not found`)
      // Emails are unique across companies: "already exists" answers are budgeted (issue 29).
      return created(reply, await auth.probes.guard(companyId, 'user emails', () => catalog.users.create(companyId, fields)))
    },
  })
}
