// Datapoints of a project: integer id (the store's series key), dataPointID and hash id.
import { statements, type Db } from './db.ts'
import { NotFoundError } from './errors.ts'
import { hashId } from './hash-id.ts'
import type { Datapoint } from './types.ts'

interface Row { id: number; project_id: number; dataPointID: string; hash_id: string }
const COLUMNS = 'id, project_id, datapoint_id AS dataPointID, hash_id'

export class Datapoints {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  /** Integer ids of the identifiers, creating the datapoints that do not exist yet. */
  ensure(projectId: number, identifiers: Iterable<string>): Map<string, number> {
    const { hash_id_length: len } = this.sql('SELECT hash_id_length FROM projects WHERE id = ?').get(projectId) as { hash_id_length: number }
    const find = this.sql('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?').pluck()
    const insert = this.sql('INSERT INTO datapoints (project_id, datapoint_id, hash_id, created_at) VALUES (?, ?, ?, ?)')
    const ids = new Map<string, number>()
    this.db.transaction(() => {
      for (const ident of identifiers) {
        if (ids.has(ident)) continue
        let id = find.get(projectId, ident) as number | undefined
        if (id === undefined) id = Number(insert.run(projectId, ident, hashId(ident, len), Date.now()).lastInsertRowid)
        ids.set(ident, id)
      }
    })()
    return ids
  }

  find(projectId: number, dataPointID: string): Datapoint | undefined {
    const row = this.sql(`SELECT ${COLUMNS} FROM datapoints WHERE project_id = ? AND datapoint_id = ?`).get(projectId, dataPointID) as Row | undefined
    return row && { ...row, tags: this.tagsOf(row.id) }
  }

  get(projectId: number, dataPointID: string): Datapoint {
    const dp = this.find(projectId, dataPointID)
    if (!dp) throw new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)
    return dp
  }

  listByProject(projectId: number): Datapoint[] {
    const rows = this.sql(`SELECT ${COLUMNS} FROM datapoints WHERE project_id = ? ORDER BY id`).all(projectId) as Row[]
    const tags = new Map<number, Record<string, string>>()
    for (const t of this.sql('SELECT t.datapoint, t.key, t.value FROM tags t JOIN datapoints d ON d.id = t.datapoint WHERE d.project_id = ?')
      .all(projectId) as { datapoint: number; key: string; value: string }[]) {
      let rec = tags.get(t.datapoint)
      if (!rec) tags.set(t.datapoint, rec = {})
      rec[t.key] = t.value
    }
    return rows.map((r) => ({ ...r, tags: tags.get(r.id) ?? {} }))
  }

  /** Removes datapoints by integer id (used to undo creations of a failed write). */
  remove(ids: number[]): void {
    const del = this.sql('DELETE FROM datapoints WHERE id = ?')
    this.db.transaction(() => { for (const id of ids) del.run(id) })()
  }

  idsOfProject(projectId: number): number[] {
    return this.sql('SELECT id FROM datapoints WHERE project_id = ?').pluck().all(projectId) as number[]
  }

  setTag(datapoint: number, key: string, value: string): void {
    this.sql('INSERT INTO tags (datapoint, key, value) VALUES (?, ?, ?) ON CONFLICT (datapoint, key) DO UPDATE SET value = excluded.value')
      .run(datapoint, key, value)
  }

  tagsOf(datapoint: number): Record<string, string> {
    const out: Record<string, string> = {}
    for (const t of this.sql('SELECT key, value FROM tags WHERE datapoint = ?').all(datapoint) as { key: string; value: string }[]) out[t.key] = t.value
    return out
  }
}
