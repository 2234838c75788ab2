// The twelve document endpoints (spec 1 "Documents"): six for the company space
// (/v2/company/..., Company scope, 80-85) and the same six for each project space
// (/v2/project/{project_id}/..., Project scope, 90-95). Uploads stream through
// engine/blobs/documents.ts; a refused upload answers at once and closes the connection, so
// the rest of a large body is never read.
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import multipart from '@fastify/multipart'
import { Type } from '@sinclair/typebox'
import type { TypeBoxTypeProvider } from '@fastify/type-provider-typebox'
import type { Space } from '../../catalog/files.ts'
import { InvalidInputError } from '../../core/errors.ts'
import { normalizeFolder, normalizePath, parseExpiry, uploadPath, DEFAULT_EXPIRY_S, MAX_EXPIRY_S } from '../../engine/blobs/doc-path.ts'
import type { Documents } from '../../engine/blobs/documents.ts'
import type { RouteContext } from '../route-context.ts'
import { at } from '../registry.ts'
import { Envelope, MAX_PAGE, ProjectParams } from '../schemas.ts'
import { multipartInputError } from '../multipart-input.ts'

const Counts = Type.Object({ files: Type.Integer(), space_bytes: Type.Integer() })
const QuotaRecord = Type.Object({
  quota_limits: Type.Object({ file_size_bytes: Type.Integer(), files: Type.Integer(), space_bytes: Type.Integer() }),
  quota_used: Counts, quota_available: Counts,
})
const FileEntry = Type.Object({ path: Type.String(), size_bytes: Type.Integer(), last_modified: Type.String(), sha256: Type.String() })
const Uploaded = Type.Object({ path: Type.String(), size_bytes: Type.Integer(), sha256: Type.String() })
const Meta = Type.Object({ current_page: Type.Integer(), items_per_page: Type.Integer(), total_items: Type.Integer(), total_pages: Type.Integer() })
const PathQuery = Type.Object({ path: Type.String({ minLength: 1, maxLength: 2048 }) }, { additionalProperties: false })
export const DEFAULT_PER_PAGE = 50
export const MAX_PER_PAGE = 500

export interface DocumentRouteOptions extends RouteContext {
  documents: Documents
  /** 'company': endpoints 80-85 on the caller's company; 'project': 90-95 on {project_id}. */
  kind: 'company' | 'project'
}

export const documentRoutes: FastifyPluginAsync<DocumentRouteOptions> = async (base, { documents, kind }) => {
  // The quotas bound every file; the form itself carries one file and a few small fields.
  await base.register(multipart, {
    limits: { fileSize: Number.MAX_SAFE_INTEGER, files: 1, fields: 5, parts: 6, fieldSize: 4096 },
    // Larger parser buffers: fewer pause/resume turns per MiB (bench:blobs); still bounded.
    fileHwm: 1024 * 1024, highWaterMark: 1024 * 1024,
  })
  const app = base.withTypeProvider<TypeBoxTypeProvider>()
  const n = kind === 'company' ? 80 : 90
  const params = kind === 'project' ? { params: ProjectParams } : {}
  const spaceOf = (req: FastifyRequest): Space => (kind === 'company'
    ? { kind: 'company', companyId: req.caller.user.company_id }
    : { kind: 'project', companyId: req.project.company_id, projectId: req.project.id })

  /** Streams the form field `file` into the space; on refusal the connection closes after the answer. */
  const upload = async (req: FastifyRequest, reply: FastifyReply, mode: 'create' | 'replace', folder: string) => {
    if (!req.isMultipart()) throw new InvalidInputError('The upload must be multipart/form-data with the file in the form field file')
    try {
      const part = await req.file()
      if (!part || part.fieldname !== 'file') throw new InvalidInputError('The file must be sent in the form field file')
      // PUT names the file's folder (spec: `folder`; its example: `path`); a value ending in the
      // uploaded file's own name is taken as the whole path.
      const last = folder.split('/').pop()
      const path = mode === 'replace' && last === part.filename ? normalizePath(folder) : uploadPath(folder, part.filename)
      // A client gone mid-body: the part would otherwise just stop, holding its reservation.
      req.raw.once('close', () => { if (!req.raw.complete) part.file.destroy(new Error('the client closed the connection during the upload')) })
      const declared = Number(req.headers['content-length'])
      const done = await documents.upload(spaceOf(req), mode, path, part.file, Number.isSafeInteger(declared) ? declared : undefined)
      return reply.code(201).send({ success: true, operation: mode === 'create' ? 'create' : 'update', resource: done })
    } catch (err) {
      if (!req.raw.complete) reply.header('connection', 'close')
      throw multipartInputError(err, 'file')
    }
  }

  app.route({
    ...at(n),
    schema: {
      ...params,
      querystring: Type.Object({ service: Type.Optional(Type.Literal('files')) }, { additionalProperties: false }),
      response: { 200: Type.Object({ files: QuotaRecord }) },
    },
    handler: async (req) => ({ files: await documents.files.quota(spaceOf(req)) }),
  })
  app.route({
    ...at(n + 1),
    schema: {
      ...params,
      querystring: Type.Object({ folder: Type.Optional(Type.String({ maxLength: 1024 })) }, { additionalProperties: false }),
      consumes: ['multipart/form-data'],
      response: { 201: Envelope(Uploaded) },
    },
    handler: async (req, reply) => upload(req, reply, 'create', normalizeFolder(req.query.folder)),
  })
  app.route({
    ...at(n + 2),
    schema: {
      ...params,
      querystring: Type.Object({
        page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PAGE, default: 1 })),
        per_page: Type.Optional(Type.Integer({ minimum: 1, maximum: MAX_PER_PAGE, default: DEFAULT_PER_PAGE })),
        search: Type.Optional(Type.String({ maxLength: 1024 })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ items: Type.Array(FileEntry), meta: Meta }) },
    },
    handler: async (req) => {
      const page = req.query.page ?? 1
      const perPage = req.query.per_page ?? DEFAULT_PER_PAGE
      // Paths are stored in NFC (doc-path.ts): a search typed in NFD finds them too.
      const { items, total } = await documents.files.list(spaceOf(req), { page, perPage, search: req.query.search?.normalize('NFC') })
      return {
        items: items.map((f) => ({ path: f.path, size_bytes: f.size_bytes, last_modified: new Date(f.last_modified).toISOString(), sha256: f.sha256 })),
        meta: { current_page: page, items_per_page: perPage, total_items: total, total_pages: Math.ceil(total / perPage) },
      }
    },
  })
  app.route({
    ...at(n + 3),
    schema: {
      ...params,
      querystring: Type.Object({
        path: Type.String({ minLength: 1, maxLength: 2048 }),
        expiry: Type.Optional(Type.String({ maxLength: 16, description: `lifetime of the link, e.g. 30m (s, m, h, d; a bare number is minutes); default ${DEFAULT_EXPIRY_S / 60}m, at most ${MAX_EXPIRY_S / 86400}d` })),
      }, { additionalProperties: false }),
      response: { 200: Type.Object({ download_link: Type.String(), path: Type.String(), valid_until: Type.String() }) },
    },
    handler: async (req) => documents.link(spaceOf(req), normalizePath(req.query.path), parseExpiry(req.query.expiry)),
  })
  app.route({
    ...at(n + 4),
    schema: {
      ...params,
      querystring: Type.Object({
        folder: Type.Optional(Type.String({ maxLength: 1024 })),
        path: Type.Optional(Type.String({ maxLength: 1024, description: 'same as folder (the spec example names it path)' })),
      }, { additionalProperties: false }),
      consumes: ['multipart/form-data'],
      response: { 201: Envelope(Uploaded) },
    },
    handler: async (req, reply) => {
      const folder = req.query.folder ?? req.query.path
      if (folder === undefined) throw new InvalidInputError('folder is required: the folder of the file to replace')
      return upload(req, reply, 'replace', normalizeFolder(folder))
    },
  })
  app.route({
    ...at(n + 5),
    schema: { ...params, querystring: PathQuery, response: { 200: Envelope(Type.Object({ path: Type.String() })) } },
    handler: async (req, reply) => {
      const path = normalizePath(req.query.path)
      await documents.delete(spaceOf(req), path)
      return reply.code(200).send({ success: true, operation: 'delete', resource: { path } })
    },
  })
}
