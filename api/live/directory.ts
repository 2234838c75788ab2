// The datapoints the live hub needs to route observations (issue 33): series id → project,
// identifier and tags as stored now, for the projects watched in this process. Loaded whole
// when a project is first watched; a series unknown here (a datapoint created since) is looked
// up once; tag changes (the catalog's `datapoint-tags` change, from any node) reload the entry.
// A series of a project nobody watches is remembered as such, bounded, so the embedded bus's
// batches of other projects cost one map lookup per observation.
import type { Catalog } from '../../catalog/index.ts'
import type { Datapoint } from '../../catalog/types.ts'

export interface SeriesInfo { id: number; project_id: number; dataPointID: string; tags: Record<string, string> }

/** Series of unwatched projects remembered at most (then forgotten at once, and looked up again). */
const MAX_ELSEWHERE = 200_000

export class SeriesDirectory {
  private readonly bySeries = new Map<number, SeriesInfo>()
  private readonly byName = new Map<number, Map<string, SeriesInfo>>()
  /** Series known to belong to a project not watched here (or to no datapoint any more). */
  private readonly elsewhere = new Map<number, number>()
  private readonly loading = new Map<number, Promise<void>>()

  constructor (private readonly catalog: Catalog) {}

  isLoaded(projectId: number): boolean {
    return this.byName.has(projectId)
  }

  /** Loads the project's datapoints (once; again after forget). */
  load(projectId: number): Promise<void> {
    if (this.byName.has(projectId)) return Promise.resolve()
    let p = this.loading.get(projectId)
    if (!p) {
      p = this.catalog.datapoints.listByProject(projectId).then((list) => {
        const names = new Map<string, SeriesInfo>()
        this.byName.set(projectId, names)
        for (const dp of list) this.put(dp)
      }).finally(() => this.loading.delete(projectId))
      this.loading.set(projectId, p)
    }
    return p
  }

  /** Nobody watches the project any more. */
  forget(projectId: number): void {
    const names = this.byName.get(projectId)
    if (!names) return
    this.byName.delete(projectId)
    for (const info of names.values()) this.bySeries.delete(info.id)
  }

  /** Known and watched: its info; known elsewhere: null; unknown here: undefined (lookup()). */
  get(series: number): SeriesInfo | null | undefined {
    const info = this.bySeries.get(series)
    if (info) return info
    return this.elsewhere.has(series) ? null : undefined
  }

  named(projectId: number, dataPointID: string): SeriesInfo | undefined {
    return this.byName.get(projectId)?.get(dataPointID)
  }

  ofProject(projectId: number): SeriesInfo[] {
    return [...(this.byName.get(projectId)?.values() ?? [])]
  }

  watchedProjects(): number[] {
    return [...this.byName.keys()]
  }

  /** Looks an unknown series up in the catalog: its info if its project is watched, else null. */
  async lookup(series: number): Promise<SeriesInfo | null> {
    const dp = await this.catalog.datapoints.byId(series)
    return this.settle(series, dp)
  }

  /** Reloads one datapoint (its tags changed or it was removed): the info now, or null. */
  async reload(series: number): Promise<SeriesInfo | null> {
    const old = this.bySeries.get(series)
    if (old) this.drop(old)
    return this.settle(series, await this.catalog.datapoints.byId(series))
  }

  /** Reloads a watched project whole (many of its datapoints changed). */
  async reloadProject(projectId: number): Promise<void> {
    if (!this.byName.has(projectId)) return
    this.forget(projectId)
    await this.load(projectId)
  }

  private settle(series: number, dp: Datapoint | undefined): SeriesInfo | null {
    if (dp && this.byName.has(dp.project_id)) return this.put(dp)
    if (this.elsewhere.size >= MAX_ELSEWHERE) this.elsewhere.clear()
    this.elsewhere.set(series, dp?.project_id ?? 0)
    return null
  }

  private put(dp: Datapoint): SeriesInfo {
    const info: SeriesInfo = { id: dp.id, project_id: dp.project_id, dataPointID: dp.dataPointID, tags: dp.tags }
    this.elsewhere.delete(dp.id)
    this.bySeries.set(dp.id, info)
    this.byName.get(dp.project_id)?.set(dp.dataPointID, info)
    return info
  }

  private drop(info: SeriesInfo): void {
    this.bySeries.delete(info.id)
    const names = this.byName.get(info.project_id)
    if (names?.get(info.dataPointID) === info) names.delete(info.dataPointID)
  }
}
