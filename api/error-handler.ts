// The one place where errors become failure envelopes with an HTTP status (DESIGN.md table).
import type { FastifyError, FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { LintelError, OverloadedError, TooManyRequestsError } from '../core/errors.ts'
import { operationOf, type Operation } from './envelope.ts'

function fail(req: FastifyRequest, reply: FastifyReply, status: number, error: string) {
  const configured = (req.routeOptions?.config as { operation?: Operation } | undefined)?.operation
  if (status === 401) reply.header('www-authenticate', 'Basic realm="lintel", charset="UTF-8"')
  return reply.code(status).send({ success: false, error, operation: operationOf(req.method, configured) })
}

/**
 * Fastify's `frameworkErrors`: a URL the router cannot decode (FST_ERR_BAD_URL) or a path
 * parameter over `maxParamLength` (FST_ERR_MAX_PARAM_LENGTH, which answered a bare 414) is
 * the client's input: a 400 failure envelope like any other invalid input (issue 29).
 */
export function frameworkError(err: FastifyError, req: FastifyRequest, reply: FastifyReply) {
  const what = err.code === 'FST_ERR_MAX_PARAM_LENGTH' ? 'a path parameter is longer than 100 characters' : 'the URL is not valid (percent-encoding of UTF-8 expected)'
  return fail(req, reply, 400, `Invalid input: ${what}`)
}

export function installErrorHandling(app: FastifyInstance): void {
  app.setErrorHandler((err: FastifyError, req, reply) => {
    if ((err instanceof TooManyRequestsError || err instanceof OverloadedError) && err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds))
    if (err instanceof LintelError) return fail(req, reply, err.status, err.message)
    if (err.validation) return fail(req, reply, 400, `Invalid input: ${err.message}`)
    if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return fail(req, reply, 413, 'Request body is too large')
    if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return fail(req, reply, err.statusCode, err.message)
    req.log.error({ err }, 'unhandled error')
    return fail(req, reply, 500, 'Internal server error')
  })
  app.setNotFoundHandler((req, reply) => fail(req, reply, 404, `Route not found: ${req.method} ${req.url.split('?')[0]}`))
}
