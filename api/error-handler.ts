// The one place where errors become failure envelopes with an HTTP status (DESIGN.md table).
// Every answer of a failure names its condition in the header Lintel-Error-Code: the code of a
// LintelError (core/errors.ts, catalogued in docs/errors.md and OpenAPI), or the code this
// handler gives the errors of Fastify and its plugins. The envelope itself stays as spec 1
// draws it ({success, error, operation}).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_CATALOGUE, LintelError, OverloadedError, TooManyRequestsError, type ErrorCode } from '../core/errors.ts'
import { operationOf, type Operation } from './envelope.ts'
import { sendErrorGrid } from './haystack/errors.ts'

export const ERROR_CODE_HEADER = 'lintel-error-code'

declare module 'fastify' {
  interface FastifyContextConfig {
    /** The upload limit of a multipart route, named when an upload exceeds it. */
    uploadLimitBytes?: number
  }
}

/** The code of a status when Fastify gives no more than the status. */
const BY_STATUS: Readonly<Record<number, ErrorCode>> = {
  400: 'INVALID_INPUT', 401: 'UNAUTHENTICATED', 403: 'FORBIDDEN', 404: 'NOT_FOUND', 409: 'CONFLICT',
  408: 'REQUEST_TIMEOUT', 413: 'TOO_LARGE', 415: 'UNSUPPORTED_MEDIA_TYPE', 429: 'TOO_MANY_REQUESTS', 503: 'OVERLOADED', 507: 'INSUFFICIENT_STORAGE',
}

function fail(req: FastifyRequest, reply: FastifyReply, status: number, error: string, code: ErrorCode | undefined) {
  const configured = (req.routeOptions?.config as { operation?: Operation } | undefined)?.operation
  if (status === 401) reply.header('www-authenticate', 'Basic realm="lintel", charset="UTF-8"')
  if (code !== undefined && ERROR_CATALOGUE[code].status === status) reply.header(ERROR_CODE_HEADER, code)
  return reply.code(status).send({ success: false, error, operation: operationOf(req.method, configured) })
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (FST_ERR_BAD_URL) or a path
 * parameter over `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH, which answered a bare 414) is
 * the client's input: a 400 failure envelope like any other invalid input (issue 29).
 */
export function frameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const what = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is longer than 100 characters' : 'the URL is not valid (percent-encoding of UTF-8 expected)'
  // The Haystack API answers error grids, never the envelope (api/haystack/errors.ts).
  if (req.url.startsWith('/haystack/')) return sendErrorGrid(req, reply, 400, `Invalid input: ${what}`, 'INVALID_INPUT')
  return fail(req, reply, 400, `Invalid input: ${what}`, 'INVALID_INPUT')
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if ((err instanceof TooManyRequestsError || err instanceof OverloadedError) && err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds))
    if (err instanceof LintelError) return fail(req, reply, err.status, err.message, err.code)
    if (err.validation) return fail(req, reply, 400, `Invalid input: ${err.message}`, 'VALIDATION_FAILED')
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(req, reply, 413, 'Request body is too large', 'BODY_TOO_LARGE')
    if (err.code === 'FST_REQ_FILE_TOO_LARGE') {
      const limit = req.routeOptions?.config?.uploadLimitBytes
      return fail(req, reply, 413, `The file is larger than the upload limit${limit === undefined ? '' : ` of ${limit} bytes`}`, 'UPLOAD_TOO_LARGE')
    }
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return fail(req, reply, err.statusCode, err.message, BY_STATUS[err.statusCode])
    req.log.error({ err }, 'unhandled error')
    return fail(req, reply, 500, 'Internal server error', 'INTERNAL')
  })
  app.setNotFoundHandler((req, reply) => fail(req, reply, 404, `Route not found: ${req.method} ${req.url.split('?')[0]}`, 'ROUTE_NOT_FOUND'))
}
