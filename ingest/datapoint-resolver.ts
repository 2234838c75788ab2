// The one way from identifiers to series ids (issue 16, item 5), for every ingest path:
// JSON bodies (observation-writer.ts), CSV imports (import-writer.ts) and MQTT lines
// (mqtt/timeseries-messages.ts). What differs between them are options, not code:
//
// - access: HTTP callers check each datapoint against their TagAuths (`access`, with its
//   tags as stored now) and get the one "No write access" text; MQTT checked the account's
//   reach per line before (mqtt/reach.ts) and resolves without it;
// - refusal: a JSON or CSV request fails as a whole (the catalog's 400 or 413 is thrown, and
//   the datapoints made by earlier steps are removed again, so it leaves nothing behind); an
//   MQTT message drops the refused lines and counts them (`resolve` reports them);
// - memory: MQTT keeps a bounded map of known series ids, so a steady stream does not ask
//   the catalog per line; a request looks up each identifier once.
// Creation runs in steps of CREATE_STEP new datapoints with the event loop free in between (issue 9,
// item 8: a body or a CSV batch may name 100,000 identifiers), after a quota check up front.
// Metadata messages create entities through the catalog's entity-tags repository instead:
// a META message over the quota is dropped whole, never split (mqtt/meta-handler.ts).
import { setImmediate as yieldToLoop } from 'node:timers/promises'
import type { Catalog } from '../catalog/index.ts'
import type { Datapoint } from '../catalog/types.ts'
import { LintelError } from '../core/errors.ts'
import { DATAPOINT_TAGS } from '../catalog/changes.ts'

/** Identifiers looked up between two turns of the event loop. */
export const STEP = 250
/**
 * Datapoints created between two turns of the event loop: creating 1,000 took 16-27 ms on the
 * shared machine on one day, and 250 took up to 59 ms on a slow day (2026-11-26: each one is
 * a lookup, a hash id and inserts into indexes of a 200,000-datapoint project), which failed
 * the 50 ms of test/api/bounded-requests.test.ts.
 */
export const CREATE_STEP = 50

/** Whether the caller may write the datapoint (tags as stored; a new one has none). */
export type WriteCheck = (dp: Pick<Datapoint, 'dataPointID' | 'tags'>) => boolean

/** The refusal text of a datapoint the caller may not write (JSON: 403; CSV: a line error). */
export const noWriteAccess = (id: string): string => `No write access to datapoint '${id}'`

export interface Resolved {
  /** Aligned with the identifiers; undefined where creation was refused. */
  series: (number | undefined)[]
  refused: number
  /** Why they were refused (the catalog's message: quota or identifier). */
  reason?: string
}

export class DatapointResolver {
  private readonly cache = new Map<string, number>()
  private listening = false

  /** `maxEntries`: the bound of the memory of known series ids (used by `resolve` only). */
  constructor (private readonly catalog: Catalog, private readonly maxEntries = 200_000) {}

  /**
   * MQTT: series ids of a message's identifiers, from memory where known; the unknown ones are
   * created together. When the catalog refuses them (quota, identifier), none of them is
   * created: they come back undefined and counted, while the known ones still resolve.
   */
  async resolve(projectId: number, identifiers: readonly string[]): Promise<Resolved> {
    // A removed datapoint (DELETE /v2/datapoint, a deleted project) must not keep its series id
    // here: the next line of its identifier would land in a series the catalog no longer names.
    if (!this.listening) {
      this.listening = true
      this.catalog.changes.subscribe(DATAPOINT_TAGS, (p) => { if (p.removed || p.project !== undefined || p.all || p.reconnected) this.cache.clear() })
    }
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

  /**
   * HTTP and CSV: the caller's access to one identifier. `allowed: false` when `access`
   * refuses the datapoint (as stored, or as a new one without tags); `series` when it exists.
   */
  async check(projectId: number, identifier: string, access: WriteCheck): Promise<{ allowed: boolean; series?: number }> {
    const dp = await this.catalog.datapoints.find(projectId, identifier)
    if (!access(dp ?? { dataPointID: identifier, tags: {} })) return { allowed: false }
    return dp ? { allowed: true, series: dp.id } : { allowed: true }
  }

  /** `check` over many identifiers, looked up STEP at a time (one catalog call each); the loop is free in between. */
  async checkAll(projectId: number, identifiers: Iterable<string>, access: WriteCheck, each: (id: string, r: { allowed: boolean; series?: number }) => void): Promise<void> {
    const all = [...identifiers]
    for (let i = 0; i < all.length; i += STEP) {
      if (i > 0) await yieldToLoop()
      const step = all.slice(i, i + STEP)
      const found = await this.catalog.datapoints.findMany(projectId, step)
      for (const id of step) {
        const dp = found.get(id)
        if (!access(dp ?? { dataPointID: id, tags: {} })) each(id, { allowed: false })
        else each(id, dp ? { allowed: true, series: dp.id } : { allowed: true })
      }
    }
  }

  /**
   * HTTP and CSV: creates the new identifiers in steps of CREATE_STEP (the quota checked up front
   * when there is more than one step) and returns their series ids. All or nothing: if a step
   * fails, the datapoints of the earlier steps are removed again and the error is thrown.
   */
  async create(projectId: number, fresh: readonly string[]): Promise<Map<string, number>> {
    const ids = new Map<string, number>()
    if (fresh.length === 0) return ids
    if (fresh.length > CREATE_STEP) await this.catalog.datapoints.assertRoom(projectId, fresh.length) // fail before the first step
    try {
      for (let i = 0; i < fresh.length; i += CREATE_STEP) {
        if (i > 0) await yieldToLoop()
        for (const [id, series] of await this.catalog.datapoints.ensure(projectId, fresh.slice(i, i + CREATE_STEP))) ids.set(id, series)
      }
    } catch (err) {
      await this.catalog.datapoints.remove([...ids.values()])
      throw err
    }
    return ids
  }

  /** Removes datapoints this resolver created for a write that then failed. */
  async undo(created: Iterable<number>): Promise<void> {
    await this.catalog.datapoints.remove([...created])
  }
}
