// CSV import (51): multipart upload streamed to the store (ingest/csv-import-job.ts); with
// `Accept: application/x-ndjson` the answer streams the server's progress (import-progress.ts).
// `format` is a query parameter (51, as in the spec's examples) or a path segment (53, as in
// the spec's parameter table; DESIGN.md "format accepted in the query (or path)"). The path
// form is its own endpoint number, so a role grants it like any other endpoint.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError, RequestTimeoutError, TooLargeError } from '../../core/errors.ts'
import { importAbort, importContinue } from '../../ingest/csv-import-job.ts'
import { ImportWriter } from '../../ingest/import-writer.ts'
import type { RouteContext } from '../route-context.ts'
import { ImportProgressStream } from '../import-progress.ts'
import { DatapointAccess } from '../datapoint-access.ts'
import { at } from '../registry.ts'
import { Id, ProjectParams } from '../schemas.ts'
import { multipartInputError, oneFile } from '../multipart-input.ts'
import { slowUploadGuard, type MinRate } from '../request-time-limits.ts'

const ImportResult = Type.Object({
  total_lines_success: Type.Integer(),
  total_lines_error: Type.Integer(),
  errors: Type.Array(Type.Object({ line_no: Type.Integer(), error: Type.String() })),
  errors_truncated: Type.Optional(Type.Boolean()),
  project_id: Type.Integer(),
})

export const importRoutes: FastifyPluginAsync<RouteContext & { uploadLimit: number; spoolDir?: string; minRate: MinRate }> = async (base, ctx) => {
  await base.register(multipart, { limits: { fileSize: ctx.uploadLimit, files: 1, fields: 10, parts: 12 } })
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const access = new DatapointAccess(ctx.catalog)

  /** One upload: the same for both endpoints, with the format from the query or the path. */
  const upload = async (req: FastifyRequest, reply: FastifyReply, endpointNo: 51 | 53, format: string, onError: 'abort' | 'continue') => {
    if (format !== 'csv') throw new InvalidInputError(`Unsupported format '${format}': only csv is accepted`)
    if (!req.isMultipart()) throw new InvalidInputError('The upload must be multipart/form-data with the CSV file in the form field import_file')
    const { part, rest } = await oneFile(req, 'import_file')
    if (!part || part.fieldname !== 'import_file') {
      part?.file.resume()
      throw new InvalidInputError('The CSV file must be sent in the form field import_file')
    }
    // The form ends after the file: a second file is refused before the last batch is stored
    // (a file of up to 50,000 rows stores nothing; on_error=abort never stores before the end).
    const file = part.file
    // A body slower than the uploads' minimum rate is cut with 408 (issue 29); the rest of it
    // is not read, so the answer closes the connection.
    const { minBytesPerSecond, rateWindowMs } = ctx.minRate
    const guard = slowUploadGuard(ctx.minRate, (got) => {
      reply.header('connection', 'close')
      file.destroy(new RequestTimeoutError(`Upload too slow: ${got} bytes arrived in the last ${rateWindowMs / 1000} s, at least ${minBytesPerSecond} bytes per second are needed (LINTEL_UPLOAD_MIN_RATE_KB); the import stopped there (with on_error=abort nothing was stored)`))
    })
    const stream = new ImportProgressStream(req, reply)
    async function* input(): AsyncGenerator<Buffer> {
      try {
        for await (const chunk of file) { guard.counted(chunk.length); yield chunk as Buffer }
      } finally {
        guard.cancel()
      }
      await rest()
      stream.uploadEnded(file.truncated)
    }
    const canWrite = access.test(req, endpointNo, 'write')
    const job = {
      projectId: req.project.id, input: input(), log: req.log, spoolDir: ctx.spoolDir, progress: stream.progress,
      writer: () => new ImportWriter(ctx.catalog, ctx.importIngest ?? ctx.ingest, req.project.id, canWrite),
    }
    try {
      const result = onError === 'abort' ? await importAbort(job) : await importContinue(job)
      if (part.file.truncated) throw new TooLargeError(`The file is larger than the upload limit of ${ctx.uploadLimit} bytes`, 'UPLOAD_TOO_LARGE')
      return stream.finish(result)
    } catch (err) {
      if (stream.failed(err)) return reply
      part.file.resume() // drain the rest of an aborted upload so the connection ends cleanly
      // Over the upload limit (FST_REQ_FILE_TOO_LARGE): 413 UPLOAD_TOO_LARGE by api/error-handler.ts, naming uploadLimitBytes.
      throw multipartInputError(err, 'import_file')
    }
  }
  const OnError = Type.Union([Type.Literal('abort'), Type.Literal('continue')])
  const response = { 200: Type.Object({ success: Type.Literal(true), operation: Type.String(), resource: ImportResult }) }

  app.route({
    ...at(51),
    config: { endpoint: 51, operation: '', uploadLimitBytes: ctx.uploadLimit },
    schema: {
      params: ProjectParams,
      querystring: Type.Object({ format: Type.String({ description: 'only csv' }), on_error: OnError }, { additionalProperties: false }),
      consumes: ['multipart/form-data'],
      response,
    },
    handler: (req, reply) => upload(req, reply, 51, req.query.format, req.query.on_error),
  })
  app.route({
    ...at(53),
    config: { endpoint: 53, operation: '', uploadLimitBytes: ctx.uploadLimit },
    schema: {
      params: Type.Object({ project_id: Id, format: Type.String({ description: 'only csv' }) }),
      querystring: Type.Object({ on_error: OnError }, { additionalProperties: false }),
      consumes: ['multipart/form-data'],
      response,
    },
    handler: (req, reply) => upload(req, reply, 53, req.params.format, req.query.on_error),
  })
}
