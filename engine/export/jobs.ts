// Export jobs (issue 34 item 1): a bulk export of a project's observations runs in the API
// process that accepted it, streaming rows (rows.ts) through the CSV or Parquet encoder into
// the project's document space (engine/blobs/documents.ts: quota counted while it streams;
// over quota the upload stops and the job fails with the quota's reason). The catalog keeps
// state and progress (catalog/exports.ts); a heartbeat every few seconds proves the job
// alive. A job whose process stopped is failed: at start when this process owns every job
// (the embedded mode: one process per data directory), else once its heartbeat is older than
// STALE_MS (another API node may be running it), checked at start and whenever it is read.
import { Readable } from 'node:stream'
import type { ExportJob } from '../../catalog/exports.ts'
import type { ExportJobsPort } from '../../catalog/exports.ts'
import { every, MICROS_PER_MS, nowMs, systemClock, type Clock } from '../../core/clock/clock.ts'
import type { Documents } from '../blobs/documents.ts'
import type { UploadTicket } from '../blobs/upload-gate.ts'
import type { TimeseriesStore } from '../store/port.ts'
import { csvBytes } from './csv.ts'
import { parquetBytes } from './parquet.ts'
import { exportRows, type ExportSeries, type RowChunk } from './rows.ts'

/** A running job's heartbeat older than this: its process stopped. */
export const STALE_MS = 60_000
const INTERRUPTED = 'Interrupted: the server running the export stopped before it finished; start it again'
const STOPPED = 'The server stopped during the export; start it again'

export interface ExportRunnerDeps {
  jobs: ExportJobsPort
  store: TimeseriesStore
  documents: Documents
  clock?: Clock
  log?: { warn: (o: object, msg: string) => void }
  /** This process owns every job (embedded mode): running ones left by a previous start are failed at once. */
  ownsAllJobs?: boolean
  /** Period of progress and heartbeat writes (default 2 s). */
  heartbeatMs?: number
}

export class ExportRunner {
  private readonly clock: Clock
  private readonly running = new Map<number, { body: Readable; done: Promise<void> }>()

  private constructor (private readonly d: ExportRunnerDeps) {
    this.clock = d.clock ?? systemClock
  }

  static async start(d: ExportRunnerDeps): Promise<ExportRunner> {
    const r = new ExportRunner(d)
    const now = nowMs(r.clock)
    await d.jobs.failStale(d.ownsAllJobs ? now + 1 : now - STALE_MS, INTERRUPTED, now)
    return r
  }

  /** The job as stored, a stale running one failed first. */
  async current(projectId: number, id: number): Promise<ExportJob | undefined> {
    const job = await this.d.jobs.get(projectId, id)
    if (!job || job.state !== 'running' || this.running.has(id)) return job
    const now = nowMs(this.clock)
    if (job.heartbeat >= now - STALE_MS) return job
    await this.d.jobs.failStale(now - STALE_MS, INTERRUPTED, now)
    return this.d.jobs.get(projectId, id)
  }

  /**
   * Starts the job in the background; the promise settles when it has ended (tests, benchmarks).
   * `ticket`: its file's upload, admitted by the caller before the job was created.
   */
  run(job: ExportJob, companyId: number, series: readonly ExportSeries[], ticket?: UploadTicket): Promise<void> {
    let rows = 0
    const rowsOf = async function* (source: AsyncIterable<RowChunk>): AsyncGenerator<RowChunk> {
      for await (const c of source) { rows += c.points.length; yield c }
    }
    const source = rowsOf(exportRows(this.d.store, series, job.spec.start, job.spec.end))
    const body = Readable.from(job.format === 'csv' ? csvBytes(source) : parquetBytes(source), { objectMode: false })
    const now = () => nowMs(this.clock)
    const beat = every(this.clock, () => {
      this.d.jobs.progress(job.id, rows, now()).catch((err) => this.d.log?.warn({ err, job: job.id }, 'export: progress not recorded'))
    }, (this.d.heartbeatMs ?? 2000) * MICROS_PER_MS)
    const space = { kind: 'project' as const, companyId, projectId: job.project_id }
    const done = (async () => {
      try {
        const file = await this.d.documents.upload(space, 'create', job.path, body, undefined, ticket)
        await this.d.jobs.finish(job.id, { state: 'done', rows_done: rows, bytes: file.size_bytes }, now())
      } catch (err) {
        body.destroy()
        await this.d.jobs.finish(job.id, { state: 'failed', rows_done: rows, error: (err as Error).message }, now())
          .catch((e) => this.d.log?.warn({ err: e, job: job.id }, 'export: failure not recorded'))
      } finally {
        beat()
        this.running.delete(job.id)
      }
    })()
    this.running.set(job.id, { body, done })
    return done
  }

  /** Ends the running jobs as failed (the server stops) and waits until each has recorded it. */
  async stop(): Promise<void> {
    const all = [...this.running.values()]
    for (const r of all) r.body.destroy(new Error(STOPPED))
    await Promise.all(all.map((r) => r.done))
  }
}
