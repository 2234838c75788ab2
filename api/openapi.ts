// The OpenAPI document (issue 15, item 8): what the server really answers, so that generated
// clients and validating proxies (Stoplight Prism) agree with it. Route schemas give the
// success bodies; this module adds, in one place, what every route shares:
// - the failure envelope {success: false, error, operation} for each error status a route
//   can answer, chosen by the endpoint's scope and inputs (DESIGN.md status table) plus the
//   statuses only some endpoints answer (EXTRA below);
// - the multipart request bodies of the CSV upload (51, 53) and of documents (81, 84, 91,
//   94), which the routes cannot declare
//   as a body schema (the file is streamed, not parsed into req.body);
// - the security schemes (HTTP Basic and bearer tokens) and a non-empty `servers`.
import type { RouteOptions } from 'fastify'
import type { SwaggerOptions } from '@fastify/swagger'
import { ERROR_CATALOGUE, type ErrorCode } from '../core/errors.ts'
import { ERROR_CODE_HEADER } from './error-handler.ts'
import { endpoint } from './registry.ts'
import { restoreCallbackSummaries } from './routes/alert-notification-doc.ts'
import { Failure } from './schemas.ts'
import { haystackResponses } from './haystack/openapi.ts'

/** Statuses only some endpoints answer, beyond those every route of its scope answers. */
const EXTRA: Readonly<Record<number, readonly number[]>> = {
  2: [403, 409], // wrong current_password; email taken
  6: [403], // a bearer token cannot create tokens
  3: [403], // a bearer token cannot delete its user
  7: [400], // a Basic login has no token to revoke
  13: [404, 409], // another company's id; email taken
  15: [409], 17: [409], 34: [409], 36: [409], // role name taken
  32: [503], // deleting the series in the store
  50: [503], 51: [503], 53: [503], // the store is busy (413: quota or upload limit, as every body)
  52: [503],
  60: [409], // username taken
  70: [409], 71: [409], 73: [409], // already exists; the state does not allow the move
  76: [409], // a replay of another range is under way
  // documents (company 80-85, project 90-95): unknown file, quota, a link the storage refuses
  80: [404], 81: [404], 82: [404], 83: [404], 84: [404], 85: [404],
  // uploads (issue 29): a body slower than the minimum rate, the node's uploads or temporary
  // space at their bound (Retry-After), a full disk
  ...Object.fromEntries([81, 84, 91, 94].map((no) => [no, [404, 408, 503, 507]])),
  // alerts (100-108): unknown alert or datapoint; enable/disable twice; PUT always refuses
  102: [409], 103: [409], 106: [409],
  // mapped components (113-124): a pin or attribute already set (POST)
  118: [409], 121: [409],
  // analysis (150-161): the instance of a (function, component) pair exists
  151: [409],
  // controls apps (170-181): the state does not allow the move (or changed meanwhile); no broker reachable from this process
  170: [503], 174: [409, 503], 175: [503], 176: [409, 503], 177: [409, 503], 178: [503],
  // acknowledge and clear (200, 201): not raised, or acknowledged already
  200: [409], 201: [409],
  // data lifecycle (220-224): a datapoint still used by virtual datapoints or controls apps (222);
  // retention of an unknown project or one of another company (223, 224)
  222: [409], 223: [404], 224: [404],
}

/** Headers that come with some failures (error-handler.ts). */
const HEADERS: Readonly<Record<number, Record<string, unknown>>> = {
  401: { 'www-authenticate': { type: 'string', description: 'Basic realm="lintel", charset="UTF-8"' } },
  429: { 'retry-after': { type: 'integer', description: 'Seconds until the request may be tried again' } },
  503: { 'retry-after': { type: 'integer', description: 'Seconds until a retry may succeed, where known' } },
}
/** The catalogue of error codes (core/errors.ts; docs/errors.md): the codes a failure of `status` can name. */
export function codesOf(status: number): ErrorCode[] {
  return (Object.keys(ERROR_CATALOGUE) as ErrorCode[]).filter((c) => ERROR_CATALOGUE[c].status === status)
}
const codeHeader = (status: number) => ({
  [ERROR_CODE_HEADER]: {
    type: 'string', enum: codesOf(status),
    description: 'The condition (docs/errors.md): ' + codesOf(status).map((c) => `${c}: ${ERROR_CATALOGUE[c].condition}`).join('; '),
  },
})
const failure = (status: number) => ({ description: TEXT[status], ...Failure, headers: { ...HEADERS[status], ...codeHeader(status) } })
const TEXT: Readonly<Record<number, string>> = {
  400: 'Invalid input (failure envelope)',
  401: 'No or wrong credentials (failure envelope; WWW-Authenticate: Basic)',
  403: 'Not granted: the endpoint, or read/write access to a datapoint (failure envelope)',
  404: 'Unknown resource, or one the caller may not see (failure envelope)',
  409: 'Conflict: a unique name is taken or the state does not allow this (failure envelope)',
  413: 'Too large: body, upload or quota (failure envelope)',
  408: 'The request body arrived too slowly (failure envelope)',
  415: 'Unsupported content type (failure envelope)',
  429: 'Too many requests (failed logins, uploads at once, "already exists" answers); retry after Retry-After seconds (failure envelope)',
  500: 'Internal error (failure envelope)',
  503: 'Overloaded: the store is busy or unreachable; retry later (failure envelope)',
  507: 'The storage is full; nothing was stored (failure envelope)',
}

/** The error statuses the route of endpoint `no` can answer. */
export function errorStatuses(no: number, schema: Record<string, unknown>): number[] {
  const x = endpoint(no)
  const takesBody = x.method === 'POST' || x.method === 'PUT'
  const out = new Set<number>([401, 429, 500])
  // Every POST/PUT parses a body (an empty one is accepted), so a malformed one is a 400.
  if (takesBody || schema.params || schema.querystring || x.scope === 'Project') out.add(400)
  // 408: a body slower than LINTEL_HTTP_BODY_TIMEOUT_S (api/request-time-limits.ts).
  if (takesBody) { out.add(408); out.add(413); out.add(415) }
  if (x.scope !== 'User') out.add(403)
  if (x.scope === 'Project' || /\{(?!project_id)\w+\}/.test(x.path)) out.add(404)
  for (const s of EXTRA[no] ?? []) out.add(s)
  return [...out].sort((a, b) => a - b)
}

/** onRoute hook: numbers, summary, tag and the failure responses of an endpoint's route. */
export function documentRoute(route: RouteOptions): void {
  const no = route.config?.endpoint
  if (no === undefined) return
  const x = endpoint(no)
  const schema = (route.schema ?? {}) as Record<string, unknown>
  if (x.path.startsWith('/haystack/')) {
    route.schema = { ...schema, response: haystackResponses(), summary: `${x.number} - ${x.summary}`, operationId: `endpoint${x.number}${route.method === 'GET' ? 'Get' : ''}`, tags: ['Haystack'] }
    return
  }
  const response = { ...(schema.response as Record<string, unknown> | undefined) }
  for (const s of errorStatuses(no, schema)) response[s] ??= failure(s)
  const extra: Record<string, unknown> = {}
  // 6 exchanges a login for a token: a bearer token is refused there (403).
  if (no === 6) extra.security = [{ basic: [] }]
  route.schema = { ...schema, ...extra, response, summary: `${x.number} - ${x.summary}`, operationId: `endpoint${x.number}`, tags: [x.scope] }
}

/** Multipart bodies: the CSV upload (spec 1: form field `import_file`) and documents (`file`). */
const uploadBody = (field: string, description: string) => ({
  type: 'object',
  required: [field],
  properties: { [field]: { type: 'string', format: 'binary', description } },
})
const UPLOAD_BODIES: Readonly<Record<string, ReturnType<typeof uploadBody>>> = {
  importTimeseries: uploadBody('import_file', 'The CSV file'),
  file: uploadBody('file', 'The document'),
}

/** The import's answer by content negotiation (api/import-progress.ts). */
const IMPORT_PROGRESS = 'With `Accept: application/x-ndjson` the 200 answer is NDJSON: a line ' +
  '`{"type":"progress","phase":"store","total_lines_success","total_lines_error","lines_total"?}` per batch stored after the upload was read, ' +
  'then the envelope below as the last line; a failure after the first line is the last line, `{"success":false,"error","operation","status","code"}`. ' +
  'Failures found while the upload is read keep their status and JSON answer (docs/time-series.md).'

export const swaggerOptions: SwaggerOptions = {
  openapi: {
    openapi: '3.0.3',
    info: {
      title: 'Lintel API', version: '2.0.0',
      description: 'Building-data platform. Every route has an endpoint number (operationId endpointN) that RBAC grants refer to. ' +
        'Failures answer {success: false, error, operation}, with the header Lintel-Error-Code naming the condition (docs/errors.md).',
      license: { name: 'Apache-2.0', url: 'https://www.apache.org/licenses/LICENSE-2.0' },
    },
    // Relative to where the document is served: the server answering /v2/openapi.json.
    servers: [{ url: '/', description: 'This server' }],
    components: {
      securitySchemes: {
        basic: { type: 'http', scheme: 'basic', description: 'Email and password of a user' },
        bearer: { type: 'http', scheme: 'bearer', description: 'A token from POST /v2/auth/token (lt_...)' },
      },
    },
    security: [{ basic: [] }, { bearer: [] }],
  },
  transformObject: (documentObject) => {
    const doc = 'openapiObject' in documentObject ? documentObject.openapiObject : documentObject.swaggerObject
    restoreCallbackSummaries(doc as never)
    return doc
  },
  transform: ({ schema, url }) => {
    const s = schema as unknown as Record<string, unknown> | undefined
    if (!s) return { schema, url }
    const documented = { ...s }
    for (const part of ['querystring', 'body'] as const) if (s[part] !== undefined) documented[part] = optionalDefaults(s[part])
    // Documentation only: the upload route streams the file, so it has no body to validate.
    if (!(s.consumes as string[] | undefined)?.includes('multipart/form-data')) return { schema: documented as never, url }
    const body = url.includes('/importTimeseries') ? UPLOAD_BODIES.importTimeseries : UPLOAD_BODIES.file
    if (url.includes('/importTimeseries')) documented.description = IMPORT_PROGRESS
    return { schema: { ...documented, body } as never, url }
  },
}

/** A property with a default is filled in by the server (ajv useDefaults), so a client may
 *  leave it out: the document must not call it required (prism refused such requests). */
function optionalDefaults(schema: unknown): unknown {
  const o = schema as { properties?: Record<string, { default?: unknown }>; required?: string[] } | undefined
  if (!o?.properties || !o.required) return schema
  const required = o.required.filter((k) => o.properties![k]?.default === undefined)
  return { ...o, required: required.length > 0 ? required : undefined }
}
