// Stores identified observations of one project: creates missing datapoints (with their
// hash ids), checks the caller's write access per datapoint, then appends to the store.
// If the store fails, datapoints created for this batch are removed again, so a failed
// request leaves nothing behind.
import type { Catalog } from '../catalog/index.ts'
import { ForbiddenError } from '../catalog/errors.ts'
import type { Datapoint } from '../catalog/types.ts'
import type { Ingest } from '../engine/ingest.ts'
import type { Observation } from '../engine/store/port.ts'
import type { IdentifiedObservation } from './json-observations.ts'

export type WriteCheck = (dp: Pick<Datapoint, 'dataPointID' | 'tags'>) => boolean

export class ObservationWriter {
  constructor (private readonly catalog: Catalog, private readonly ingest: Ingest) {}

  /** Series ids of the identifiers, creating datapoints; throws if one may not be written. */
  resolve(projectId: number, identifiers: Iterable<string>, canWrite: WriteCheck): { ids: Map<string, number>; created: number[] } {
    const { datapoints } = this.catalog
    const ids = new Map<string, number>()
    const fresh: string[] = []
    for (const id of new Set(identifiers)) {
      const dp = datapoints.find(projectId, id)
      if (!canWrite(dp ?? { dataPointID: id, tags: {} })) throw new ForbiddenError(`No write access to datapoint '${id}'`)
      if (dp) ids.set(id, dp.id)
      else fresh.push(id)
    }
    // Only the new identifiers go to the catalog again (the known ones were just found).
    for (const [id, series] of datapoints.ensure(projectId, fresh)) ids.set(id, series)
    return { ids, created: fresh.map((id) => ids.get(id)!) }
  }

  async write(projectId: number, rows: readonly IdentifiedObservation[], canWrite: WriteCheck): Promise<void> {
    if (rows.length === 0) return
    const { ids, created } = this.resolve(projectId, rows.map((r) => r.id), canWrite)
    const batch: Observation[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) batch[i] = { series: ids.get(rows[i].id)!, time: rows[i].time, value: rows[i].value }
    try {
      await this.ingest(projectId, batch)
    } catch (err) {
      this.catalog.datapoints.remove(created)
      throw err
    }
  }
}
