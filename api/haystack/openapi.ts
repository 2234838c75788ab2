// The OpenAPI entries of the Haystack ops (api/openapi.ts documentRoute asks here): every answer
// is a grid, Hayson (application/json, or application/vnd.haystack+json when asked) or Zinc
// (text/zinc); a failure is an error grid (meta `err`, `dis`, `errTrace`: the condition's code).
// The request grid (POST) is Zinc or JSON; a read-only op also takes it as query parameters (GET).
const GRID = {
  type: 'object', required: ['_kind', 'meta', 'cols', 'rows'],
  properties: { _kind: { type: 'string', enum: ['grid'] }, meta: { type: 'object' }, cols: { type: 'array', items: { type: 'object' } }, rows: { type: 'array', items: { type: 'object' } } },
}
const ERROR_GRID = {
  ...GRID, properties: { ...GRID.properties, meta: { type: 'object', required: ['ver', 'err', 'dis'], properties: { ver: { type: 'string' }, err: { type: 'object' }, dis: { type: 'string' }, errTrace: { type: 'string' } } } },
}
const content = (schema: object) => ({
  'application/json': { schema },
  'application/vnd.haystack+json': { schema },
  'text/zinc': { schema: { type: 'string', description: 'The same grid in Zinc' } },
})

const TEXT: Readonly<Record<number, string>> = {
  400: 'The request grid cannot be read (error grid)', 401: 'No or wrong credentials (error grid; WWW-Authenticate: Basic)',
  403: 'The op is not granted: Unauthorized access to endpoint: <number> - POST /haystack/{project_id}/<op> (error grid)',
  404: 'Unknown project, or one of another company (error grid)', 405: 'GET of an op with side effects (error grid)',
  406: 'Accept names no format of ours (error grid in JSON)', 408: 'The body arrived too slowly (error grid)', 413: 'The body is too large (error grid)',
  415: 'The body is neither Zinc nor JSON (error grid)', 429: 'Too many failed logins; retry after Retry-After seconds (error grid)',
  500: 'Internal error (error grid)', 503: 'Overloaded; retry later (error grid)',
}

/** Responses of a Haystack op: the grid (200; an op's own failure is an error grid with 200 too) and the refusals. */
export function haystackResponses(): Record<number, unknown> {
  const out: Record<number, unknown> = {
    200: { description: 'The answer grid, or an error grid (meta err) when the op itself fails (a bad filter, an unknown id)', content: content(GRID) },
  }
  for (const [status, description] of Object.entries(TEXT)) out[Number(status)] = { description, content: content(ERROR_GRID) }
  return out
}
