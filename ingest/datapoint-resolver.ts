// Series ids of (project, identifier) pairs for high-volume ingest: a bounded in-memory map
// in front of the catalog, so that a steady MQTT stream does not query SQLite per line.
// Unknown identifiers are created in the catalog (with their hash ids) in one transaction.
import type { Catalog } from '../catalog/index.ts'

export class DatapointResolver {
  private readonly cache = new Map<string, number>()

  constructor (private readonly catalog: Catalog, private readonly maxEntries = 200_000) {}

  /** Series ids aligned with `identifiers`. */
  resolve(projectId: number, identifiers: readonly string[]): number[] {
    const out = new Array<number>(identifiers.length)
    let missing: Set<string> | undefined
    for (let i = 0; i < identifiers.length; i++) {
      const id = this.cache.get(projectId + '\0' + identifiers[i])
      if (id === undefined) (missing ??= new Set()).add(identifiers[i])
      else out[i] = id
    }
    if (missing) {
      if (this.cache.size + missing.size > this.maxEntries) this.cache.clear() // simple bound; refills from the catalog
      const created = this.catalog.datapoints.ensure(projectId, missing)
      for (const [ident, series] of created) this.cache.set(projectId + '\0' + ident, series)
      for (let i = 0; i < identifiers.length; i++) if (out[i] === undefined) out[i] = created.get(identifiers[i])!
    }
    return out
  }

  /** Forget a project's entries (its datapoints were deleted). */
  forgetProject(projectId: number): void {
    const prefix = projectId + '\0'
    for (const key of this.cache.keys()) if (key.startsWith(prefix)) this.cache.delete(key)
  }
}
