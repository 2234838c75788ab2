// Setpoints (spec 2 "Setpoints" endpoints; issue 11 item 1): write bounds, the write request,
// the operation, and the audit trail of a datapoint. The operation itself runs in
// engine/setpoints/service.ts; this plugin applies the safeguards in the spec's order
// (api/setpoint-safeguards.ts, shared with Haystack's pointWrite):
//   (0) authentication, the project within the caller's company and the endpoint grant: the
//       access hooks, before anything else, so that nobody outside learns a project's settings
//   (1) the project is enabled for setpoint writing, and the priority is not more urgent than
//       the project's maximum (default 8, the manual operator level; the operator tool unlocks)
//   (2) the caller's role gives write access on the datapoint (TagAuth of this endpoint)
//   (3) the datapoint is `writable` (tag writable=true from its metadata) and has both bounds,
//       and the value lies within them
//   (4) dry run and acknowledgement are options of the write (the edge answers them)
// `writable` is shown with the bounds (PUT /v2/datapoint, and the audit list). Without a setpoint
// service (a process without the broker) the reads work and writes are refused with 503.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError, NotFoundError, OverloadedError } from '../../core/errors.ts'
import type { SetpointOperation } from '../../catalog/setpoints.ts'
import type { SetpointService } from '../../engine/setpoints/service.ts'
import type { RouteContext } from '../route-context.ts'
import { updated } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { checkSetpointWrite, isWritable } from '../setpoint-safeguards.ts'
import { Envelope, Id } from '../schemas.ts'

const Ident = Type.String({ minLength: 1, maxLength: 1000 })
const Bounds = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), dataPointID: Type.String(), hash_id: Type.String(),
  setpoint_min_value: Type.Number(), setpoint_max_value: Type.Number(), writable: Type.Boolean(),
})
const Value = Type.Union([Type.Number(), Type.Null()])
const Accepted = Type.Object({
  acked: Type.Boolean(), dataPointID: Type.String(), dryrun: Type.Boolean(), priority: Type.Integer(), value: Value,
  project_id: Type.Optional(Type.Integer()), reference: Type.Optional(Type.String()),
})
const Operation = Type.Object({
  dataPointID: Type.String(), log: Type.String(), old_value: Type.Union([Type.String(), Type.Null()]), priority: Type.Integer(),
  project_id: Type.Integer(), reference: Type.String(), status: Type.String(), value: Value,
})
const AuditEntry = Type.Object({
  reference: Type.String(), requested_by: Type.String(), time: Type.String(), value: Value, priority: Type.Integer(),
  acked: Type.Boolean(), dryrun: Type.Boolean(), keep_out_of_service: Type.Boolean(), status: Type.String(),
  result: Type.String(), old_value: Type.Union([Type.String(), Type.Null()]),
})

export { isWritable }

/** The query's `value`: a number, or the text null (releases the priority). */
function parseValue(raw: string): number | null {
  if (raw.trim().toLowerCase() === 'null') return null
  const v = Number(raw)
  if (raw.trim() === '' || !Number.isFinite(v)) throw new InvalidInputError(`value must be a number or null, got '${raw}'`)
  return v
}

export const setpointRoutes: FastifyPluginAsync<RouteContext & { setpoints?: SetpointService }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, setpoints: service } = ctx
  const access = new DatapointAccess(catalog)

  app.route({
    ...at(140),
    schema: {
      querystring: Type.Object({ project_id: Id, dataPointID: Ident }, { additionalProperties: false }),
      body: Type.Object({ setpoint_min_value: Type.Number(), setpoint_max_value: Type.Number() }, { additionalProperties: false }),
      response: { 200: Envelope(Bounds) },
    },
    handler: async (req, reply) => {
      const pid = req.project.id
      const { dataPointID } = req.query
      await access.require(req, 140, dataPointID, 'write')
      const dp = await catalog.datapoints.get(pid, dataPointID)
      const b = await catalog.setpoints.setBounds(pid, dataPointID, req.body)
      return updated(reply, { id: dp.id, project_id: pid, dataPointID, hash_id: dp.hash_id, ...b, writable: isWritable(dp.tags) })
    },
  })

  app.route({
    ...at(141),
    schema: {
      querystring: Type.Object({
        project_id: Id, dataPointID: Ident, value: Type.String({ minLength: 1, maxLength: 64 }),
        // Optional with their defaults (spec 2: priority default 13), so OpenAPI does not mark them required.
        priority: Type.Optional(Type.Integer({ minimum: 1, maximum: 16, default: 13 })),
        acked: Type.Optional(Type.Boolean({ default: false })), dryrun: Type.Optional(Type.Boolean({ default: false })),
        keep_out_of_service: Type.Optional(Type.Boolean({ default: false })),
      }, { additionalProperties: false }),
      response: { 200: Envelope(Accepted) },
    },
    handler: async (req, reply) => {
      const pid = req.project.id
      const { priority = 13, acked = false, dryrun = false, keep_out_of_service: keepOutOfService = false } = req.query
      const q = { ...req.query, priority, acked, dryrun, keep_out_of_service: keepOutOfService }
      const value = parseValue(q.value)
      await checkSetpointWrite(catalog, pid, q.dataPointID, value, q.priority, () => access.require(req, 141, q.dataPointID, 'write'))
      // Only a process that runs the broker can reach the edge (the embedded default does).
      if (!service) throw new OverloadedError('Setpoint writing is not available in this process: it needs the MQTT broker (LINTEL_ROLES with api and broker)')
      const op = await service.request({
        projectId: pid, dataPointID: q.dataPointID, value, priority: q.priority, acked: q.acked, dryrun: q.dryrun,
        keepOutOfService: q.keep_out_of_service, requestedBy: req.caller.user.email,
      })
      const resource = { acked: q.acked, dataPointID: q.dataPointID, dryrun: q.dryrun, priority: q.priority, value }
      return reply.code(200).send({ success: true, operation: 'create', resource: q.acked ? { ...resource, project_id: pid, reference: op.reference } : resource })
    },
  })

  /** The operation read while resolving the project (onRequest), reused by the handler. */
  const found = new WeakMap<FastifyRequest, SetpointOperation>()
  const notFound = (reference: string) => new NotFoundError(`Setpoint operation '${reference}' not found`)
  app.route({
    ...at(142),
    schema: {
      params: Type.Object({ reference: Type.String({ minLength: 1, maxLength: 100 }) }),
      querystring: Type.Object({ project_id: Type.Optional(Id) }, { additionalProperties: false }),
      response: { 200: Operation },
    },
    // The path names no project: the access hooks check the grant in the operation's project.
    onRequest: async (req) => {
      const q = req.query as Record<string, unknown>
      if (q.project_id !== undefined) return
      const op = await catalog.setpoints.find((req.params as { reference: string }).reference)
      if (!op) throw notFound((req.params as { reference: string }).reference)
      q.project_id = String(op.project_id)
      found.set(req, op)
    },
    handler: async (req) => {
      const op = found.get(req) ?? await catalog.setpoints.find(req.params.reference)
      if (!op || op.project_id !== req.project.id) throw notFound(req.params.reference)
      await access.assertVisible(req, 142, [op.dataPointID], () => notFound(req.params.reference))
      return {
        dataPointID: op.dataPointID, log: JSON.stringify(op.log), old_value: op.old_value, priority: op.priority,
        project_id: op.project_id, reference: op.reference, status: op.status, value: op.value,
      }
    },
  })

  const audit = (op: SetpointOperation) => ({
    reference: op.reference, requested_by: op.requested_by, time: new Date(op.created_at).toISOString(), value: op.value, priority: op.priority,
    acked: op.acked, dryrun: op.dryrun, keep_out_of_service: op.keep_out_of_service, status: op.status,
    result: op.log[op.log.length - 1]?.msg ?? '', old_value: op.old_value,
  })
  app.route({
    ...at(143),
    schema: {
      querystring: Type.Object({ project_id: Id, dataPointID: Ident, limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 100 })) }, { additionalProperties: false }),
      response: { 200: Type.Object({ dataPointID: Type.String(), writable: Type.Boolean(), setpoint_min_value: Type.Union([Type.Number(), Type.Null()]), setpoint_max_value: Type.Union([Type.Number(), Type.Null()]), operations: Type.Array(AuditEntry) }) },
    },
    handler: async (req) => {
      const pid = req.project.id
      const { dataPointID, limit = 100 } = req.query
      const dp = await access.readable(req, 143, dataPointID)
      const b = await catalog.setpoints.bounds(pid, dataPointID)
      return {
        dataPointID, writable: isWritable(dp.tags), setpoint_min_value: b?.setpoint_min_value ?? null, setpoint_max_value: b?.setpoint_max_value ?? null,
        operations: (await catalog.setpoints.listByDatapoint(pid, dataPointID, limit)).map(audit),
      }
    },
  })
}
