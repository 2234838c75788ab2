// CSV import (51): multipart upload streamed to the store (ingest/csv-import-job.ts).
import type { FastifyPluginAsync } from 'fastify'
import multipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import { InvalidInputError, TooLargeError } from '../../catalog/errors.ts'
import { importAbort, importContinue } from '../../ingest/csv-import-job.ts'
import { ImportWriter } from '../../ingest/import-writer.ts'
import type { RouteContext } from '../app.ts'
import { done } from '../envelope.ts'
import { canAccessDatapoint } from '../permissions.ts'
import { at } from '../registry.ts'
import { ProjectParams } from '../schemas.ts'

const ImportResult = Type.Object({
  total_lines_success: Type.Integer(),
  total_lines_error: Type.Integer(),
  errors: Type.Array(Type.Object({ line_no: Type.Integer(), error: Type.String() })),
  errors_truncated: Type.Optional(Type.Boolean()),
  project_id: Type.Integer(),
})

export const importRoutes: FastifyPluginAsync<RouteContext & { uploadLimit: number; spoolDir?: string }> = async (base, ctx) => {
  await base.register(multipart, { limits: { fileSize: ctx.uploadLimit, files: 1, fields: 10, parts: 12 } })
  const app = base.withTypeProvider<TypeBoxTypeProvider>()

  app.route({
    ...at(51),
    config: { endpoint: 51, operation: '' },
    schema: {
      params: ProjectParams,
      querystring: Type.Object({
        format: Type.String({ description: 'only csv' }),
        on_error: Type.Union([Type.Literal('abort'), Type.Literal('continue')]),
      }, { additionalProperties: false }),
      consumes: ['multipart/form-data'],
      response: { 200: Type.Object({ success: Type.Literal(true), operation: Type.String(), resource: ImportResult }) },
    },
    handler: async (req, reply) => {
      if (req.query.format !== 'csv') throw new InvalidInputError(`Unsupported format '${req.query.format}': only csv is accepted`)
      if (!req.isMultipart()) throw new InvalidInputError('The upload must be multipart/form-data with the CSV file in the form field import_file')
      const part = await req.file()
      if (!part || part.fieldname !== 'import_file') {
        part?.file.resume()
        throw new InvalidInputError('The CSV file must be sent in the form field import_file')
      }
      const filter = req.permissions.datapointFilter(51, req.project.id)
      const canWrite = (dp: Parameters<typeof canAccessDatapoint>[1]) => canAccessDatapoint(filter, dp, 'write')
      const job = {
        projectId: req.project.id, input: part.file, log: req.log, spoolDir: ctx.spoolDir,
        writer: () => new ImportWriter(ctx.catalog, ctx.ingest, req.project.id, canWrite),
      }
      try {
        const result = req.query.on_error === 'abort' ? await importAbort(job) : await importContinue(job)
        if (part.file.truncated) throw new TooLargeError(`The file is larger than the upload limit of ${ctx.uploadLimit} bytes`)
        return done(reply, result)
      } catch (err) {
        part.file.resume() // drain the rest of an aborted upload so the connection ends cleanly
        if ((err as { code?: string }).code === 'FST_REQ_FILE_TOO_LARGE') throw new TooLargeError(`The file is larger than the upload limit of ${ctx.uploadLimit} bytes`)
        throw err
      }
    },
  })
}
