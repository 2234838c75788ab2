// The PostgreSQL repositories of datapoints, their tags and devices (entity tags), and the
// dynamic series tags. Same behaviour as catalog/sqlite/ (the contract suite holds both);
// rules, texts and row mappers come from the port's modules (catalog/datapoints.ts and siblings).
import { NotFoundError } from '../../core/errors.ts'
import { assertQuota, assertRoom, DATAPOINT_COLUMNS, freshIdentifiers, tagged, TAGGED_OF_PROJECT, TAGS_OF_PROJECT, withTags, type DatapointRow, type TaggedRow, type TagOfRow } from '../datapoints.ts'
import type { EntityType, TagWrite } from '../entity-tags.ts'
import { hashId } from '../hash-id.ts'
import type { DatapointsPort, EntityTagsPort, SeriesTagsPort } from '../port.ts'
import type { TagLimits } from '../series-tags.ts'
import type { Datapoint } from '../types.ts'
import type { Sql } from './sql.ts'

const DEFAULT_LIMIT = "(SELECT value FROM catalog_settings WHERE key = 'max_datapoints_per_project')"

export function datapoints(sql: Sql): DatapointsPort {
  const quota = async (q: Sql, projectId: number) => {
    const row = await q.one<{ used: number; own: number | null; def: number }>(
      `SELECT l.datapoints AS used, l.max_datapoints AS own, ${DEFAULT_LIMIT} AS def FROM project_limits l WHERE l.project_id = ?`, projectId)
    if (!row) throw new NotFoundError(`Project ${projectId} not found`)
    return { max: row.own ?? row.def, used: row.used, own: row.own !== null }
  }
  const tagsOf = async (datapoint: number) => {
    const out: Record<string, string> = {}
    for (const t of await sql.rows<TagWrite>('SELECT key, value FROM tags WHERE datapoint = ?', datapoint)) out[t.key] = t.value
    return out
  }
  const find = async (projectId: number, dataPointID: string) => {
    const row = await sql.one<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND datapoint_id = ?`, projectId, dataPointID)
    return row && { ...row, tags: await tagsOf(row.id) }
  }
  return {
    ensure: (projectId, identifiers) => sql.atomic(async (q) => {
      const len = await q.value<number>('SELECT hash_id_length FROM projects WHERE id = ?', projectId)
      if (len === undefined) throw new NotFoundError(`Project ${projectId} not found`) // e.g. deleted while a device still sends
      const list = [...identifiers]
      const ids = new Map<string, number>()
      for (const ident of list) if (!ids.has(ident)) ids.set(ident, -1) // first-seen order
      for (const r of await q.rows<{ id: number; datapoint_id: string }>('SELECT id, datapoint_id FROM datapoints WHERE project_id = ? AND datapoint_id = ANY(?::text[])', projectId, [...ids.keys()])) {
        ids.set(r.datapoint_id, r.id)
      }
      const fresh = freshIdentifiers(list, (ident) => ids.get(ident)! >= 0)
      if (fresh.length === 0) return ids
      // The row lock orders concurrent creators of one project (other API nodes): the quota holds.
      await q.run('SELECT 1 FROM project_limits WHERE project_id = ? FOR UPDATE', projectId)
      // A writer that held the lock before may have created some of them (no unique clash).
      for (const r of await q.rows<{ id: number; datapoint_id: string }>('SELECT id, datapoint_id FROM datapoints WHERE project_id = ? AND datapoint_id = ANY(?::text[])', projectId, fresh)) {
        ids.set(r.datapoint_id, r.id)
      }
      const missing = fresh.filter((ident) => ids.get(ident)! < 0)
      if (missing.length === 0) return ids
      assertRoom(projectId, await quota(q, projectId), missing.length)
      const now = Date.now()
      const made = await q.rows<{ id: number; datapoint_id: string }>(`INSERT INTO datapoints (project_id, datapoint_id, hash_id, created_at)
        SELECT ?, i, h, ? FROM unnest(?::text[], ?::text[]) AS x(i, h) RETURNING id, datapoint_id`, projectId, now, missing, missing.map((i) => hashId(i, len)))
      for (const r of made) ids.set(r.datapoint_id, r.id)
      return ids
    }),
    quota: (projectId) => quota(sql, projectId),
    assertRoom: async (projectId, more) => assertRoom(projectId, await quota(sql, projectId), more),
    setQuota: async (projectId, max) => {
      if (max !== null) assertQuota(max)
      if (await sql.run('UPDATE project_limits SET max_datapoints = ? WHERE project_id = ?', max, projectId) === 0) throw new NotFoundError(`Project ${projectId} not found`)
    },
    defaultQuota: async () => (await sql.value<number>(DEFAULT_LIMIT.slice(1, -1)))!,
    setDefaultQuota: async (max) => {
      assertQuota(max)
      await sql.run("UPDATE catalog_settings SET value = ? WHERE key = 'max_datapoints_per_project'", max)
    },
    find,
    findMany: async (projectId, dataPointIDs) => {
      const out = new Map<string, Datapoint>()
      if (dataPointIDs.length === 0) return out
      const rows = await sql.rows<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND datapoint_id = ANY(?::text[])`, projectId, [...dataPointIDs])
      const byId = new Map<number, Datapoint>()
      for (const row of rows) {
        const dp = { ...row, tags: {} as Record<string, string> }
        byId.set(row.id, dp)
        out.set(row.dataPointID, dp)
      }
      if (byId.size === 0) return out
      for (const t of await sql.rows<TagOfRow>('SELECT datapoint, key, value FROM tags WHERE datapoint = ANY(?::bigint[])', [...byId.keys()])) byId.get(Number(t.datapoint))!.tags[t.key] = t.value
      return out
    },
    findByHash: async (projectId, hashId) => {
      const rows = await sql.rows<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND hash_id = ? ORDER BY id`, projectId, hashId)
      if (rows.length === 0) return []
      return withTags(rows, await sql.rows<TagOfRow>('SELECT datapoint, key, value FROM tags WHERE datapoint = ANY(?::bigint[])', rows.map((r) => r.id)))
    },
    get: async (projectId, dataPointID) => (await find(projectId, dataPointID)) ?? Promise.reject(new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)),
    countOf: async (projectId) => (await sql.value<number>('SELECT datapoints FROM project_limits WHERE project_id = ?', projectId)) ?? 0,
    slice: async (projectId, at, limit) => {
      const rows = 'offset' in at
        ? await sql.rows<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? ORDER BY id LIMIT ? OFFSET ?`, projectId, limit, at.offset)
        : await sql.rows<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? AND id > ? ORDER BY id LIMIT ?`, projectId, at.afterId, limit)
      if (rows.length === 0) return []
      return withTags(rows, await sql.rows<TagOfRow>('SELECT datapoint, key, value FROM tags WHERE datapoint = ANY(?::bigint[])', rows.map((r) => r.id)))
    },
    listByProject: async (projectId) => withTags(
      await sql.rows<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE project_id = ? ORDER BY id`, projectId),
      await sql.rows<TagOfRow>(TAGS_OF_PROJECT, projectId)),
    remove: async (ids) => { if (ids.length > 0) await sql.run('DELETE FROM datapoints WHERE id = ANY(?::bigint[])', ids) },
    removeSomeOfProject: async (projectId, limit) => (await sql.rows<{ id: number }>(`DELETE FROM datapoints WHERE id IN (
      SELECT id FROM datapoints WHERE project_id = ? ORDER BY id LIMIT ?) RETURNING id`, projectId, limit)).map((r) => r.id).sort((a, b) => a - b),
    idsOfProject: async (projectId) => (await sql.rows<{ id: number }>('SELECT id FROM datapoints WHERE project_id = ?', projectId)).map((r) => r.id),
    setTag: async (datapoint, key, value) => {
      await sql.run('INSERT INTO tags (datapoint, key, value) VALUES (?, ?, ?) ON CONFLICT (datapoint, key) DO UPDATE SET value = excluded.value', datapoint, key, value)
    },
    tagsOf,
    byId: async (id) => {
      const row = await sql.one<DatapointRow>(`SELECT ${DATAPOINT_COLUMNS} FROM datapoints WHERE id = ?`, id)
      return row && { ...row, tags: await tagsOf(row.id) }
    },
    taggedOfProject: async (projectId) => tagged(await sql.rows<TaggedRow>(TAGGED_OF_PROJECT, projectId)),
  }
}

export function entityTags(sql: Sql): EntityTagsPort {
  const place = (type: EntityType) => (type === 'device' ? { table: 'device_tags', col: 'device' } : { table: 'tags', col: 'datapoint' })
  const entity = async (projectId: number, type: EntityType, id: string, create: boolean): Promise<number | undefined> => {
    if (type === 'datapoint') {
      const find = () => sql.value<number>('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?', projectId, id)
      const found = await find()
      if (found !== undefined || !create) return found
      // At the project's datapoint quota a META message creates none: dropped. Created by
      // another writer meanwhile: that one.
      return (await sql.value<number>(`INSERT INTO datapoints (project_id, datapoint_id, hash_id, created_at)
        SELECT p.id, ?, ?, ? FROM projects p JOIN project_limits l ON l.project_id = p.id
        WHERE p.id = ? AND l.datapoints < COALESCE(l.max_datapoints, ${DEFAULT_LIMIT}) ON CONFLICT (project_id, datapoint_id) DO NOTHING RETURNING id`,
      id, hashId(id, (await sql.value<number>('SELECT hash_id_length FROM projects WHERE id = ?', projectId))!), Date.now(), projectId)) ?? find()
    }
    const find = () => sql.value<number>('SELECT id FROM devices WHERE project_id = ? AND device_id = ?', projectId, id)
    const found = await find()
    if (found !== undefined || !create) return found
    return (await sql.value<number>('INSERT INTO devices (project_id, device_id) VALUES (?, ?) ON CONFLICT (project_id, device_id) DO NOTHING RETURNING id', projectId, id)) ?? find()
  }
  const read = async <V>(type: EntityType, entity: number, column: 'value' | 'source') => {
    const { table, col } = place(type)
    const out: Record<string, V> = Object.create(null)
    for (const r of await sql.rows<{ key: string; v: V }>(`SELECT key, ${column} AS v FROM ${table} WHERE ${col} = ?`, entity)) out[r.key] = r.v
    return out
  }
  const tags = (type: EntityType, e: number) => read<string>(type, e, 'value')
  return {
    entity,
    tags,
    sources: (type, e) => read<string | null>(type, e, 'source'),
    replaceTags: async (type, e, next, touched, source) => {
      const { table, col } = place(type)
      const gone = Object.keys(await tags(type, e)).filter((k) => !Object.hasOwn(next, k))
      if (gone.length > 0) await sql.run(`DELETE FROM ${table} WHERE ${col} = ? AND key = ANY(?::text[])`, e, gone)
      for (const key of new Set(touched)) {
        if (!Object.hasOwn(next, key)) continue
        await sql.run(`INSERT INTO ${table} (${col}, key, value, source) VALUES (?, ?, ?, ?)
          ON CONFLICT (${col}, key) DO UPDATE SET value = excluded.value, source = excluded.source`, e, key, next[key], source)
      }
    },
    linkDatapoints: async (projectId, device, datapointIds) => {
      for (const id of datapointIds) {
        const dp = await entity(projectId, 'datapoint', id, true)
        if (dp !== undefined) await sql.run('INSERT INTO device_datapoints (device, datapoint) VALUES (?, ?) ON CONFLICT DO NOTHING', device, dp)
      }
    },
    devicesOfProject: async (projectId) => Promise.all((await sql.rows<{ id: number; device_id: string }>('SELECT id, device_id FROM devices WHERE project_id = ? ORDER BY id', projectId))
      .map(async (d) => ({
        device_id: d.device_id,
        tags: await tags('device', d.id),
        datapoints: (await sql.rows<{ datapoint_id: string }>('SELECT dp.datapoint_id FROM device_datapoints l JOIN datapoints dp ON dp.id = l.datapoint WHERE l.device = ? ORDER BY dp.id', d.id))
          .map((r) => r.datapoint_id),
      }))),
  }
}

export function seriesTags(sql: Sql): SeriesTagsPort {
  const limitsIn = async (q: Sql): Promise<TagLimits> => {
    const get = async (key: string) => (await q.value<number>('SELECT value FROM catalog_settings WHERE key = ?', key))!
    return { perSeries: await get('max_tag_changes_per_series'), perProject: await get('max_tag_changes_per_project') }
  }
  const near = (q: Sql, series: number, key: string, time: number, op: '<' | '>' | '<=') => q.one<{ valid_from: number; value: string }>(
    `SELECT valid_from, value FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from ${op} ? ORDER BY valid_from ${op === '>' ? 'ASC' : 'DESC'} LIMIT 1`, series, key, time)
  const del = (q: Sql, series: number, key: string, time: number) => q.run('DELETE FROM series_tags WHERE datapoint = ? AND key = ? AND valid_from = ?', series, key, time)
  // See catalog/series-tags.ts: the same steps, the same invariant (no value twice in a row).
  const dropRepeats = async (q: Sql, series: number, key: string, time: number, here: string) => {
    let removed = 0
    const next = await near(q, series, key, time, '>')
    if (next && next.value === here) { await del(q, series, key, next.valid_from); removed++ }
    if ((await near(q, series, key, time, '<'))?.value === here) { await del(q, series, key, time); removed++ }
    return removed
  }
  return {
    record: (projectId, observations) => sql.atomic(async (q) => {
      const limits = await limitsIn(q)
      const result = { stored: 0, unchanged: 0, overflow: 0 }
      let projectRows: number | undefined
      const seriesRows = new Map<number, number>()
      for (const o of observations) {
        for (const { key, value } of o.tags) {
          const cur = await near(q, o.series, key, o.time, '<=')
          if (cur?.value === value) { result.unchanged++; continue }
          if (cur?.valid_from !== o.time) {
            projectRows ??= (await q.value<number>('SELECT COUNT(*) FROM series_tags WHERE project_id = ?', projectId))!
            let n = seriesRows.get(o.series)
            if (n === undefined) seriesRows.set(o.series, n = (await q.value<number>('SELECT COUNT(*) FROM series_tags WHERE datapoint = ?', o.series))!)
            if (n >= limits.perSeries || projectRows >= limits.perProject) { result.overflow++; continue }
            await q.run('INSERT INTO series_tags (datapoint, key, valid_from, value, project_id) VALUES (?, ?, ?, ?, ?)', o.series, key, o.time, value, projectId)
            seriesRows.set(o.series, n + 1)
            projectRows++
          } else {
            await q.run('UPDATE series_tags SET value = ? WHERE datapoint = ? AND key = ? AND valid_from = ?', value, o.series, key, o.time)
          }
          result.stored++
          const removed = await dropRepeats(q, o.series, key, o.time, value)
          if (removed > 0) {
            seriesRows.set(o.series, seriesRows.get(o.series)! - removed)
            if (projectRows !== undefined) projectRows -= removed
          }
        }
      }
      return result
    }),
    at: async (series, time) => {
      const out: Record<string, string> = Object.create(null)
      for (const r of await sql.rows<TagWrite>(`SELECT DISTINCT ON (key) key, value FROM series_tags WHERE datapoint = ? AND valid_from <= ?
        ORDER BY key, valid_from DESC`, series, time)) out[r.key] = r.value
      return out
    },
    history: (series) => sql.rows('SELECT key, value, valid_from FROM series_tags WHERE datapoint = ? ORDER BY key COLLATE "C", valid_from', series),
    limits: () => limitsIn(sql),
    setLimits: async (l) => {
      if (l.perSeries !== undefined) await sql.run('UPDATE catalog_settings SET value = ? WHERE key = ?', l.perSeries, 'max_tag_changes_per_series')
      if (l.perProject !== undefined) await sql.run('UPDATE catalog_settings SET value = ? WHERE key = ?', l.perProject, 'max_tag_changes_per_project')
    },
  }
}
