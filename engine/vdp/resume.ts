// The running set of the VDP runtime (runtime.ts) against the catalog: stopping groups of
// them (a project deleted, partitions moved), resuming after a process restart and
// reconciling in scaled mode, where run/stop comes from an API in another process.
import type { Subscription } from 'rxjs'
import type { Catalog } from '../../catalog/index.ts'
import type { VdpRecord } from '../../catalog/virtual-datapoints.ts'
import { VDP_LIFECYCLE } from './lifecycle.ts'
import type { RuntimeLog } from './start.ts'
import { moveVdp } from './status.ts'

export abstract class VdpResumer {
  protected abstract readonly running: Map<number, { sub: Subscription; projectId: number }>
  protected abstract readonly starting: Map<number, number>
  abstract start(v: VdpRecord): Promise<void>
  abstract stop(id: number): void

  constructor (private readonly catalog: Catalog, private readonly log: RuntimeLog, protected readonly owns: (projectId: number) => boolean) {}

  stopAll(): void {
    for (const id of [...this.running.keys(), ...this.starting.keys()]) this.stop(id)
  }

  /** Stops every virtual datapoint of the project, starts under way included (project deletion). */
  stopProject(projectId: number): void {
    for (const [id, r] of this.running) if (r.projectId === projectId) this.stop(id)
    for (const [id, p] of this.starting) if (p === projectId) this.stop(id)
  }

  /** Stops the virtual datapoints of projects this process no longer owns (a partition moved). */
  stopUnowned(): void {
    for (const [id, r] of this.running) if (!this.owns(r.projectId)) this.stop(id)
    for (const [id, p] of this.starting) if (!this.owns(p)) this.stop(id)
  }

  /** Ids of the virtual datapoints running now (for metrics and tests). */
  runningIds(): number[] {
    return [...this.running.keys()]
  }

  /** Starts every virtual datapoint whose status says it runs (after a process restart). */
  async resume(): Promise<void> {
    for (const v of await this.catalog.virtualDatapoints.listByStatus(VDP_LIFECYCLE.running)) {
      if (!this.owns(v.project_id)) continue
      try {
        if (!await this.catalog.projects.vdpEnabled(v.project_id)) throw new Error('virtual datapoints are disabled for the project')
        await this.start(v)
        this.log.info({ vdp: v.dataPointID, project_id: v.project_id }, 'virtual datapoint resumed')
      } catch (err) {
        await this.startFailed(v, `Start failed after restart: ${(err as Error).message}`)
      }
    }
  }

  /**
   * Matches the running set to the catalog and to the projects this process owns (scaled
   * mode: run/stop comes from an API in another process; partitions move between workers).
   */
  async reconcile(): Promise<void> {
    const all = await this.catalog.virtualDatapoints.listByStatus(VDP_LIFECYCLE.running)
    const wanted = new Map(all.filter((v) => this.owns(v.project_id)).map((v) => [v.id, v]))
    for (const id of [...this.running.keys()]) if (!wanted.has(id)) this.stop(id)
    for (const v of wanted.values()) {
      if (this.running.has(v.id)) continue
      try {
        await this.start(v)
      } catch (err) {
        await this.startFailed(v, `Start failed: ${(err as Error).message}`)
      }
    }
  }

  protected async startFailed(v: VdpRecord, message: string): Promise<void> {
    try { await moveVdp(this.catalog, v.id, 'start_failed', message) } catch { /* deleted or moved on meanwhile */ }
  }
}
