// Stores identified observations of one project: resolves the identifiers to series ids
// through the one resolver (datapoint-resolver.ts: the caller's write access per datapoint,
// creation in steps, all or nothing), then appends to the store. If the store fails, the
// datapoints created for this batch are removed again, so a failed request leaves nothing behind.
import type { Catalog } from '../catalog/index.ts'
import { ForbiddenError } from '../core/errors.ts'
import type { Ingest } from '../engine/ingest-port.ts'
import type { Observation } from '../engine/store/port.ts'
import { DatapointResolver, noWriteAccess, type WriteCheck } from './datapoint-resolver.ts'
import type { IdentifiedObservation } from './json-observations.ts'

export type { WriteCheck } from './datapoint-resolver.ts'

export class ObservationWriter {
  private readonly resolver: DatapointResolver

  constructor (catalog: Catalog, private readonly ingest: Ingest) {
    this.resolver = new DatapointResolver(catalog)
  }

  /**
   * Series ids of the identifiers, creating datapoints; throws if one may not be written (403),
   * or (413) if the new ones do not fit into the project's quota.
   */
  async resolve(projectId: number, identifiers: Iterable<string>, canWrite: WriteCheck): Promise<{ ids: Map<string, number>; created: number[] }> {
    const ids = new Map<string, number>()
    const fresh: string[] = []
    await this.resolver.checkAll(projectId, new Set(identifiers), canWrite, (id, r) => {
      if (!r.allowed) throw new ForbiddenError(noWriteAccess(id))
      if (r.series !== undefined) ids.set(id, r.series)
      else fresh.push(id)
    })
    const made = await this.resolver.create(projectId, fresh)
    for (const [id, series] of made) ids.set(id, series)
    return { ids, created: [...made.values()] }
  }

  async write(projectId: number, rows: readonly IdentifiedObservation[], canWrite: WriteCheck): Promise<void> {
    if (rows.length === 0) return
    const { ids, created } = await this.resolve(projectId, rows.map((r) => r.id), canWrite)
    const batch: Observation[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) batch[i] = { series: ids.get(rows[i].id)!, time: rows[i].time, value: rows[i].value }
    try {
      await this.ingest(projectId, batch)
    } catch (err) {
      await this.resolver.undo(created)
      throw err
    }
  }
}
