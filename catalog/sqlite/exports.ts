// The SQLite repository of export jobs (catalog/exports.ts); the PostgreSQL twin is
// catalog/postgres/exports.ts (the contract suite holds both).
import { statements, type Db } from './db.ts'
import { EXPORT_COLUMNS, exportJobOf, MAX_EXPORT_JOBS_PER_PROJECT, type ExportJob, type ExportJobRow, type NewExportJob } from '../exports.ts'

export class ExportJobs {
  private readonly sql: ReturnType<typeof statements>

  constructor (db: Db) {
    this.sql = statements(db)
  }

  create(j: NewExportJob, now: number): ExportJob {
    this.sql(`DELETE FROM export_jobs WHERE id IN (SELECT id FROM export_jobs WHERE project_id = ? AND state <> 'running'
      ORDER BY id DESC LIMIT -1 OFFSET ?)`).run(j.project_id, MAX_EXPORT_JOBS_PER_PROJECT - 1)
    const id = Number(this.sql(`INSERT INTO export_jobs (project_id, user_id, format, path, spec, state, rows_done, rows_estimate, created_at, heartbeat)
      VALUES (?, ?, ?, ?, ?, 'running', 0, ?, ?, ?)`).run(j.project_id, j.user_id, j.format, j.path, JSON.stringify(j.spec), j.rows_estimate, now, now).lastInsertRowid)
    return this.get(j.project_id, id)!
  }

  get(projectId: number, id: number): ExportJob | undefined {
    const row = this.sql(`SELECT ${EXPORT_COLUMNS} FROM export_jobs WHERE id = ? AND project_id = ?`).get(id, projectId) as ExportJobRow | undefined
    return row && exportJobOf(row)
  }

  list(projectId: number): ExportJob[] {
    return (this.sql(`SELECT ${EXPORT_COLUMNS} FROM export_jobs WHERE project_id = ? ORDER BY id DESC`).all(projectId) as ExportJobRow[]).map(exportJobOf)
  }

  /** Progress and a heartbeat of a running job; false when it is no longer running. */
  progress(id: number, rowsDone: number, now: number): boolean {
    return this.sql("UPDATE export_jobs SET rows_done = ?, heartbeat = ? WHERE id = ? AND state = 'running'").run(rowsDone, now, id).changes > 0
  }

  /** Ends a running job (done with its size, or failed with the reason); false when it had ended already. */
  finish(id: number, end: { state: 'done' | 'failed'; rows_done: number; bytes?: number; error?: string }, now: number): boolean {
    return this.sql("UPDATE export_jobs SET state = ?, rows_done = ?, bytes = ?, error = ?, finished_at = ?, heartbeat = ? WHERE id = ? AND state = 'running'")
      .run(end.state, end.rows_done, end.bytes ?? null, end.error ?? null, now, now, id).changes > 0
  }

  /** Fails every running job whose heartbeat is older than `before` (its process stopped); how many. */
  failStale(before: number, reason: string, now: number): number {
    return this.sql("UPDATE export_jobs SET state = 'failed', error = ?, finished_at = ? WHERE state = 'running' AND heartbeat < ?").run(reason, now, before).changes
  }
}
