// The one request-side access resolver (issue 30 item 3; spec 1 access rules 2 and 5): every
// route that touches datapoints asks here, with its endpoint number, instead of combining the
// caller's filter and the TagAuth matcher itself. The rules, the same for every route:
//
// - the datapoints an endpoint reaches are the union of the TagAuths of the caller's roles that
//   grant that endpoint (api/permissions.ts datapointFilter), matched by core/tag-auth.ts on the
//   datapoint as stored now (an unknown one as a datapoint without tags);
// - a resource the request looks up (a datapoint, or an alert, virtual datapoint, analysis
//   instance or setpoint operation shown through its datapoints) that is unknown or unreadable
//   answers 404, alike, so TagAuths do not reveal what exists: `Datapoint '<id>' not found in
//   project <n>` (DATAPOINT_NOT_FOUND) or the resource's own not-found text;
// - a datapoint the request names to read from or write into (an input, an output, an alert's
//   datapoint, a mapping, a setpoint) without that access answers 403 (DESIGN.md: a grant the
//   caller lacks), as JSON ingest refuses an unwritable datapoint: `No read access to datapoint
//   '<id>'` or `No write access to datapoint '<id>'` (DATAPOINT_ACCESS_DENIED). Setpoint writing
//   (141) puts the endpoint's refusal text first, as spec 2 ("Errors") names it.
import type { FastifyRequest } from 'fastify'
import type { Catalog } from '../catalog/index.ts'
import type { Datapoint } from '../catalog/types.ts'
import { ForbiddenError, NotFoundError } from '../core/errors.ts'
import { canAccessDatapoint, type AccessMode, type DatapointTags } from '../core/tag-auth.ts'
import type { DatapointFilter } from './permissions.ts'
import { deniedText, endpoint } from './registry.ts'

/** Endpoints whose refusal the spec words as the endpoint's own (spec 2 "Errors": setpoint writing). */
const SPEC_WORDED = new Set([141])

export const datapointNotFound = (id: string, projectId: number): NotFoundError =>
  new NotFoundError(`Datapoint '${id}' not found in project ${projectId}`, 'DATAPOINT_NOT_FOUND')

export function datapointDenied(no: number, id: string, mode: AccessMode): ForbiddenError {
  const text = `no ${mode} access to datapoint '${id}'`
  return new ForbiddenError(SPEC_WORDED.has(no) ? `${deniedText(endpoint(no))}: ${text}` : text[0].toUpperCase() + text.slice(1), 'DATAPOINT_ACCESS_DENIED')
}

export class DatapointAccess {
  constructor (private readonly catalog: Catalog) {}

  /** The caller's filter for endpoint `no` in the project (default: the request's project). */
  filter(req: FastifyRequest, no: number, projectId = req.project.id): DatapointFilter {
    return req.permissions.datapointFilter(no, projectId)
  }

  /** A synchronous test over datapoints already loaded (lists, masks); `all` when the filter reaches every datapoint. */
  test(req: FastifyRequest, no: number, mode: AccessMode, projectId = req.project.id): ((dp: DatapointTags) => boolean) & { all: boolean } {
    const f = this.filter(req, no, projectId)
    return Object.assign((dp: DatapointTags) => canAccessDatapoint(f, dp, mode), { all: f.all })
  }

  /** The datapoint as stored, or as a new one without tags. */
  async known(projectId: number, dataPointID: string): Promise<DatapointTags & Partial<Datapoint>> {
    return (await this.catalog.datapoints.find(projectId, dataPointID)) ?? { dataPointID, tags: {} }
  }

  /** Whether the caller may read or write the datapoint through endpoint `no`. */
  async allows(req: FastifyRequest, no: number, dataPointID: string, mode: AccessMode, projectId = req.project.id): Promise<boolean> {
    return canAccessDatapoint(this.filter(req, no, projectId), await this.known(projectId, dataPointID), mode)
  }

  /** Whether the caller reads every one of the datapoints through `no` (a resource shown through them all). */
  async readsAll(req: FastifyRequest, no: number, dataPointIDs: Iterable<string>, projectId = req.project.id): Promise<boolean> {
    const f = this.filter(req, no, projectId)
    for (const id of dataPointIDs) if (!canAccessDatapoint(f, await this.known(projectId, id), 'read')) return false
    return true
  }

  /** The datapoint a request reads: unknown and unreadable answer alike, 404. */
  async readable(req: FastifyRequest, no: number, dataPointID: string): Promise<Datapoint> {
    const dp = await this.catalog.datapoints.find(req.project.id, dataPointID)
    if (!dp || !canAccessDatapoint(this.filter(req, no), dp, 'read')) throw datapointNotFound(dataPointID, req.project.id)
    return dp
  }

  /** A resource shown through its datapoints: `notFound` unless the caller reads every one of them. */
  async assertVisible(req: FastifyRequest, no: number, dataPointIDs: Iterable<string>, notFound: () => Error, projectId = req.project.id): Promise<void> {
    if (!(await this.readsAll(req, no, dataPointIDs, projectId))) throw notFound()
  }

  /** A datapoint the request names to read from or write into: 403 without that access. */
  async require(req: FastifyRequest, no: number, dataPointID: string, mode: AccessMode): Promise<void> {
    if (!(await this.allows(req, no, dataPointID, mode))) throw datapointDenied(no, dataPointID, mode)
  }
}
