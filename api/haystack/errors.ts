// Every failure of the Haystack API answers an error grid (Haystack "HTTP API", Error Grid:
// grid meta `err`, `dis`, `errTrace`) in the format the client accepts, never the /v2 failure
// envelope. The HTTP status: 200 for a failure of the op itself (HaystackOpError: a bad filter,
// an unknown id), as Haystack servers answer; the platform's status for refusals before the op
// runs (DESIGN.md table: 400 undecodable request, 401 credentials, 403 op not granted, 404
// unknown project or op, 405 GET of an op with side effects, 406 no format of ours accepted,
// 413, 415, 429, 503). `errTrace` names the condition's code (docs/errors.md), never a stack.
import type { FastifyError, FastifyReply, FastifyRequest } from 'fastify'
import { ERROR_CATALOGUE, LintelError, OverloadedError, TooManyRequestsError } from '../../core/errors.ts'
import { HaysonError } from '../../protocol/haystack/hayson.ts'
import { errorGrid } from '../../protocol/haystack/values.ts'
import { ZincError } from '../../protocol/haystack/zinc.ts'
import { FORMATS, answerFormat } from './formats.ts'
import { HaystackOpError } from './op.ts'

export function sendErrorGrid(req: FastifyRequest, reply: FastifyReply, status: number, dis: string, code: string): FastifyReply {
  const format = answerFormat(req.headers.accept) ?? FORMATS.json
  if (status === 401) reply.header('www-authenticate', 'Basic realm="lintel", charset="UTF-8"')
  // api/error-handler.ts ERROR_CODE_HEADER (not imported: that module sends framework errors of /haystack here).
  if (code in ERROR_CATALOGUE) reply.header('lintel-error-code', code)
  return reply.code(status).type(format.mime).send(format.grid(errorGrid(dis, code)))
}

export function haystackErrorHandler(err: FastifyError, req: FastifyRequest, reply: FastifyReply): FastifyReply {
  if (err instanceof HaystackOpError) return sendErrorGrid(req, reply, err.status, err.message, err.status === 200 ? 'HAYSTACK_OP_FAILED' : `HTTP_${err.status}`)
  if (err instanceof ZincError || err instanceof HaysonError) return sendErrorGrid(req, reply, 400, `Invalid request grid: ${err.message}`, 'INVALID_INPUT')
  if ((err instanceof TooManyRequestsError || err instanceof OverloadedError) && err.retryAfterSeconds !== undefined) reply.header('retry-after', String(err.retryAfterSeconds))
  if (err instanceof LintelError) return sendErrorGrid(req, reply, err.status, err.message, err.code)
  if (err.validation) return sendErrorGrid(req, reply, 400, `Invalid input: ${err.message}`, 'VALIDATION_FAILED')
  if (err.code === 'FST_ERR_CTP_BODY_TOO_LARGE') return sendErrorGrid(req, reply, 413, 'Request body is too large', 'BODY_TOO_LARGE')
  if (err.code === 'FST_ERR_CTP_INVALID_MEDIA_TYPE') return sendErrorGrid(req, reply, 415, `Content-Type '${String(req.headers['content-type']).slice(0, 60)}' is not supported: send text/zinc or application/json`, 'UNSUPPORTED_MEDIA_TYPE')
  if (err.statusCode && err.statusCode >= 400 && err.statusCode < 500) return sendErrorGrid(req, reply, err.statusCode, err.message, 'INVALID_INPUT')
  req.log.error({ err }, 'haystack: unhandled error')
  return sendErrorGrid(req, reply, 500, 'Internal server error', 'INTERNAL')
}
