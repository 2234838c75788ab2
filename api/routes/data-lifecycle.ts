// The data lifecycle over HTTP (issue 34 item 2): deleting a range of observations (220), the
// audit of deletions (221), deleting a datapoint (222), and the retention of a project (223,
// 224; applied in the background by engine/retention/). Deletions are recorded in the catalog
// with who and when, and logged.
//
// TagAuths, as the access resolver words them (api/datapoint-access.ts): an unknown or
// unreadable datapoint answers 404; a readable one the caller may not write, 403
// `No write access to datapoint '<id>'`. Bad ranges answer 400 before anything changes.
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { ConflictError, InvalidInputError } from '../../core/errors.ts'
import { formatTimestamp, parseTimestamp } from '../../core/timestamp.ts'
import { formatRetention, parseRetention, RETENTION_PARTS, type DeletionRecord, type Retention } from '../../catalog/lifecycle.ts'
import type { Datapoint } from '../../catalog/types.ts'
import { parseVdpConfig } from '../../engine/vdp/config.ts'
import type { RouteContext } from '../route-context.ts'
import { deleted, done, updated } from '../envelope.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id, ProjectParams } from '../schemas.ts'
import type { AlertRunner } from './alerts.ts'

const Ident = Type.String({ minLength: 1, maxLength: 1000 })
const Time = Type.String({ minLength: 1, maxLength: 64, description: 'RFC 3339' })
const Deletion = Type.Object({
  id: Type.Integer(), project_id: Type.Integer(), dataPointID: Type.String(), kind: Type.Union([Type.Literal('range'), Type.Literal('datapoint')]),
  start: Type.Union([Type.String(), Type.Null()]), end: Type.Union([Type.String(), Type.Null()]), deleted_by: Type.String(), time: Type.String(),
})
const RetentionValue = Type.Union([Type.String({ maxLength: 16 }), Type.Null()])
const RetentionBody = Type.Object(Object.fromEntries(RETENTION_PARTS.map((p) => [p, Type.Optional(RetentionValue)])), { additionalProperties: false })
const RetentionView = Type.Object({
  project_id: Type.Integer(),
  ...Object.fromEntries(RETENTION_PARTS.map((p) => [p, RetentionValue])),
  ...Object.fromEntries(RETENTION_PARTS.map((p) => [`${p}_seconds`, Type.Union([Type.Integer(), Type.Null()])])),
})

const view = (d: DeletionRecord) => ({
  id: d.id, project_id: d.project_id, dataPointID: d.dataPointID, kind: d.kind,
  start: d.start === null ? null : formatTimestamp(d.start), end: d.end === null ? null : formatTimestamp(d.end),
  deleted_by: d.actor, time: formatTimestamp(d.at),
})
const retentionView = (projectId: number, r: Retention) => ({
  project_id: projectId,
  ...Object.fromEntries(RETENTION_PARTS.map((p) => [p, formatRetention(r[p])])),
  ...Object.fromEntries(RETENTION_PARTS.map((p) => [`${p}_seconds`, r[p]])),
})

function time(name: string, text: string): number {
  const t = parseTimestamp(text)
  if (t === undefined) throw new InvalidInputError(`Cannot parse ${name} '${text}': use an RFC 3339 timestamp`)
  return t
}

export const dataLifecycleRoutes: FastifyPluginAsync<RouteContext & { alertRunner?: Pick<AlertRunner, 'stop'>; now?: () => number }> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, store } = ctx
  const access = new DatapointAccess(catalog)
  const now = ctx.now ?? (() => Date.now() * 1000)

  /** The datapoint a request deletes from: 404 unless readable, 403 unless writable, through `no`. */
  const writable = async (req: FastifyRequest, no: number, dataPointID: string): Promise<Datapoint> => {
    const dp = await access.readable(req, no, dataPointID)
    await access.require(req, no, dataPointID, 'write')
    return dp
  }

  app.route({
    ...at(220),
    schema: {
      querystring: Type.Object({ project_id: Id, dataPointID: Ident, start: Time, end: Time }, { additionalProperties: false }),
      response: { 200: Envelope(Deletion) },
    },
    handler: async (req, reply) => {
      const q = req.query
      const start = time('start', q.start)
      const end = time('end', q.end)
      if (start >= end) throw new InvalidInputError(`start (${q.start}) must be before end (${q.end}): the range [start, end) is empty`)
      const dp = await writable(req, 220, q.dataPointID)
      await store.replaceRange(dp.id, start, end, [])
      const d = await catalog.lifecycle.recordDeletion({ project_id: req.project.id, dataPointID: dp.dataPointID, kind: 'range', start, end, actor: req.caller.user.email, at: now() })
      req.log.info({ deletion: d.id, project_id: d.project_id, dataPointID: d.dataPointID, start: q.start, end: q.end, by: d.actor }, 'observations deleted')
      return deleted(reply, view(d))
    },
  })

  app.route({
    ...at(221),
    schema: {
      params: ProjectParams,
      querystring: Type.Object({ limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000 })), before: Type.Optional(Id) }, { additionalProperties: false }),
      response: { 200: Type.Object({ data: Type.Array(Deletion) }) },
    },
    handler: async (req) => {
      // Entries of datapoints the caller cannot read (as they are now, or as a deleted one without tags) are left out.
      const reads = access.test(req, 221, 'read')
      const list = await catalog.lifecycle.deletions(req.project.id, { limit: req.query.limit ?? 100, before: req.query.before })
      const data = []
      for (const d of list) if (reads.all || reads(await access.known(req.project.id, d.dataPointID))) data.push(view(d))
      return { data }
    },
  })

  app.route({
    ...at(222),
    schema: {
      querystring: Type.Object({ project_id: Id, dataPointID: Ident }, { additionalProperties: false }),
      response: { 200: Envelope(Type.Object({ id: Type.Integer(), project_id: Type.Integer(), dataPointID: Type.String(), hash_id: Type.String(), deletion: Deletion })) },
    },
    handler: async (req, reply) => {
      const pid = req.project.id
      const dp = await writable(req, 222, req.query.dataPointID)
      const users = await usersOf(pid, dp.dataPointID)
      if (users.length > 0) throw new ConflictError(`Datapoint '${dp.dataPointID}' is used by ${users.join(', ')}: delete or change them first`, 'DATAPOINT_IN_USE')
      // Its alerts stop before the catalog forgets them (the removal announces it to every process).
      for (const a of (await catalog.alerts.listByProject(pid)).filter((a) => a.datapoint === dp.id)) {
        await ctx.alertRunner?.stop(a.id)
        await catalog.alerts.remove(a.id)
      }
      // Tags, favorites, pin mappings and write bounds go with it (catalog cascade); then its series.
      await catalog.datapoints.remove([dp.id])
      await store.deleteSeries([dp.id])
      const d = await catalog.lifecycle.recordDeletion({ project_id: pid, dataPointID: dp.dataPointID, kind: 'datapoint', start: null, end: null, actor: req.caller.user.email, at: now() })
      req.log.info({ deletion: d.id, project_id: pid, dataPointID: dp.dataPointID, by: d.actor }, 'datapoint deleted')
      return deleted(reply, { id: dp.id, project_id: pid, dataPointID: dp.dataPointID, hash_id: dp.hash_id, deletion: view(d) })
    },
  })

  /** What uses the datapoint: virtual datapoints reading it or writing it, controls apps writing it. */
  async function usersOf(projectId: number, dataPointID: string): Promise<string[]> {
    const out: string[] = []
    for (const v of await catalog.virtualDatapoints.listByProject(projectId)) {
      let inputs: string[] = []
      try { inputs = parseVdpConfig(v.type, { pins: v.pins, parameters: v.parameters }).pins.map((p) => p.dataPointID) } catch { /* does not run */ }
      if (v.dataPointID === dataPointID || inputs.includes(dataPointID)) out.push(`virtual datapoint '${v.dataPointID}'`)
    }
    for (const a of await catalog.controlsApps.listByProject(projectId)) {
      if (Object.values(a.pins).includes(dataPointID)) out.push(`controls app '${a.name}' (${a.id})`)
    }
    return out
  }

  const retentionParams = Type.Object({ project_id: Id })
  app.route({
    ...at(223),
    schema: { params: retentionParams, response: { 200: Envelope(RetentionView) } },
    handler: async (req, reply) => {
      const p = await catalog.projects.getInCompany(req.params.project_id, req.caller.user.company_id)
      return done(reply, retentionView(p.id, await catalog.lifecycle.retention(p.id)))
    },
  })

  app.route({
    ...at(224),
    schema: { params: retentionParams, body: RetentionBody, response: { 200: Envelope(RetentionView) } },
    handler: async (req, reply) => {
      const p = await catalog.projects.getInCompany(req.params.project_id, req.caller.user.company_id)
      const body = req.body as Partial<Record<string, string | null>>
      const r = await catalog.lifecycle.retention(p.id)
      // Parts not named keep their value; null or "forever" keeps everything.
      for (const part of RETENTION_PARTS) if (body[part] !== undefined) r[part] = parseRetention(part, body[part]!)
      const set = await catalog.lifecycle.setRetention(p.id, r)
      req.log.info({ project_id: p.id, retention: set, by: req.caller.user.email }, 'retention changed')
      return updated(reply, retentionView(p.id, set))
    },
  })
}
