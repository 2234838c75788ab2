// Short-lived MQTT accounts (spec 1 "MQTT accounts"): validity at most 7200 s, rights read or
// write (write implies read), unique usernames, passwords never returned. Deleting or
// expiring an account ends its live connections (the broker listens to `onRevoked`).
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { MqttAccountRow } from '../../catalog/mqtt-accounts.ts'
import type { ProjectSettings } from '../../catalog/types.ts'
import type { RouteContext } from '../app.ts'
import { created, deleted } from '../envelope.ts'
import { at } from '../registry.ts'
import { Description, Envelope, Id, ProjectParams } from '../schemas.ts'

export const MAX_VALIDITY_S = 7200
export const DEFAULT_VALIDITY_S = 3600

const Rights = Type.Union([Type.Literal('read'), Type.Literal('write')])
const Validity = Type.Integer({ minimum: 1, maximum: MAX_VALIDITY_S, description: 'seconds until expiry, at most 7200' })
const Password = Type.String({ minLength: 8, maxLength: 256 })
const Account = Type.Object({
  id: Type.Integer(),
  username: Type.String(),
  description: Type.String(),
  rights: Rights,
  topics: Type.Array(Type.Object({ id: Type.Integer(), rights: Rights, topic: Type.String() })),
  valid_until: Type.Union([Type.String(), Type.Null()]),
})
const AccountParams = Type.Object({ project_id: Id, mqttuser_id: Id })

/** The account as the API shows it: the topic filter it may use, never the password hash. */
export function accountView(a: MqttAccountRow, p: ProjectSettings) {
  return {
    id: a.id, username: a.username, description: a.description, rights: a.rights,
    topics: [{ id: 1, rights: a.rights, topic: `${p.load_balancing_group}/${p.project_handle}/#` }],
    valid_until: a.valid_until === null ? null : new Date(a.valid_until).toISOString(),
  }
}

export const mqttAccountRoutes: FastifyPluginAsync<RouteContext & { onRevoked?: (username: string) => void }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const accounts = ctx.catalog.mqttAccounts
  const view = (a: MqttAccountRow, projectId: number) => accountView(a, ctx.catalog.projects.settings(projectId))

  app.route({
    ...at(60),
    schema: {
      params: ProjectParams,
      body: Type.Object({
        username: Type.String({ minLength: 1, maxLength: 128, pattern: '^[^\\s:]+$' }),
        password: Password,
        rights: Type.Optional(Rights),
        validity: Type.Optional(Validity),
        description: Type.Optional(Description),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Account) },
    },
    handler: async (req, reply) => {
      const { validity = DEFAULT_VALIDITY_S, ...rest } = req.body
      const row = accounts.create(req.project.id, { ...rest, validUntil: Date.now() + validity * 1000 })
      return created(reply, view(row, req.project.id))
    },
  })
  app.route({
    ...at(61),
    config: { endpoint: 61, operation: '' },
    schema: {
      params: AccountParams,
      body: Type.Object({
        password: Type.Optional(Password), rights: Type.Optional(Rights), validity: Type.Optional(Validity), description: Type.Optional(Description),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Account) },
    },
    handler: async (req, reply) => {
      const { validity, ...rest } = req.body
      const row = accounts.update(req.project.id, req.params.mqttuser_id, {
        ...rest, validUntil: validity === undefined ? undefined : Date.now() + validity * 1000,
      })
      // A password or rights change applies to new connections; end the old ones now.
      if (rest.password !== undefined || rest.rights !== undefined) ctx.onRevoked?.(row.username)
      return reply.code(201).send({ success: true, operation: '', resource: view(row, req.project.id) })
    },
  })
  app.route({
    ...at(62),
    schema: { params: ProjectParams, response: { 200: Type.Array(Account) } },
    handler: async (req) => accounts.list(req.project.id).map((a) => view(a, req.project.id)),
  })
  app.route({
    ...at(63),
    schema: { params: AccountParams, response: { 200: Account } },
    handler: async (req) => view(accounts.get(req.project.id, req.params.mqttuser_id), req.project.id),
  })
  app.route({
    ...at(64),
    schema: { params: AccountParams, response: { 200: Envelope(Account) } },
    handler: async (req, reply) => {
      const row = accounts.delete(req.project.id, req.params.mqttuser_id)
      ctx.onRevoked?.(row.username)
      return deleted(reply, view(row, req.project.id))
    },
  })
}
