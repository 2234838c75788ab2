// The SQLite repository of catalog/entity-tags.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/entity-tags.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { hashId } from '../hash-id.ts'
import type { EntityType, TagWrite } from '../entity-tags.ts'

export class EntityTags {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  /** The entity's integer id, or undefined; with `create`, a missing entity is created. */
  entity(projectId: number, type: EntityType, id: string, create: boolean): number | undefined {
    if (type === 'datapoint') {
      const found = this.sql('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?').pluck().get(projectId, id) as number | undefined
      if (found !== undefined || !create) return found
      // At the project's datapoint quota (migration 4) a META message creates none: dropped.
      const full = this.sql(`SELECT l.datapoints >= COALESCE(l.max_datapoints, (SELECT value FROM catalog_settings WHERE key = 'max_datapoints_per_project'))
        FROM project_limits l WHERE l.project_id = ?`).pluck().get(projectId)
      if (full === 1) return undefined
      const len = this.sql('SELECT hash_id_length FROM projects WHERE id = ?').pluck().get(projectId) as number
      return Number(this.sql('INSERT INTO datapoints (project_id, datapoint_id, hash_id, created_at) VALUES (?, ?, ?, ?)')
        .run(projectId, id, hashId(id, len), Date.now()).lastInsertRowid)
    }
    const found = this.sql('SELECT id FROM devices WHERE project_id = ? AND device_id = ?').pluck().get(projectId, id) as number | undefined
    if (found !== undefined || !create) return found
    return Number(this.sql('INSERT INTO devices (project_id, device_id) VALUES (?, ?)').run(projectId, id).lastInsertRowid)
  }

  tags(type: EntityType, entity: number): Record<string, string> {
    const table = type === 'device' ? 'device_tags' : 'tags'
    const col = type === 'device' ? 'device' : 'datapoint'
    const out: Record<string, string> = Object.create(null)
    for (const r of this.sql(`SELECT key, value FROM ${table} WHERE ${col} = ?`).all(entity) as TagWrite[]) out[r.key] = r.value
    return out
  }

  /** The `source` of each tag of the entity (null: set without one). */
  sources(type: EntityType, entity: number): Record<string, string | null> {
    const table = type === 'device' ? 'device_tags' : 'tags'
    const col = type === 'device' ? 'device' : 'datapoint'
    const out: Record<string, string | null> = Object.create(null)
    for (const r of this.sql(`SELECT key, source FROM ${table} WHERE ${col} = ?`).all(entity) as { key: string; source: string | null }[]) out[r.key] = r.source
    return out
  }

  /**
   * Makes `tags` the entity's tag set: keys not in it are removed; the keys in `touched`
   * are written with `source` (the message that set them), the others keep theirs.
   */
  replaceTags(type: EntityType, entity: number, tags: Record<string, string>, touched: Iterable<string>, source: string | null): void {
    const table = type === 'device' ? 'device_tags' : 'tags'
    const col = type === 'device' ? 'device' : 'datapoint'
    const del = this.sql(`DELETE FROM ${table} WHERE ${col} = ? AND key = ?`)
    const put = this.sql(`INSERT INTO ${table} (${col}, key, value, source) VALUES (?, ?, ?, ?) ON CONFLICT (${col}, key) DO UPDATE SET value = excluded.value, source = excluded.source`)
    for (const key of Object.keys(this.tags(type, entity))) if (!Object.hasOwn(tags, key)) del.run(entity, key)
    for (const key of new Set(touched)) if (Object.hasOwn(tags, key)) put.run(entity, key, tags[key], source)
  }

  /** Links datapoints (created if missing, within the project's quota) to a device. */
  linkDatapoints(projectId: number, device: number, datapointIds: string[]): void {
    const link = this.sql('INSERT OR IGNORE INTO device_datapoints (device, datapoint) VALUES (?, ?)')
    for (const id of datapointIds) {
      const dp = this.entity(projectId, 'datapoint', id, true)
      if (dp !== undefined) link.run(device, dp) // undefined: the quota is reached
    }
  }

  devicesOfProject(projectId: number): { device_id: string; tags: Record<string, string>; datapoints: string[] }[] {
    const devices = this.sql('SELECT id, device_id FROM devices WHERE project_id = ? ORDER BY id').all(projectId) as { id: number; device_id: string }[]
    return devices.map((d) => ({
      device_id: d.device_id,
      tags: this.tags('device', d.id),
      datapoints: this.sql('SELECT dp.datapoint_id FROM device_datapoints l JOIN datapoints dp ON dp.id = l.datapoint WHERE l.device = ? ORDER BY dp.id').pluck().all(d.id) as string[],
    }))
  }
}
