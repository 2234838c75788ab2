// Series ids of (project, identifier) pairs for high-volume ingest: a bounded in-memory map
// in front of the catalog, so that a steady MQTT stream does not query SQLite per line.
// A message whose identifiers are all cached resolves without a catalog call (one microtask
// for the Promise). Unknown identifiers are created in the catalog (with their hash ids) in one transaction.
// When the catalog refuses to create them (the project's datapoint quota is reached, or an
// identifier has a control character: issue 9), none of the message's new identifiers is
// created; the resolver reports how many entries it refused and why, and the caller drops
// (and counts) those lines while the lines of known datapoints go on.
import type { Catalog } from '../catalog/index.ts'
import { LintelError } from '../core/errors.ts'

export interface Resolved {
  /** Aligned with the identifiers; undefined where creation was refused. */
  series: (number | undefined)[]
  refused: number
  /** Why they were refused (the catalog's message: quota or identifier). */
  reason?: string
}

export class DatapointResolver {
  private readonly cache = new Map<string, number>()

  constructor (private readonly catalog: Catalog, private readonly maxEntries = 200_000) {}

  async resolve(projectId: number, identifiers: readonly string[]): Promise<Resolved> {
    const out = new Array<number | undefined>(identifiers.length)
    let missing: Set<string> | undefined
    for (let i = 0; i < identifiers.length; i++) {
      const id = this.cache.get(projectId + '\0' + identifiers[i])
      if (id === undefined) (missing ??= new Set()).add(identifiers[i])
      else out[i] = id
    }
    if (!missing) return { series: out, refused: 0 }
    if (this.cache.size + missing.size > this.maxEntries) this.cache.clear() // simple bound; refills from the catalog
    let created: Map<string, number>
    try {
      created = await this.catalog.datapoints.ensure(projectId, missing)
    } catch (err) {
      if (!(err instanceof LintelError)) throw err
      // Known ones still resolve (one lookup each); the new ones are refused together.
      let refused = 0
      for (let i = 0; i < identifiers.length; i++) {
        if (out[i] !== undefined) continue
        const dp = await this.catalog.datapoints.find(projectId, identifiers[i])
        if (dp) this.cache.set(projectId + '\0' + identifiers[i], out[i] = dp.id)
        else refused++
      }
      return { series: out, refused, reason: err.message }
    }
    for (const [ident, series] of created) this.cache.set(projectId + '\0' + ident, series)
    for (let i = 0; i < identifiers.length; i++) if (out[i] === undefined) out[i] = created.get(identifiers[i])!
    return { series: out, refused: 0 }
  }

  /** Forget a project's entries (its datapoints were deleted). */
  forgetProject(projectId: number): void {
    const prefix = projectId + '\0'
    for (const key of this.cache.keys()) if (key.startsWith(prefix)) this.cache.delete(key)
  }
}
