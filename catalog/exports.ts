// Export jobs (issue 34 item 1): a bulk export of a project's observations to a file of its
// document space, run by engine/export/. The catalog keeps each job's state and progress so
// that any API node answers for it; `heartbeat` is renewed while the job runs, and a job whose
// heartbeat stopped (its process ended) is failed, never left running forever. Records of both
// adapters (catalog/sqlite/exports.ts, catalog/postgres/exports.ts).

export type ExportFormat = 'csv' | 'parquet'
export type ExportState = 'running' | 'done' | 'failed'

/** What was asked: the datapoints (resolved under the caller's TagAuths) and the range [start, end), µs. */
export interface ExportSpec { datapoints: string[]; start: number; end: number }

export interface ExportJob {
  id: number
  project_id: number
  user_id: number
  format: ExportFormat
  /** The file in the project's document space. */
  path: string
  spec: ExportSpec
  state: ExportState
  rows_done: number
  rows_estimate: number
  /** Size of the finished file. */
  bytes: number | null
  error: string | null
  created_at: number
  /** Last sign of life of the running job (ms). */
  heartbeat: number
  finished_at: number | null
}

export interface NewExportJob { project_id: number; user_id: number; format: ExportFormat; path: string; spec: ExportSpec; rows_estimate: number }

export interface ExportJobRow extends Omit<ExportJob, 'spec'> { spec: string }

export const EXPORT_COLUMNS = 'id, project_id, user_id, format, path, spec, state, rows_done, rows_estimate, bytes, error, created_at, heartbeat, finished_at'

const num = (v: unknown): number => Number(v)
const numOrNull = (v: unknown): number | null => (v === null || v === undefined ? null : Number(v))

export const exportJobOf = (r: ExportJobRow): ExportJob => ({
  ...r, id: num(r.id), project_id: num(r.project_id), user_id: num(r.user_id), spec: JSON.parse(r.spec) as ExportSpec,
  rows_done: num(r.rows_done), rows_estimate: num(r.rows_estimate), bytes: numOrNull(r.bytes),
  created_at: num(r.created_at), heartbeat: num(r.heartbeat), finished_at: numOrNull(r.finished_at),
})

/** Jobs kept per project: the oldest finished ones go first when a new one is created. */
export const MAX_EXPORT_JOBS_PER_PROJECT = 100

/** Export jobs of a project (catalog/exports.ts): state, progress and heartbeat. */
export interface ExportJobsPort {
  /** A running job (heartbeat now); the project keeps MAX_EXPORT_JOBS_PER_PROJECT, the oldest finished ones dropped. */
  create(j: NewExportJob, now: number): Promise<ExportJob>
  get(projectId: number, id: number): Promise<ExportJob | undefined>
  /** Newest first. */
  list(projectId: number): Promise<ExportJob[]>
  /** Rows done and a heartbeat; false when the job is no longer running. */
  progress(id: number, rowsDone: number, now: number): Promise<boolean>
  /** Ends a running job; false when it had ended already (a stale job failed by another node). */
  finish(id: number, end: { state: 'done' | 'failed'; rows_done: number; bytes?: number; error?: string }, now: number): Promise<boolean>
  /** Fails the running jobs whose heartbeat is older than `before`; how many. */
  failStale(before: number, reason: string, now: number): Promise<number>
}
