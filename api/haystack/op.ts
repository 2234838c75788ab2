// The shape of one Haystack op (project-haystack.org/doc/docHaystack/Ops) and what its handler
// is given. Ops are registered in one table (ops/index.ts); api/haystack/routes.ts serves each
// at /haystack/{project_id}/{op} with its own registry number, decodes the request grid (Zinc
// or JSON, or GET query parameters for read-only ops) and encodes the answer in the format the
// client accepts, streaming a GridStream row by row.
import type { FastifyRequest } from 'fastify'
import type { ProjectSettings } from '../../catalog/types.ts'
import type { AccessMode, DatapointTags } from '../../core/tag-auth.ts'
import type { Grid, GridStream } from '../../protocol/haystack/values.ts'
import type { Caller } from '../authenticate.ts'
import type { RouteContext } from '../route-context.ts'
import type { HaystackServices } from './services.ts'

export type { Grid, GridStream }

export interface HaystackContext {
  /** The project (= the Haystack database) with its IANA time zone (`time_zone`). */
  project: ProjectSettings
  /** The authenticated caller. */
  caller: Caller
  /** The registry number of the op being served (its TagAuths decide what a datapoint shows). */
  endpoint: number
  /** Whether the caller may read or write the datapoint through this op's endpoint (TagAuths). */
  canAccess(dp: DatapointTags, mode: AccessMode): boolean
  /** The catalog, store and ingest path every route has. */
  route: RouteContext
  /** Setpoints, live feed: what buildApp was given (absent ones: the op answers an error grid). */
  services: HaystackServices
  /** The HTTP request (headers, address), for ops that need more than the grid. */
  req: FastifyRequest
  /** Aborted when the client goes away: long ops stop producing rows. */
  signal: AbortSignal
}

export interface HaystackOp {
  /** The op's name as in the URL and the `ops` grid (`read`, `hisRead`, ...). */
  name: string
  /** One line for the `ops` grid. */
  summary: string
  /** Read-only ops may also be called with GET and query parameters (Haystack "HTTP API"). */
  readOnly: boolean
  /** Registry number (api/registry.ts): grants of roles name it. */
  endpoint: number
  /** The answer; throw HaystackOpError (or a LintelError) for an error grid. */
  handler(ctx: HaystackContext, request: Grid): Promise<Grid | GridStream>
}

/**
 * A failure of an op the client caused (bad filter, unknown id, wrong argument): an error grid
 * with HTTP 200, as Haystack servers answer op errors. Platform refusals (authentication,
 * grants, bodies) keep their HTTP status (api/haystack/errors.ts).
 */
export class HaystackOpError extends Error {
  constructor (message: string, readonly status = 200) { super(message) }
}
