// The SQLite repository of deletion audits and retention (catalog/lifecycle.ts); the
// PostgreSQL twin is catalog/postgres/lifecycle.ts (the contract suite holds both).
import { statements, type Db } from './db.ts'
import {
  DELETION_COLUMNS, KEEP_EVERYTHING, RETENTION_PARTS, toDeletion, toRetention, UPSERT_RETENTION, validRetention,
  type DeletionRecord, type DeletionRow, type NewDeletion, type Retention, type RetentionRow,
} from '../lifecycle.ts'

export class DataLifecycle {
  private readonly sql: ReturnType<typeof statements>

  constructor (db: Db) {
    this.sql = statements(db)
  }

  recordDeletion(d: NewDeletion): DeletionRecord {
    const row = this.sql(`INSERT INTO data_deletions (project_id, datapoint_id, kind, range_start, range_end, actor, at) VALUES (?, ?, ?, ?, ?, ?, ?)
      RETURNING ${DELETION_COLUMNS}`).get(d.project_id, d.dataPointID, d.kind, d.start, d.end, d.actor, d.at) as DeletionRow
    return toDeletion(row)
  }

  deletions(projectId: number, page: { limit: number; before?: number }): DeletionRecord[] {
    return (this.sql(`SELECT ${DELETION_COLUMNS} FROM data_deletions WHERE project_id = ? AND id < ? ORDER BY id DESC LIMIT ?`)
      .all(projectId, page.before ?? Number.MAX_SAFE_INTEGER, page.limit) as DeletionRow[]).map(toDeletion)
  }

  retention(projectId: number): Retention {
    return toRetention(this.sql('SELECT * FROM project_retention WHERE project_id = ?').get(projectId) as RetentionRow | undefined)
  }

  setRetention(projectId: number, r: Retention): Retention {
    validRetention(r)
    if (RETENTION_PARTS.every((p) => r[p] === null)) this.sql('DELETE FROM project_retention WHERE project_id = ?').run(projectId)
    else this.sql(UPSERT_RETENTION).run(projectId, r.raw, r.rollup_15m, r.rollup_1h, r.rollup_1d)
    return { ...KEEP_EVERYTHING, ...r }
  }

  retentions(): Array<{ project_id: number; retention: Retention }> {
    return (this.sql('SELECT * FROM project_retention ORDER BY project_id').all() as RetentionRow[])
      .map((r) => ({ project_id: r.project_id, retention: toRetention(r) }))
  }
}
