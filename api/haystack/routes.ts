// The Haystack HTTP API (issue 35): one project = one Haystack database at
// /haystack/{project_id}/{op}. Every op is its own route with its own registry number
// (230-241), so roles grant ops one by one and the platform's access hooks (authentication:
// Basic or Bearer; the grant; the project within the caller's company) apply unchanged.
// POST takes the request grid as Zinc or JSON; GET takes it as query parameters (one row,
// each value Zinc-encoded, else a Str) for ops without side effects, and answers 405 for the
// others (Haystack "HTTP API", GET Requests). Answers are grids in the negotiated format
// (formats.ts); a GridStream is written row by row in chunks, so a long answer never becomes
// one string, and stops when the client goes away.
import { Readable } from 'node:stream'
import type { FastifyPluginAsync, FastifyReply, FastifyRequest } from 'fastify'
import sjson from 'secure-json-parse'
import { InvalidInputError } from '../../core/errors.ts'
import { canAccessDatapoint } from '../../core/tag-auth.ts'
import { readZincValue, ZincError } from '../../protocol/haystack/zinc.ts'
import { Grid, type Dict, type GridStream, type HVal } from '../../protocol/haystack/values.ts'
import type { RouteContext } from '../route-context.ts'
import { fastifyPath } from '../registry.ts'
import { haystackErrorHandler, sendErrorGrid } from './errors.ts'
import { answerFormat, HAYSTACK_JSON_MIME, requestGrid, ZINC_BODY_TYPES, type Format } from './formats.ts'
import { HaystackOpError, type HaystackContext, type HaystackOp } from './op.ts'
import { haystackOps } from './ops/index.ts'
import type { HaystackServices } from './services.ts'

export const HAYSTACK_PREFIX = '/haystack/{project_id}'
/** Bytes of rows gathered before a chunk is written. */
const CHUNK_BYTES = 64 * 1024
/** Rows above which a whole grid is written in chunks. */
const STREAM_ROWS = 200

export type HaystackRouteOptions = RouteContext & { services: HaystackServices; ops?: readonly HaystackOp[] }

export const haystackRoutes: FastifyPluginAsync<HaystackRouteOptions> = async (app, ctx) => {
  const ops = ctx.ops ?? haystackOps
  app.setErrorHandler(haystackErrorHandler)
  for (const type of ZINC_BODY_TYPES) app.addContentTypeParser(type, { parseAs: 'string' }, async (_req: FastifyRequest, body: string | Buffer) => body as string)
  app.addContentTypeParser(HAYSTACK_JSON_MIME, { parseAs: 'string' }, async (_req: FastifyRequest, body: string | Buffer) => {
    try {
      return sjson.parse(body as string, { protoAction: 'error', constructorAction: 'error' }) as unknown
    } catch (err) {
      throw new InvalidInputError(`Malformed JSON body: ${(err as Error).message}`, 'MALFORMED_JSON')
    }
  })

  for (const op of ops) {
    const url = fastifyPath(`${HAYSTACK_PREFIX}/${op.name}`)
    const schema = { params: { type: 'object', properties: { project_id: { type: 'string', pattern: '^[1-9][0-9]{0,15}$' } }, required: ['project_id'] } }
    app.route({ method: 'POST', url, schema, config: { endpoint: op.endpoint }, handler: (req, reply) => serve(ctx, op, req, reply, 'POST') })
    app.route({ method: 'GET', url, schema, config: { endpoint: op.endpoint }, handler: (req, reply) => serve(ctx, op, req, reply, 'GET') })
  }
  // An op this server does not have: 404 with an error grid (no grant to check: nothing is there).
  app.route({ method: ['GET', 'POST'], url: fastifyPath(`${HAYSTACK_PREFIX}/:op`), schema: { hide: true }, handler: async (req, reply) =>
    sendErrorGrid(req, reply, 404, `Unknown op '${String((req.params as { op: string }).op).slice(0, 60)}': see the ops op for those this server has`, 'ROUTE_NOT_FOUND') })
}

async function serve(ctx: HaystackRouteOptions, op: HaystackOp, req: FastifyRequest, reply: FastifyReply, method: 'GET' | 'POST'): Promise<FastifyReply> {
  const format = answerFormat(req.headers.accept)
  if (!format) throw new HaystackOpError(`None of the types in Accept is served: use text/zinc or application/json`, 406)
  if (method === 'GET' && !op.readOnly) throw new HaystackOpError(`The op ${op.name} has side effects: call it with POST`, 405)
  const request = method === 'GET' ? queryGrid(req.query as Record<string, unknown>) : bodyGrid(req.body)
  const abort = new AbortController()
  // The response's close: the client went away (or the answer is complete). Not the request's,
  // which closes once its body is read.
  reply.raw.once('close', () => abort.abort())
  const settings = await ctx.catalog.projects.settings(req.project.id)
  const filter = req.permissions.datapointFilter(op.endpoint, settings.id)
  const hctx: HaystackContext = {
    project: settings, caller: req.caller, endpoint: op.endpoint, route: ctx, services: ctx.services, req, signal: abort.signal,
    canAccess: (dp, mode) => canAccessDatapoint(filter, dp, mode),
  }
  const answer = await op.handler(hctx, request)
  reply.type(format.mime)
  // A large grid (a read of many points) is written in chunks too, never as one string.
  if (answer instanceof Grid && answer.rows.length <= STREAM_ROWS) return reply.send(format.grid(answer))
  return reply.send(Readable.from(chunks(answer, format, abort.signal)))
}

/** GET: each query parameter is a tag of the one row, Zinc-encoded, else a Str. */
function queryGrid(query: Record<string, unknown>): Grid {
  const row: Dict = {}
  for (const [k, raw] of Object.entries(query ?? {})) {
    const text = Array.isArray(raw) ? String(raw[0]) : String(raw)
    let v: HVal
    try { v = readZincValue(text) } catch (err) { if (!(err instanceof ZincError)) throw err; v = text }
    row[k] = v
  }
  return Object.keys(row).length === 0 ? new Grid({}, [], []) : Grid.ofRows([row])
}

function bodyGrid(body: unknown): Grid {
  if (body === undefined || body === null || body === '' || (typeof body === 'object' && Object.keys(body).length === 0)) return new Grid({}, [], [])
  return requestGrid(body)
}

async function * chunks(g: GridStream, format: Format, signal: AbortSignal): AsyncGenerator<string> {
  let buf = format.header(g.meta, g.cols)
  let first = true
  for await (const item of g.rows as AsyncIterable<Dict | readonly Dict[]>) {
    if (signal.aborted) return
    for (const row of Array.isArray(item) ? item as readonly Dict[] : [item as Dict]) {
      buf += format.row(row, g.cols, first)
      first = false
    }
    if (buf.length >= CHUNK_BYTES) { yield buf; buf = '' }
  }
  yield buf + format.end
}
