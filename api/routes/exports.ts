// Bulk export of observations (issue 34 item 1), endpoints 210-212 under
// /v2/project/{project_id}: POST creates a job (202 with its id) that writes one file to the
// project's document space, CSV or Apache Parquet, one row per observation (datapoint, time,
// value) sorted by datapoint then time (engine/export/); GET shows its state and progress; the
// file is then downloaded through the document link of endpoint 93, like any project file.
//
// Access (api/datapoint-access.ts): every listed datapoint must be readable through 210
// (403 naming the first that is not, nothing produced; an unknown one 404); a tag filter
// selects among the datapoints the caller reads. A job is shown (211, 212) only to a caller who
// reads every datapoint in it, else it is not found. The file's upload is admitted before the job
// is created (429/503 from the upload gate, engine/blobs/upload-gate.ts: no job).
import type { FastifyPluginAsync, FastifyRequest } from 'fastify'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { ExportJob } from '../../catalog/exports.ts'
import type { Space } from '../../catalog/files.ts'
import { InvalidInputError, NotFoundError, TooManyRequestsError } from '../../core/errors.ts'
import { formatTimestamp, parseTimestamp } from '../../core/timestamp.ts'
import { normalizePath } from '../../engine/blobs/doc-path.ts'
import type { Documents } from '../../engine/blobs/documents.ts'
import { ExportRunner } from '../../engine/export/jobs.ts'
import type { ExportSeries } from '../../engine/export/rows.ts'
import type { RouteContext } from '../route-context.ts'
import { DatapointAccess, datapointNotFound } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Envelope, Id, ProjectParams } from '../schemas.ts'

/** Datapoints one export may hold. */
export const MAX_EXPORT_DATAPOINTS = 10_000

const ExportBody = Type.Object({
  format: Type.String({ maxLength: 16, description: 'csv or parquet' }),
  start: Type.String({ maxLength: 64, description: 'RFC 3339, inclusive' }),
  end: Type.String({ maxLength: 64, description: 'RFC 3339, exclusive' }),
  dataPointIDs: Type.Optional(Type.Array(Type.String({ minLength: 1, maxLength: 1000 }), { maxItems: MAX_EXPORT_DATAPOINTS, description: 'the datapoints to export; each must be readable' })),
  tags: Type.Optional(Type.Array(Type.Object({ key: Type.String({ minLength: 1, maxLength: 200 }), value: Type.String({ maxLength: 1000 }) }, { additionalProperties: false }), { maxItems: 20, description: 'also export the readable datapoints carrying all of these tags' })),
  path: Type.Optional(Type.String({ minLength: 1, maxLength: 1024, description: 'the file in the project space; default exports/export-<time>-<random>.<csv|parquet>' })),
}, { additionalProperties: false })

const JobOut = Type.Object({
  id: Type.Integer(), format: Type.String(), path: Type.String(), state: Type.String(),
  start: Type.String(), end: Type.String(), datapoints: Type.Integer(),
  rows_done: Type.Integer(), rows_estimate: Type.Integer(), progress: Type.Number(),
  bytes: Type.Union([Type.Integer(), Type.Null()]), error: Type.Union([Type.String(), Type.Null()]),
  created_at: Type.String(), finished_at: Type.Union([Type.String(), Type.Null()]),
})

const iso = (ms: number) => new Date(ms).toISOString()

function view(j: ExportJob) {
  const progress = j.state === 'done' ? 1 : j.rows_estimate > 0 ? Math.min(1, j.rows_done / j.rows_estimate) : 0
  return {
    id: j.id, format: j.format, path: j.path, state: j.state,
    start: formatTimestamp(j.spec.start), end: formatTimestamp(j.spec.end), datapoints: j.spec.datapoints.length,
    rows_done: j.rows_done, rows_estimate: j.rows_estimate, progress,
    bytes: j.bytes, error: j.error, created_at: iso(j.created_at), finished_at: j.finished_at === null ? null : iso(j.finished_at),
  }
}

function timeParam(name: string, text: string): number {
  const t = parseTimestamp(text)
  if (t === undefined) throw new InvalidInputError(`Cannot parse ${name} '${text}': use an RFC 3339 timestamp`)
  return t
}

export interface ExportRouteOptions extends RouteContext {
  documents: Documents
  /** This process owns every export job (embedded mode): running ones left by a previous start fail at once. */
  exportsOwnAll?: boolean
  /** Called with each started job's end (tests and benchmarks wait on it). */
  onExportStarted?: (id: number, done: Promise<void>) => void
}

export const exportRoutes: FastifyPluginAsync<ExportRouteOptions> = async (base, ctx) => {
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const { catalog, store, documents } = ctx
  const access = new DatapointAccess(catalog)
  const runner = await ExportRunner.start({ jobs: catalog.exportJobs, store, documents, ownsAllJobs: ctx.exportsOwnAll, log: base.log })
  base.addHook('onClose', async () => { await runner.stop() })

  /** The datapoints of a request: the listed ones (each readable, else 403; unknown 404), then the readable ones with the tags; by identifier. */
  async function selected(req: FastifyRequest, ids: readonly string[], tags: readonly { key: string; value: string }[] | undefined): Promise<ExportSeries[]> {
    const out = new Map<string, ExportSeries>()
    const found = await catalog.datapoints.findMany(req.project.id, [...new Set(ids)])
    for (const id of ids) {
      await access.require(req, 210, id, 'read')
      const dp = found.get(id)
      if (!dp) throw datapointNotFound(id, req.project.id)
      out.set(id, { id: dp.id, dataPointID: id })
    }
    if (tags && tags.length > 0) {
      const reads = access.test(req, 210, 'read')
      for (const dp of await catalog.datapoints.taggedOfProject(req.project.id)) {
        if (tags.every((t) => dp.tags[t.key] === t.value) && reads(dp)) out.set(dp.dataPointID, { id: dp.id, dataPointID: dp.dataPointID })
      }
    }
    if (out.size > MAX_EXPORT_DATAPOINTS) throw new InvalidInputError(`An export holds at most ${MAX_EXPORT_DATAPOINTS} datapoints; ${out.size} were selected`)
    return [...out.values()].sort((a, b) => (a.dataPointID < b.dataPointID ? -1 : a.dataPointID > b.dataPointID ? 1 : 0))
  }

  const admit = (space: Space) => {
    try {
      return documents.admit(space)
    } catch (err) {
      if (err instanceof TooManyRequestsError) throw new TooManyRequestsError(`No export started: its file is written as a document upload. ${err.message}`, err.retryAfterSeconds * 1000)
      throw err
    }
  }

  const visible = async (req: FastifyRequest, no: number, j: ExportJob) => access.readsAll(req, no, j.spec.datapoints)

  app.route({
    ...at(210),
    schema: { params: ProjectParams, body: ExportBody, response: { 202: Envelope(JobOut) } },
    handler: async (req, reply) => {
      const b = req.body
      const format = b.format.toLowerCase()
      if (format !== 'csv' && format !== 'parquet') throw new InvalidInputError(`Unknown format '${b.format}': use csv or parquet`)
      const start = timeParam('start', b.start)
      const end = timeParam('end', b.end)
      if (start > end) throw new InvalidInputError('start must not be after end')
      if ((b.dataPointIDs?.length ?? 0) === 0 && (b.tags?.length ?? 0) === 0) throw new InvalidInputError('Name the datapoints to export: dataPointIDs, tags, or both')
      const series = await selected(req, b.dataPointIDs ?? [], b.tags)
      const now = Date.now()
      const stamp = new Date(now).toISOString().replace(/[-:]/g, '').replace('.', '')
      const path = normalizePath(b.path ?? `exports/export-${stamp}-${Math.random().toString(36).slice(2, 8)}.${format}`)
      // The file's upload is admitted before the job exists: over the company's or the node's
      // concurrent uploads, 429/503 now rather than a job that fails at once.
      const ticket = admit({ kind: 'project', companyId: req.project.company_id, projectId: req.project.id })
      let job: ExportJob
      try {
        let estimate = 0
        for (const s of series) estimate += await store.count(s.id, start, end)
        job = await catalog.exportJobs.create({
          project_id: req.project.id, user_id: req.caller.user.id, format, path,
          spec: { datapoints: series.map((s) => s.dataPointID), start, end }, rows_estimate: estimate,
        }, now)
      } catch (err) {
        ticket.release()
        throw err
      }
      const done = runner.run(job, req.project.company_id, series, ticket)
      ctx.onExportStarted?.(job.id, done)
      return reply.code(202).send({ success: true, operation: 'create', resource: view(job) })
    },
  })

  app.route({
    ...at(211),
    schema: { params: Type.Object({ project_id: Id, export_id: Id }), response: { 200: JobOut } },
    handler: async (req) => {
      const job = await runner.current(req.project.id, req.params.export_id)
      if (!job || !(await visible(req, 211, job))) throw new NotFoundError(`Export ${req.params.export_id} not found in project ${req.project.id}`)
      return view(job)
    },
  })

  app.route({
    ...at(212),
    schema: { params: ProjectParams, response: { 200: Type.Object({ items: Type.Array(JobOut) }) } },
    handler: async (req) => {
      const out = []
      for (const j of await catalog.exportJobs.list(req.project.id)) {
        if (await visible(req, 212, j)) out.push(view((await runner.current(req.project.id, j.id)) ?? j))
      }
      return { items: out }
    },
  })
}
