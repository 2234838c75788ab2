// The PostgreSQL repository of export jobs (catalog/exports.ts). Same behaviour as
// catalog/sqlite/exports.ts (the contract suite holds both).
import type { ExportJobsPort } from '../exports.ts'
import { EXPORT_COLUMNS, exportJobOf, MAX_EXPORT_JOBS_PER_PROJECT, type ExportJob, type ExportJobRow } from '../exports.ts'
import type { Sql } from './sql.ts'

export function exportJobs(sql: Sql): ExportJobsPort {
  const get = async (projectId: number, id: number): Promise<ExportJob | undefined> => {
    const row = await sql.one<ExportJobRow>(`SELECT ${EXPORT_COLUMNS} FROM export_jobs WHERE id = ? AND project_id = ?`, id, projectId)
    return row && exportJobOf(row)
  }
  return {
    create: async (j, now) => {
      await sql.run(`DELETE FROM export_jobs WHERE id IN (SELECT id FROM export_jobs WHERE project_id = ? AND state <> 'running'
        ORDER BY id DESC OFFSET ?)`, j.project_id, MAX_EXPORT_JOBS_PER_PROJECT - 1)
      const id = await sql.value<number>(`INSERT INTO export_jobs (project_id, user_id, format, path, spec, state, rows_done, rows_estimate, created_at, heartbeat)
        VALUES (?, ?, ?, ?, ?, 'running', 0, ?, ?, ?) RETURNING id`, j.project_id, j.user_id, j.format, j.path, JSON.stringify(j.spec), j.rows_estimate, now, now)
      return (await get(j.project_id, Number(id)))!
    },
    get,
    list: async (projectId) => (await sql.rows<ExportJobRow>(`SELECT ${EXPORT_COLUMNS} FROM export_jobs WHERE project_id = ? ORDER BY id DESC`, projectId)).map(exportJobOf),
    progress: async (id, rowsDone, now) => (await sql.run("UPDATE export_jobs SET rows_done = ?, heartbeat = ? WHERE id = ? AND state = 'running'", rowsDone, now, id)) > 0,
    finish: async (id, end, now) => (await sql.run("UPDATE export_jobs SET state = ?, rows_done = ?, bytes = ?, error = ?, finished_at = ?, heartbeat = ? WHERE id = ? AND state = 'running'",
      end.state, end.rows_done, end.bytes ?? null, end.error ?? null, now, now, id)) > 0,
    failStale: (before, reason, now) => sql.run("UPDATE export_jobs SET state = 'failed', error = ?, finished_at = ? WHERE state = 'running' AND heartbeat < ?", reason, now, before),
  }
}
