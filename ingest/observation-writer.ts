// Stores identified observations of one project: creates missing datapoints (with their
// hash ids), checks the caller's write access per datapoint, then appends to the store.
// If the store fails, datapoints created for this batch are removed again, so a failed
// request leaves nothing behind. Large bodies are resolved in steps (see resolve()).
import type { Catalog } from '../catalog/index.ts'
import { ForbiddenError } from '../core/errors.ts'
import type { Datapoint } from '../catalog/types.ts'
import type { Ingest } from '../engine/ingest-port.ts'
import type { Observation } from '../engine/store/port.ts'
import type { IdentifiedObservation } from './json-observations.ts'

/** Identifiers looked up, or datapoints created, between two turns of the event loop. */
const STEP = 1000
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve))

export type WriteCheck = (dp: Pick<Datapoint, 'dataPointID' | 'tags'>) => boolean

export class ObservationWriter {
  constructor (private readonly catalog: Catalog, private readonly ingest: Ingest) {}

  /**
   * Series ids of the identifiers, creating datapoints; throws if one may not be written, or
   * (413) if the new ones do not fit into the project's quota. Looked up and created in steps
   * of STEP with the event loop free in between (issue 9, item 8: a body may name 100,000
   * identifiers); if a step fails, the datapoints made by the earlier steps are removed again.
   */
  async resolve(projectId: number, identifiers: Iterable<string>, canWrite: WriteCheck): Promise<{ ids: Map<string, number>; created: number[] }> {
    const { datapoints } = this.catalog
    const ids = new Map<string, number>()
    const fresh: string[] = []
    let n = 0
    for (const id of new Set(identifiers)) {
      const dp = await datapoints.find(projectId, id)
      if (!canWrite(dp ?? { dataPointID: id, tags: {} })) throw new ForbiddenError(`No write access to datapoint '${id}'`)
      if (dp) ids.set(id, dp.id)
      else fresh.push(id)
      if (++n % STEP === 0) await yieldToLoop()
    }
    if (fresh.length > STEP) await datapoints.assertRoom(projectId, fresh.length) // fail before the first step
    const created: number[] = []
    try {
      for (let i = 0; i < fresh.length; i += STEP) {
        if (i > 0) await yieldToLoop()
        // Only the new identifiers go to the catalog again (the known ones were just found).
        for (const [id, series] of await datapoints.ensure(projectId, fresh.slice(i, i + STEP))) {
          ids.set(id, series)
          created.push(series)
        }
      }
    } catch (err) {
      await datapoints.remove(created)
      throw err
    }
    return { ids, created }
  }

  async write(projectId: number, rows: readonly IdentifiedObservation[], canWrite: WriteCheck): Promise<void> {
    if (rows.length === 0) return
    const { ids, created } = await this.resolve(projectId, rows.map((r) => r.id), canWrite)
    const batch: Observation[] = new Array(rows.length)
    for (let i = 0; i < rows.length; i++) batch[i] = { series: ids.get(rows[i].id)!, time: rows[i].time, value: rows[i].value }
    try {
      await this.ingest(projectId, batch)
    } catch (err) {
      await this.catalog.datapoints.remove(created)
      throw err
    }
  }
}
