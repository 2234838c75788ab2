// The PostgreSQL repository of deletion audits and retention (catalog/lifecycle.ts). Same
// behaviour as catalog/sqlite/lifecycle.ts (the contract suite holds both).
import type { DataLifecyclePort } from '../lifecycle.ts'
import {
  DELETION_COLUMNS, KEEP_EVERYTHING, RETENTION_PARTS, toDeletion, toRetention, UPSERT_RETENTION, validRetention,
  type DeletionRow, type RetentionRow,
} from '../lifecycle.ts'
import type { Sql } from './sql.ts'

export function dataLifecycle(sql: Sql): DataLifecyclePort {
  return {
    recordDeletion: async (d) => toDeletion((await sql.one<DeletionRow>(`INSERT INTO data_deletions (project_id, datapoint_id, kind, range_start, range_end, actor, at)
      VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING ${DELETION_COLUMNS}`, d.project_id, d.dataPointID, d.kind, d.start, d.end, d.actor, d.at))!),
    deletions: async (projectId, page) => (await sql.rows<DeletionRow>(`SELECT ${DELETION_COLUMNS} FROM data_deletions WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`,
      projectId, page.before ?? Number.MAX_SAFE_INTEGER, page.limit)).map(toDeletion),
    retention: async (projectId) => toRetention(await sql.one<RetentionRow>('SELECT * FROM project_retention WHERE project_id = ?', projectId)),
    setRetention: async (projectId, r) => {
      validRetention(r)
      if (RETENTION_PARTS.every((p) => r[p] === null)) await sql.run('DELETE FROM project_retention WHERE project_id = ?', projectId)
      else await sql.run(UPSERT_RETENTION, projectId, r.raw, r.rollup_15m, r.rollup_1h, r.rollup_1d)
      return { ...KEEP_EVERYTHING, ...r }
    },
    retentions: async () => (await sql.rows<RetentionRow>('SELECT * FROM project_retention ORDER BY project_id'))
      .map((r) => ({ project_id: r.project_id, retention: toRetention(r) })),
  }
}
