// Writes the rows of one long import (a CSV file) to the store: access and series ids are
// looked up once per identifier for the whole import (not per batch), and up to
// `maxInflight` appends run at once, so parsing the next batch overlaps the store's commit
// of the previous ones (the writer group-commits them, in arrival order, so a later line
// still replaces an earlier one with the same datapoint and time).
import type { Catalog } from '../catalog/index.ts'
import type { Ingest } from '../engine/ingest-port.ts'
import type { Observation } from '../engine/store/port.ts'
import type { CsvLineError, CsvRow } from '../protocol/csv/parse.ts'
import { DatapointResolver, noWriteAccess, type WriteCheck } from './datapoint-resolver.ts'

export { noWriteAccess } from './datapoint-resolver.ts'

export class ImportWriter {
  /** Identifier → series id; null when the caller may not write it; absent = not seen yet. */
  private readonly series = new Map<string, number | null>()
  /** Allowed identifiers not in the catalog yet, seen by accessErrors (the check pass of abort). */
  private readonly unseen = new Set<string>()
  private room: number | undefined
  private readonly inflight = new Set<Promise<void>>()
  private failure: Error | undefined
  private readonly resolver: DatapointResolver

  constructor (
    private readonly catalog: Catalog,
    private readonly ingest: Ingest,
    private readonly projectId: number,
    private readonly canWrite: WriteCheck,
    private readonly maxInflight = 4,
  ) {
    this.resolver = new DatapointResolver(catalog)
  }

  /**
   * Rows the caller may not write, as line errors; creates nothing. Throws the quota's 413 as
   * soon as the new identifiers seen so far would not fit into the project's datapoint quota
   * (so an aborting import stores nothing rather than failing half way).
   */
  async accessErrors(rows: readonly CsvRow[]): Promise<CsvLineError[]> {
    const errors: CsvLineError[] = []
    for (const r of rows) {
      if (this.unseen.has(r.id)) continue
      if (!await this.allowed(r.id)) errors.push({ line_no: r.line, error: noWriteAccess(r.id) })
      else if (this.series.get(r.id) === undefined) {
        this.unseen.add(r.id)
        if (this.room === undefined) { const q = await this.catalog.datapoints.quota(this.projectId); this.room = q.max - q.used }
        if (this.unseen.size > this.room) await this.catalog.datapoints.assertRoom(this.projectId, this.unseen.size)
      }
    }
    return errors
  }

  /** Queues the allowed rows for the store (creating their datapoints); returns the others as errors. */
  async write(rows: readonly CsvRow[]): Promise<{ stored: number; errors: CsvLineError[] }> {
    if (this.failure) throw this.failure
    const errors: CsvLineError[] = []
    const fresh = new Set<string>()
    for (const r of rows) {
      if (!await this.allowed(r.id)) errors.push({ line_no: r.line, error: noWriteAccess(r.id) })
      else if (this.series.get(r.id) === undefined) fresh.add(r.id)
    }
    if (fresh.size > 0) {
      // In steps of CREATE_STEP new datapoints with the event loop free in between (a batch of 50,000
      // rows may name 50,000 new identifiers; creating them at once holds the loop ~0.5 s).
      for (const [id, series] of await this.resolver.create(this.projectId, [...fresh])) this.series.set(id, series)
    }
    const batch: Observation[] = []
    for (const r of rows) {
      const series = this.series.get(r.id)
      if (series != null) batch.push({ series, time: r.time, value: r.value })
    }
    if (batch.length > 0) {
      while (this.inflight.size >= this.maxInflight) await Promise.race(this.inflight)
      if (this.failure) throw this.failure
      const p: Promise<void> = this.ingest(this.projectId, batch).then(
        () => { this.inflight.delete(p) },
        (err: Error) => { this.inflight.delete(p); this.failure ??= err },
      )
      this.inflight.add(p)
    }
    return { stored: batch.length, errors }
  }

  /** Waits until every queued row is durable; throws the first store failure. */
  async flush(): Promise<void> {
    await Promise.all(this.inflight)
    if (this.failure) throw this.failure
  }

  private async allowed(id: string): Promise<boolean> {
    const known = this.series.get(id)
    if (known !== undefined) return known !== null
    const r = await this.resolver.check(this.projectId, id, this.canWrite)
    if (!r.allowed) {
      this.series.set(id, null)
      return false
    }
    // Known and allowed: remember its id; new ones stay unseen until write() creates them.
    if (r.series !== undefined) this.series.set(id, r.series)
    return true
  }
}
