// Short-lived MQTT accounts (spec 1 "MQTT accounts"): validity at most 7200 s, rights read or
// write (write implies read), unique usernames, passwords never returned. Deleting or
// expiring an account ends its live connections (the broker listens to `onRevoked`).
//
// Reach (issue 9, item 4; DESIGN.md "MQTT accounts"): an account carries the datapoint
// filters its creator holds in the project for the ingest endpoint (50, what it may write)
// and the read endpoint (52, what it is forwarded), as a snapshot taken at create (60) and
// at every change (61, then the changer's filters). A snapshot, not a live link: the account
// lives at most 2 hours, and what it may do never depends on later role edits of a user it
// does not name. A write account needs a creator who holds endpoint 50 in the project, a read
// account one who holds 52: otherwise 403, since the account could do nothing.
// Operator-issued accounts (no expiry) are the operator's: they cannot be changed or deleted
// over HTTP (403).
// `edge` (an extension of the spec's account, default false; issue 29 item 3): the project
// designates the account as its edge agent, the only kind whose setpoint answers (SPTACK)
// the broker accepts. Designating one needs write rights and a caller who holds the setpoint
// endpoint (141) in the project: its answers complete that endpoint's writes.
import type { FastifyPluginAsync } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ForbiddenError, InvalidInputError } from '../../core/errors.ts'
import type { MqttAccountRow, MqttReach, MqttRights } from '../../catalog/mqtt-accounts.ts'
import type { ProjectSettings } from '../../catalog/types.ts'
import type { RouteContext } from '../route-context.ts'
import { created, deleted } from '../envelope.ts'
import type { Permissions } from '../permissions.ts'
import { at, endpoint } from '../registry.ts'
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
  edge: Type.Boolean({ description: 'designated edge agent: only such accounts may answer setpoints (SPTACK); an extension of the spec' }),
})
const Edge = Type.Boolean({ description: 'designate the account as the project\'s edge agent (needs write rights and endpoint 141 in the project); default false' })
const AccountParams = Type.Object({ project_id: Id, mqttuser_id: Id })

/** The account as the API shows it: the topic filter it may use, never the password hash. */
export function accountView(a: MqttAccountRow, p: ProjectSettings) {
  return {
    id: a.id, username: a.username, description: a.description, rights: a.rights,
    topics: [{ id: 1, rights: a.rights, topic: `${p.load_balancing_group}/${p.project_handle}/#` }],
    valid_until: a.valid_until === null ? null : new Date(a.valid_until).toISOString(),
    edge: a.edge === 1,
  }
}

const INGEST = 50
const READ = 52

/** The caller's reach in the project, refused when the account's rights would have nothing to act on. */
export function creatorReach(perms: Permissions, projectId: number, rights: MqttRights): MqttReach {
  const reach = { write: perms.datapointFilter(INGEST, projectId), read: perms.datapointFilter(READ, projectId) }
  const holds = (no: number, f: { all: boolean; auths: unknown[] }) => (f.all || f.auths.length > 0) && perms.allowsProject(no, projectId)
  const need = rights === 'write' ? INGEST : READ
  if (!holds(need, rights === 'write' ? reach.write : reach.read)) {
    const x = endpoint(need)
    throw new ForbiddenError(`Cannot give an MQTT account ${rights} rights: you do not hold endpoint ${x.number} - ${x.method} ${x.path} in this project, and an account gets only its creator's reach`)
  }
  return rights === 'write' ? reach : { write: { all: false, auths: [] }, read: reach.read }
}

const SETPOINT = 141

/** Refuses designating an edge agent that could not answer, or by a caller who may not write setpoints. */
export function assertMayDesignateEdge(perms: Permissions, projectId: number, rights: MqttRights): void {
  if (rights !== 'write') throw new InvalidInputError('An edge account needs write rights: it publishes its setpoint answers')
  if (!perms.allowsProject(SETPOINT, projectId)) {
    const x = endpoint(SETPOINT)
    throw new ForbiddenError(`Cannot designate an edge account: you do not hold endpoint ${x.number} - ${x.method} ${x.path} in this project, and an edge account's answers complete setpoint writes`)
  }
}

function assertNotOperatorIssued(a: MqttAccountRow, action: string): void {
  if (a.valid_until === null) {
    throw new ForbiddenError(`Cannot ${action} MQTT account '${a.username}': it was issued by the operator without expiry and can only be changed with the operator tool`)
  }
}

export const mqttAccountRoutes: FastifyPluginAsync<RouteContext & { onRevoked?: (username: string) => void }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const accounts = ctx.catalog.mqttAccounts
  const view = async (a: MqttAccountRow, projectId: number) => accountView(a, await ctx.catalog.projects.settings(projectId))

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
        edge: Type.Optional(Edge),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Account) },
    },
    handler: async (req, reply) => {
      const { validity = DEFAULT_VALIDITY_S, ...rest } = req.body
      const reach = creatorReach(req.permissions, req.project.id, rest.rights ?? 'read')
      if (rest.edge) assertMayDesignateEdge(req.permissions, req.project.id, rest.rights ?? 'read')
      // Usernames are unique across the broker: "already exists" answers are budgeted per company (issue 29).
      const row = await ctx.auth.probes.guard(req.project.company_id, 'MQTT usernames', () => accounts.create(req.project.id, { ...rest, reach, validUntil: Date.now() + validity * 1000 }))
      return created(reply, await view(row, req.project.id))
    },
  })
  app.route({
    ...at(61),
    config: { endpoint: 61, operation: '' },
    schema: {
      params: AccountParams,
      body: Type.Object({
        password: Type.Optional(Password), rights: Type.Optional(Rights), validity: Type.Optional(Validity), description: Type.Optional(Description),
        edge: Type.Optional(Edge),
      }, { additionalProperties: false }),
      response: { 201: Envelope(Account) },
    },
    handler: async (req, reply) => {
      const { validity, ...rest } = req.body
      const cur = await accounts.get(req.project.id, req.params.mqttuser_id)
      assertNotOperatorIssued(cur, 'change')
      const before = (await accounts.findValid(cur.username))?.reach
      const reach = creatorReach(req.permissions, req.project.id, rest.rights ?? cur.rights)
      // Keeping (or making) an edge account: checked against the rights it will have.
      if (rest.edge ?? (cur.edge === 1)) assertMayDesignateEdge(req.permissions, req.project.id, rest.rights ?? cur.rights)
      const row = await accounts.update(req.project.id, req.params.mqttuser_id, {
        ...rest, reach, validUntil: validity === undefined ? undefined : Date.now() + validity * 1000,
      })
      // A password, rights or reach change applies to new connections; end the old ones now.
      if (rest.password !== undefined || rest.rights !== undefined || JSON.stringify(before) !== JSON.stringify(reach)) ctx.onRevoked?.(row.username)
      return reply.code(201).send({ success: true, operation: '', resource: await view(row, req.project.id) })
    },
  })
  app.route({
    ...at(62),
    schema: { params: ProjectParams, response: { 200: Type.Array(Account) } },
    handler: async (req) => Promise.all((await accounts.list(req.project.id)).map((a) => view(a, req.project.id))),
  })
  app.route({
    ...at(63),
    schema: { params: AccountParams, response: { 200: Account } },
    handler: async (req) => view(await accounts.get(req.project.id, req.params.mqttuser_id), req.project.id),
  })
  app.route({
    ...at(64),
    schema: { params: AccountParams, response: { 200: Envelope(Account) } },
    handler: async (req, reply) => {
      assertNotOperatorIssued(await accounts.get(req.project.id, req.params.mqttuser_id), 'delete')
      const row = await accounts.delete(req.project.id, req.params.mqttuser_id)
      ctx.onRevoked?.(row.username)
      return deleted(reply, await view(row, req.project.id))
    },
  })
}
