// The datapoint tags the broker's reach check needs (reach.ts), held per project so that a
// publish never costs a catalog round trip and `authorizeForward` (which aedes asks
// synchronously) can answer at all, on any adapter of the catalog port.
//
// A project is loaded whole (its tagged datapoints: one read) on first use: when an account
// whose TagAuths need tags connects, or before such an account's message is checked (the
// message waits for the load; aedes handles a client's packets in order, so ordering holds).
// It is kept current by the catalog's `datapoint-tags` change (catalog/changes.ts), which
// every process on the catalog hears after the commit: the datapoint is read again (after
// any load in flight, so a load that began before the commit cannot win) and the newest
// read per datapoint applies. A META change made through this broker is applied at once
// (`set`), before the message is acknowledged. `{ project }` drops the project, `{ all }` and
// a lost change connection (`{ reconnected }`) drop every project; the next use loads again.
//
// Bounded (STYLE.md habit 6): the loaded projects are an LRU bounded by their number of
// tagged datapoints. A project evicted (or dropped) answers `undefined` until loaded again:
// the reach check then refuses (fails closed) and the load starts.
import { LRUCache } from 'lru-cache'
import { DATAPOINT_TAGS } from '../../catalog/changes.ts'
import type { Catalog } from '../../catalog/index.ts'
import type { ChangePayload } from '../../catalog/port.ts'

export type Tags = Readonly<Record<string, string>>

/** Tagged datapoints held at most, over all loaded projects (BrokerDeps.tagCacheSize). */
export const DEFAULT_MAX_TAGGED = 1_000_000

const UNTAGGED: Tags = Object.freeze({})

/** The tagged datapoints of one project: tags by dataPointID, and dataPointID by integer id. */
interface ProjectTags { byName: Map<string, Tags>; nameOf: Map<number, string> }

export class DatapointTagCache {
  private readonly projects: LRUCache<number, ProjectTags>
  private readonly loads = new Map<number, Promise<void>>()
  /** Per datapoint id with reads in flight: their number, and the newest read or write (an older read that ends later is dropped). */
  private readonly inFlight = new Map<number, number>()
  private readonly newest = new Map<number, number>()
  private seq = 0
  /** Bumped when projects are dropped: a load begun before is not stored. */
  private generation = 0
  private readonly unsubscribe: () => void

  constructor (private readonly catalog: Catalog, maxTagged = DEFAULT_MAX_TAGGED, private readonly onError: (err: unknown) => void = () => {}) {
    this.projects = new LRUCache({ maxSize: maxTagged, sizeCalculation: (p) => p.nameOf.size + 1 })
    this.unsubscribe = catalog.changes.subscribe(DATAPOINT_TAGS, (p) => this.changed(p))
  }

  /** The datapoint's tags ({} when it has none or does not exist); undefined when its project is not loaded (the load starts). */
  peek(projectId: number, dataPointID: string): Tags | undefined {
    const p = this.projects.get(projectId)
    if (!p) {
      this.load(projectId).catch(this.onError)
      return undefined
    }
    return p.byName.get(dataPointID) ?? UNTAGGED
  }

  /** Resolves once the project is loaded (one catalog read, shared by everyone waiting). */
  load(projectId: number): Promise<void> {
    if (this.projects.has(projectId)) return Promise.resolve()
    let l = this.loads.get(projectId)
    if (!l) {
      l = this.read(projectId).finally(() => this.loads.delete(projectId))
      this.loads.set(projectId, l)
    }
    return l
  }

  /** A change of the datapoint's tags made by this process, committed: applied at once. */
  set(projectId: number, id: number, dataPointID: string, tags: Tags): void {
    if (this.inFlight.has(id)) this.newest.set(id, ++this.seq) // a read in flight may predate it: dropped
    this.apply(id, { project_id: projectId, dataPointID, tags })
  }

  /** Projects loaded (metrics, tests). */
  get size(): number { return this.projects.size }

  close(): void { this.unsubscribe() }

  private async read(projectId: number): Promise<void> {
    for (;;) {
      const generation = this.generation
      const rows = await this.catalog.datapoints.taggedOfProject(projectId)
      if (generation !== this.generation) continue // dropped meanwhile: what was read may predate the change
      const p: ProjectTags = { byName: new Map(), nameOf: new Map() }
      for (const r of rows) {
        p.byName.set(r.dataPointID, r.tags)
        p.nameOf.set(r.id, r.dataPointID)
      }
      this.projects.set(projectId, p)
      if (!this.projects.has(projectId)) this.onError(new Error(`Project ${projectId} has ${rows.length} tagged datapoints, more than the MQTT tag cache holds: its TagAuth checks refuse`))
      return
    }
  }

  private changed(payload: ChangePayload): void {
    if (typeof payload.datapoint === 'number') {
      this.refresh(payload.datapoint).catch(this.onError)
      return
    }
    this.generation++
    if (typeof payload.project === 'number') this.projects.delete(payload.project)
    else this.projects.clear() // { all } or { reconnected }: anything may have changed
  }

  /** Reads the datapoint again once the loads in flight have ended, and applies the read unless a newer one was made. */
  private async refresh(id: number): Promise<void> {
    const n = ++this.seq
    this.newest.set(id, n)
    this.inFlight.set(id, (this.inFlight.get(id) ?? 0) + 1)
    try {
      await Promise.allSettled([...this.loads.values()])
      const dp = await this.catalog.datapoints.byId(id)
      if (this.newest.get(id) === n) this.apply(id, dp)
    } finally {
      const left = this.inFlight.get(id)! - 1
      if (left > 0) this.inFlight.set(id, left)
      else { this.inFlight.delete(id); this.newest.delete(id) }
    }
  }

  /** Puts the datapoint's tags into its loaded project; undefined: it no longer exists. */
  private apply(id: number, dp: { project_id: number; dataPointID: string; tags: Tags } | undefined): void {
    if (!dp) {
      const holding = [...this.projects.entries()].filter(([, p]) => p.nameOf.has(id))
      for (const [projectId, p] of holding) this.put(projectId, p, id, undefined)
      return
    }
    const p = this.projects.peek(dp.project_id)
    if (p) this.put(dp.project_id, p, id, dp)
  }

  private put(projectId: number, p: ProjectTags, id: number, dp: { dataPointID: string; tags: Tags } | undefined): void {
    const before = p.nameOf.size
    const old = p.nameOf.get(id)
    if (old !== undefined) p.byName.delete(old)
    p.nameOf.delete(id)
    if (dp && Object.keys(dp.tags).length > 0) {
      p.byName.set(dp.dataPointID, { ...dp.tags })
      p.nameOf.set(id, dp.dataPointID)
    }
    // A new holder object, so that the LRU counts the new size (and evicts others when over the bound).
    if (p.nameOf.size !== before) this.projects.set(projectId, { byName: p.byName, nameOf: p.nameOf })
  }
}
