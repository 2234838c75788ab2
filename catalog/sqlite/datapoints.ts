// The SQLite repository of catalog/datapoints.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/datapoints.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import { hashId } from '../hash-id.ts'
import type { Datapoint } from '../types.ts'
import { type DatapointRow, DATAPOINT_COLUMNS, TAGS_OF_PROJECT, type TagOfRow, TAGGED_OF_PROJECT, type TaggedRow, type Tagged, tagged, withTags, assertRoom, assertQuota, freshIdentifiers, MAX_REMEMBERED } from '../datapoints.ts'

export class Datapoints {
  private readonly sql: ReturnType<typeof statements>
  /**
   * findMany's memory of found datapoints with their tags, by project and identifier: the
   * lookup behind every HTTP and CSV ingest (~5 µs per identifier through SQLite, the largest
   * cost of bench:vdp's HTTP path). It holds only while the catalog is exactly as it was when
   * it was filled: a change through this connection (total_changes: datapoints, tags,
   * projects, anything) or a commit by another (data_version: the CLI, another process)
   * empties it before the next lookup, so a TagAuth is never checked against stale tags.
   */
  private readonly remembered = new Map<number, Map<string, Datapoint>>()
  private rememberedCount = 0
  private rememberedVersion = -1
  private rememberedChanges = -1
  private readonly dataVersion: { get(): unknown }
  private readonly totalChanges: { get(): unknown }

  constructor (private readonly db: Db) {
    this.sql = statements(db)
    this.dataVersion = db.prepare('PRAGMA data_version').pluck()
    this.totalChanges = db.prepare('SELECT total_changes()').pluck()
  }

  /**
   * Integer ids of the identifiers, creating the datapoints that do not exist yet. All or
   * nothing: an identifier with a control character (400) or more new datapoints than the
   * project's quota leaves room for (413) creates none of them.
   */
  ensure(projectId: number, identifiers: Iterable<string>): Map<string, number> {
    const project = this.sql('SELECT hash_id_length FROM projects WHERE id = ?').get(projectId) as { hash_id_length: number } | undefined
    if (!project) throw new NotFoundError(`Project ${projectId} not found`) // e.g. deleted while a device still sends
    const len = project.hash_id_length
    const find = this.sql('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?').pluck()
    const insert = this.sql('INSERT INTO datapoints (project_id, datapoint_id, hash_id, created_at) VALUES (?, ?, ?, ?)')
    const ids = new Map<string, number>()
    this.db.transaction(() => {
      const fresh = freshIdentifiers(identifiers, (ident) => {
        const id = find.get(projectId, ident) as number | undefined
        ids.set(ident, id ?? -1)
        return id !== undefined
      })
      if (fresh.length === 0) return
      this.assertRoom(projectId, fresh.length)
      for (const ident of fresh) ids.set(ident, Number(insert.run(projectId, ident, hashId(ident, len), Date.now()).lastInsertRowid))
    })()
    return ids
  }

  /** The project's datapoint quota (the operator's, else the catalog default) and its use. */
  quota(projectId: number): { max: number; used: number; own: boolean } {
    const row = this.sql(`SELECT l.datapoints AS used, l.max_datapoints AS own,
        (SELECT value FROM catalog_settings WHERE key = 'max_datapoints_per_project') AS def
      FROM project_limits l WHERE l.project_id = ?`).get(projectId) as { used: number; own: number | null; def: number } | undefined
    if (!row) throw new NotFoundError(`Project ${projectId} not found`)
    return { max: row.own ?? row.def, used: row.used, own: row.own !== null }
  }

  /** Throws the 413 when `more` new datapoints do not fit into the project's quota. */
  assertRoom(projectId: number, more: number): void {
    assertRoom(projectId, this.quota(projectId), more)
  }

  /** The operator's quota of one project; null = the catalog default. */
  setQuota(projectId: number, max: number | null): void {
    if (max !== null) assertQuota(max)
    if (this.sql('UPDATE project_limits SET max_datapoints = ? WHERE project_id = ?').run(max, projectId).changes === 0) {
      throw new NotFoundError(`Project ${projectId} not found`)
    }
  }

  /** The quota of projects without their own (DEFAULT_MAX_DATAPOINTS until the operator changes it). */
  defaultQuota(): number {
    return this.sql("SELECT value FROM catalog_settings WHERE key = 'max_datapoints_per_project'").pluck().get() as number
  }

  setDefaultQuota(max: number): void {
    assertQuota(max)
    this.sql("UPDATE catalog_settings SET value = ? WHERE key = 'max_datapoints_per_project'").run(max)
  }

  byId(id: number): Datapoint | undefined {
    const row = this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE id = ?`).get(id) as DatapointRow | undefined
    return row && { ...row, tags: this.tagsOf(row.id) }
  }

  taggedOfProject(projectId: number): Tagged[] {
    return tagged(this.sql(TAGGED_OF_PROJECT).all(projectId) as TaggedRow[])
  }

  find(projectId: number, dataPointID: string): Datapoint | undefined {
    const row = this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND datapoint_id = ?`).get(projectId, dataPointID) as DatapointRow | undefined
    return row && { ...row, tags: this.tagsOf(row.id) }
  }

  findByHash(projectId: number, hashId: string): Datapoint[] {
    const rows = this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND hash_id = ? ORDER BY id`).all(projectId, hashId) as DatapointRow[]
    return rows.map((row) => ({ ...row, tags: this.tagsOf(row.id) }))
  }

  /** Found datapoints by identifier: from memory, the rest with two statements per 500 identifiers (json_each: one prepared statement whatever the count). */
  findMany(projectId: number, dataPointIDs: readonly string[]): Map<string, Datapoint> {
    const version = this.dataVersion.get() as number
    const changes = this.totalChanges.get() as number
    if (version !== this.rememberedVersion || changes !== this.rememberedChanges) {
      this.forgetAll()
      this.rememberedVersion = version
      this.rememberedChanges = changes
    }
    const out = new Map<string, Datapoint>()
    const missing: string[] = []
    let known = this.remembered.get(projectId)
    for (const ident of dataPointIDs) {
      const dp = known?.get(ident)
      if (dp) out.set(ident, dp)
      else missing.push(ident)
    }
    // Inside a transaction a read may see rows that are then rolled back: not remembered.
    const remember = !this.db.inTransaction
    if (remember && this.rememberedCount + missing.length > MAX_REMEMBERED) { this.forgetAll(); known = undefined }
    for (let i = 0; i < missing.length; i += 500) {
      const rows = this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND datapoint_id IN (SELECT value FROM json_each(?))`)
        .all(projectId, JSON.stringify(missing.slice(i, i + 500))) as DatapointRow[]
      if (rows.length === 0) continue
      const byId = new Map<number, Datapoint>()
      for (const row of rows) byId.set(row.id, { ...row, tags: {} as Record<string, string> })
      const tags = this.sql('SELECT datapoint, key, value FROM tags WHERE datapoint IN (SELECT value FROM json_each(?))')
        .all(JSON.stringify([...byId.keys()])) as { datapoint: number; key: string; value: string }[]
      for (const t of tags) byId.get(t.datapoint)!.tags[t.key] = t.value
      for (const dp of byId.values()) {
        // Shared with later callers: frozen, so that none can change what another sees.
        Object.freeze(dp.tags)
        out.set(dp.dataPointID, Object.freeze(dp))
        if (remember) {
          if (!known) this.remembered.set(projectId, known = new Map())
          known.set(dp.dataPointID, dp)
          this.rememberedCount++
        }
      }
    }
    return out
  }

  private forgetAll(): void {
    this.remembered.clear()
    this.rememberedCount = 0
  }

  get(projectId: number, dataPointID: string): Datapoint {
    const dp = this.find(projectId, dataPointID)
    if (!dp) throw new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)
    return dp
  }

  /** Number of datapoints of the project (kept by triggers, no count). */
  countOf(projectId: number): number {
    return (this.sql('SELECT datapoints FROM project_limits WHERE project_id = ?').pluck().get(projectId) as number | undefined) ?? 0
  }

  /** `limit` datapoints of the project in id order: from `offset`, or after the id `afterId`. */
  slice(projectId: number, at: { offset: number } | { afterId: number }, limit: number): Datapoint[] {
    const rows = ('offset' in at
      ? this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? ORDER BY id LIMIT ? OFFSET ?`).all(projectId, limit, at.offset)
      : this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?`).all(projectId, at.afterId, limit)) as DatapointRow[]
    if (rows.length === 0) return []
    return withTags(rows, this.sql('SELECT t.datapoint, t.key, t.value FROM tags t WHERE t.datapoint IN (SELECT value FROM json_each(?))')
      .all(JSON.stringify(rows.map((r) => r.id))) as TagOfRow[])
  }

  /** Every datapoint of the project at once: for tests and tools; the API pages (slice). */
  listByProject(projectId: number): Datapoint[] {
    const rows = this.sql(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? ORDER BY id`).all(projectId) as DatapointRow[]
    return withTags(rows, this.sql(TAGS_OF_PROJECT).all(projectId) as TagOfRow[])
  }

  /** Removes datapoints by integer id (used to undo creations of a failed write). */
  remove(ids: number[]): void {
    const del = this.sql('DELETE FROM datapoints WHERE id = ?')
    this.db.transaction(() => { for (const id of ids) del.run(id) })()
  }

  /**
   * Deletes up to `limit` datapoints of the project (with their tags) and returns their ids:
   * a large project is emptied in steps, so its deletion never holds the event loop long.
   */
  removeSomeOfProject(projectId: number, limit: number): number[] {
    return this.db.transaction(() => {
      const ids = this.sql('SELECT id FROM datapoints WHERE project_id = ? ORDER BY id LIMIT ?').pluck().all(projectId, limit) as number[]
      if (ids.length > 0) this.sql('DELETE FROM datapoints WHERE id IN (SELECT value FROM json_each(?))').run(JSON.stringify(ids))
      return ids
    })()
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
