// The PostgreSQL repositories of what projects hold: datapoints and their tags, devices,
// virtual datapoints, exchange rates, document files, dynamic series tags, alerts and
// setpoints. Same behaviour as catalog/sqlite/*.ts (the contract suite holds both); rules, texts
// and row mappers are imported from there.
import { InvalidInputError, NotFoundError } from '../../core/errors.ts'
import { identifierProblem } from '../../core/identifier.ts'
import { ALERT_SELECT, toAlert, type AlertEvent, type AlertRecord, type AlertRow, type OutboxEntry } from '../alerts.ts'
import {
  assertQuota, assertRoom, DATAPOINT_COLUMNS, freshIdentifiers, tagged, TAGGED_OF_PROJECT, TAGS_OF_PROJECT, withTags, type DatapointRow, type TaggedRow, type TagOfRow,
} from '../datapoints.ts'
import type { EntityType, TagWrite } from '../entity-tags.ts'
import type { ExchangeRate } from '../exchange-rates.ts'
import {
  assertCommit, assertLimits, DEFAULT_QUOTA, FILE, filesFull, likeEscaped, ownerOf, refusal, spaceKey, spaceName, toQuotaRecord,
  type FileRow, type QuotaLimits, type Space,
} from '../files.ts'
import { hashId } from '../hash-id.ts'
import type {
  AlertsPort, DatapointsPort, EntityTagsPort, ExchangeRatesPort, FilesPort, SeriesTagsPort, SetpointsPort, VirtualDatapointsPort,
} from '../port.ts'
import type { TagLimits } from '../series-tags.ts'
import type { Datapoint } from '../types.ts'
import { DEFAULT_MAX_PRIORITY, toOperation, type SetpointOperation, type SetpointRow, type WriteBounds } from '../setpoints.ts'
import { nowNs, toVdp, vdpExists, type VdpRow } from '../virtual-datapoints.ts'
import { conflictsAs, type Sql } from './sql.ts'

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

export function virtualDatapoints(sql: Sql, now: () => number = Date.now): VirtualDatapointsPort {
  const find = async (projectId: number, dataPointID: string) => {
    const row = await sql.one<VdpRow>('SELECT * FROM virtual_datapoints WHERE project_id = ? AND datapoint_id = ?', projectId, dataPointID)
    return row && toVdp(row)
  }
  const byIdIn = async (q: Sql, id: number) => {
    const row = await q.one<VdpRow>('SELECT * FROM virtual_datapoints WHERE id = ?', id)
    if (!row) throw new NotFoundError(`Virtual datapoint ${id} not found`)
    return toVdp(row)
  }
  const log = (q: Sql, id: number, code: number, message: string) =>
    q.run('INSERT INTO vdp_logs (vdp, ts, status_code, message) VALUES (?, ?, ?, ?)', id, nowNs(now()), code, message)
  return {
    create: async (projectId, v, message) => {
      const problem = identifierProblem(v.dataPointID)
      if (problem) throw new InvalidInputError(`Refused: ${problem}`)
      if (await find(projectId, v.dataPointID)) throw vdpExists(projectId, v.dataPointID)
      return conflictsAs(sql.atomic(async (q) => {
        const id = (await q.value<number>(`INSERT INTO virtual_datapoints (project_id, datapoint_id, type, description, pins, parameters, status_code, created_at)
          VALUES (?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, projectId, v.dataPointID, v.type, v.description, JSON.stringify(v.pins), JSON.stringify(v.parameters), v.status_code, now()))!
        await log(q, id, v.status_code, message)
        return byIdIn(q, id)
      }), { virtual_datapoints_project_id_datapoint_id_key: () => vdpExists(projectId, v.dataPointID) })
    },
    find,
    get: async (projectId, dataPointID) => (await find(projectId, dataPointID)) ?? Promise.reject(new NotFoundError(`Virtual datapoint '${dataPointID}' not found in project ${projectId}`)),
    byId: (id) => byIdIn(sql, id),
    listByProject: async (projectId) => (await sql.rows<VdpRow>('SELECT * FROM virtual_datapoints WHERE project_id = ? ORDER BY datapoint_id COLLATE "C"', projectId)).map(toVdp),
    listByStatus: async (codes) => (codes.length === 0 ? [] : (await sql.rows<VdpRow>('SELECT * FROM virtual_datapoints WHERE status_code = ANY(?::int[]) ORDER BY id', [...codes])).map(toVdp)),
    setStatus: (id, code, message) => sql.atomic(async (q) => {
      await q.run('UPDATE virtual_datapoints SET status_code = ? WHERE id = ?', code, id)
      await log(q, id, code, message)
      return byIdIn(q, id)
    }),
    setDescription: async (id, description) => {
      await sql.run('UPDATE virtual_datapoints SET description = ? WHERE id = ?', description, id)
      return byIdIn(sql, id)
    },
    remove: async (id) => { await sql.run('DELETE FROM virtual_datapoints WHERE id = ?', id) },
    logs: async (id) => (await sql.rows<{ ts: string; status_code: number; message: string }>('SELECT ts, status_code, message FROM vdp_logs WHERE vdp = ? ORDER BY seq', id))
      .map((l) => ({ message: l.message, status_code: l.status_code, ts: l.ts, type: 'status_change' as const })),
  }
}

export function exchangeRates(sql: Sql): ExchangeRatesPort {
  return {
    set: async (r: ExchangeRate) => {
      await sql.run('INSERT INTO exchange_rates (base, quote, valid_from, rate) VALUES (?, ?, ?, ?) ON CONFLICT (base, quote, valid_from) DO UPDATE SET rate = excluded.rate',
        r.base, r.quote, r.validFrom, r.rate)
    },
    delete: async (base, quote, validFrom) => (await sql.run('DELETE FROM exchange_rates WHERE base = ? AND quote = ? AND valid_from = ?', base, quote, validFrom)) > 0,
    ofPair: (base, quote) => sql.rows('SELECT valid_from AS "validFrom", rate FROM exchange_rates WHERE base = ? AND quote = ? ORDER BY valid_from', base, quote),
    list: () => sql.rows<ExchangeRate>('SELECT base, quote, valid_from AS "validFrom", rate FROM exchange_rates ORDER BY base COLLATE "C", quote COLLATE "C", valid_from'),
  }
}

export function files(sql: Sql): FilesPort {
  const limitsIn = async (q: Sql, key: string): Promise<QuotaLimits> =>
    (await q.one<QuotaLimits>('SELECT file_size_bytes, files, space_bytes FROM file_quotas WHERE space = ?', key)) ?? { ...DEFAULT_QUOTA }
  const usageIn = async (q: Sql, key: string) =>
    (await q.one<{ files: number; space_bytes: number }>('SELECT count(*) AS files, coalesce(sum(size_bytes), 0) AS space_bytes FROM files WHERE space = ?', key))!
  // A space's writes take its quota row's lock (made if missing) first: racing uploads are serialized.
  const lockSpace = async (q: Sql, s: Space) => {
    const key = spaceKey(s)
    await q.run('INSERT INTO file_quotas (space, company_id, project_id, file_size_bytes, files, space_bytes) VALUES (?, ?, ?, ?, ?, ?) ON CONFLICT (space) DO NOTHING',
      key, s.companyId, s.kind === 'project' ? s.projectId : null, DEFAULT_QUOTA.file_size_bytes, DEFAULT_QUOTA.files, DEFAULT_QUOTA.space_bytes)
    await q.run('SELECT 1 FROM file_quotas WHERE space = ? FOR UPDATE', key)
    return key
  }
  return {
    key: spaceKey,
    refusal,
    filesFull,
    limits: (s) => limitsIn(sql, spaceKey(s)),
    setLimits: async (s, l) => {
      assertLimits(l)
      const key = spaceKey(s)
      const next = { ...await limitsIn(sql, key), ...Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) }
      await sql.run(`INSERT INTO file_quotas (space, company_id, project_id, file_size_bytes, files, space_bytes) VALUES (?, ?, ?, ?, ?, ?)
        ON CONFLICT (space) DO UPDATE SET file_size_bytes = excluded.file_size_bytes, files = excluded.files, space_bytes = excluded.space_bytes`,
      key, s.companyId, s.kind === 'project' ? s.projectId : null, next.file_size_bytes, next.files, next.space_bytes)
      return next
    },
    usage: (s) => usageIn(sql, spaceKey(s)),
    quota: async (s) => toQuotaRecord(await limitsIn(sql, spaceKey(s)), await usageIn(sql, spaceKey(s))),
    get: (s, path) => sql.one<FileRow>(`SELECT ${FILE} FROM files WHERE space = ? AND path = ?`, spaceKey(s), path),
    list: async (s, o) => {
      const like = o.search ? `%${likeEscaped(o.search)}%` : '%'
      const where = "space = ? AND path ILIKE ? ESCAPE '\\'"
      const total = (await sql.value<number>(`SELECT count(*) FROM files WHERE ${where}`, spaceKey(s), like))!
      const items = await sql.rows<FileRow>(`SELECT ${FILE} FROM files WHERE ${where} ORDER BY path COLLATE "C" LIMIT ? OFFSET ?`, spaceKey(s), like, o.perPage, (o.page - 1) * o.perPage)
      return { items, total }
    },
    commit: (s, mode, f, now) => sql.atomic(async (q) => {
      const key = await lockSpace(q, s)
      const old = await q.one<{ object_key: string; size_bytes: number }>('SELECT object_key, size_bytes FROM files WHERE space = ? AND path = ?', key, f.path)
      assertCommit(s, mode, f, old, await limitsIn(q, key), await usageIn(q, key))
      if (old) {
        await q.run('UPDATE files SET object_key = ?, size_bytes = ?, sha256 = ?, last_modified = ? WHERE space = ? AND path = ?', f.object_key, f.size_bytes, f.sha256, now, key, f.path)
      } else {
        await q.run(`INSERT INTO files (space, company_id, project_id, ${FILE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
          key, s.companyId, s.kind === 'project' ? s.projectId : null, f.path, f.object_key, f.size_bytes, f.sha256, now)
      }
      return { replacedKey: old?.object_key }
    }),
    delete: async (s, path) => {
      const keys = (await sql.rows<{ object_key: string }>(`DELETE FROM files WHERE space = ? AND (path = ? OR path LIKE ? ESCAPE '\\') RETURNING object_key`,
        spaceKey(s), path, `${likeEscaped(path)}/%`)).map((r) => r.object_key)
      if (keys.length === 0) throw new NotFoundError(`File or folder '${path}' not found in the file space of ${spaceName(s)}`)
      return keys
    },
    orphans: async (keys) => {
      const out: string[] = []
      for (const k of keys) {
        const owner = ownerOf(k)
        if (owner && !(await sql.one(`SELECT 1 FROM ${owner.table} WHERE id = ?`, owner.id))) out.push(k)
      }
      return out
    },
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

export function alerts(sql: Sql, now: () => number = Date.now): AlertsPort {
  const find = async (q: Sql, id: number) => {
    const row = await q.one<AlertRow>(`${ALERT_SELECT} WHERE a.id = ?`, id)
    return row && toAlert(row)
  }
  const addOutbox = (q: Sql, alertId: number, channel: string, payload: string, at: number) =>
    q.value<number>('INSERT INTO alert_outbox (alert_id, channel, payload, created_at) VALUES (?, ?, ?, ?) RETURNING id', alertId, channel, payload, at) as Promise<number>
  const put = 'INSERT INTO alert_state (alert_id, state) VALUES (?, ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state'
  return {
    create: async (projectId, a) => {
      const id = (await sql.value<number>(`INSERT INTO alerts (project_id, datapoint, kind, name, description, status_code, config, notification, attributes, created_at)
        VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?) RETURNING id`, projectId, a.datapoint, a.kind, a.name, a.description, a.status_code,
      JSON.stringify(a.config), JSON.stringify(a.notification), JSON.stringify(a.attributes), now()))!
      return (await find(sql, id))!
    },
    find: (id) => find(sql, id),
    byId: async (id) => (await find(sql, id)) ?? Promise.reject(new NotFoundError(`Alert ${id} not found`)),
    listByProject: async (projectId) => (await sql.rows<AlertRow>(`${ALERT_SELECT} WHERE a.project_id = ? ORDER BY a.id`, projectId)).map(toAlert),
    listByStatus: async (codes) => (codes.length === 0 ? [] : (await sql.rows<AlertRow>(`${ALERT_SELECT} WHERE a.status_code = ANY(?::int[]) ORDER BY a.id`, [...codes])).map(toAlert)),
    setStatus: async (id, code) => {
      await sql.run('UPDATE alerts SET status_code = ? WHERE id = ?', code, id)
      return (await find(sql, id)) ?? Promise.reject(new NotFoundError(`Alert ${id} not found`))
    },
    remove: async (id) => { await sql.run('DELETE FROM alerts WHERE id = ?', id) },
    state: (id) => sql.value<string>('SELECT state FROM alert_state WHERE alert_id = ?', id),
    states: async (ids) => new Map((await sql.rows<{ alert_id: number; state: string }>('SELECT alert_id, state FROM alert_state WHERE alert_id = ANY(?::bigint[])', [...ids]))
      .map((r) => [r.alert_id, r.state])),
    saveStates: (states) => sql.atomic(async (q) => {
      for (const s of states) {
        await q.run('INSERT INTO alert_state (alert_id, state) SELECT ?, ? WHERE EXISTS (SELECT 1 FROM alerts WHERE id = ?) ON CONFLICT (alert_id) DO UPDATE SET state = excluded.state',
          s.alertId, s.state, s.alertId)
      }
    }),
    clearState: async (id) => { await sql.run('DELETE FROM alert_state WHERE alert_id = ?', id) },
    recordTransitions: (list, payload) => sql.atomic(async (q) => {
      const recordedAt = now()
      const out: { event: AlertEvent; outbox: OutboxEntry[] }[] = []
      const known = new Map<number, AlertRecord | undefined>()
      for (const t of list) {
        if (!known.has(t.alertId)) known.set(t.alertId, await find(q, t.alertId))
        const alert = known.get(t.alertId)
        if (!alert) continue // deleted meanwhile
        const e = t.event
        const id = (await q.value<number>('INSERT INTO alert_events (alert_id, kind, level, previous_level, value, time, recorded_at) VALUES (?, ?, ?, ?, ?, ?, ?) RETURNING id',
          t.alertId, e.kind, e.level, e.previous_level, e.value, e.time, recordedAt))!
        await q.run(put, t.alertId, t.state)
        const event: AlertEvent = { id, alert_id: t.alertId, ...e, recorded_at: recordedAt }
        const outbox: OutboxEntry[] = []
        for (const channel of t.channels) {
          const body = payload(alert, event, channel)
          outbox.push({ id: await addOutbox(q, t.alertId, channel, body, recordedAt), alert_id: t.alertId, channel, payload: body, attempts: 0, created_at: recordedAt })
        }
        out.push({ event, outbox })
      }
      return out
    }),
    events: (alertId, opts) => sql.rows<AlertEvent>('SELECT * FROM alert_events WHERE alert_id = ? AND id < ? ORDER BY id DESC LIMIT ?', alertId, opts.before ?? Number.MAX_SAFE_INTEGER, opts.limit),
    eventCount: async (alertId) => (await sql.value<number>('SELECT count(*) FROM alert_events WHERE alert_id = ?', alertId))!,
    outboxAdd: (entries) => sql.atomic(async (q) => {
      const at = now()
      const out: OutboxEntry[] = []
      for (const e of entries) out.push({ ...e, id: await addOutbox(q, e.alert_id, e.channel, e.payload, at), attempts: 0, created_at: at })
      return out
    }),
    outboxPending: (limit, after = 0) => sql.rows<OutboxEntry>('SELECT * FROM alert_outbox WHERE id > ? ORDER BY id LIMIT ?', after, limit),
    outboxCount: async () => (await sql.value<number>('SELECT count(*) FROM alert_outbox'))!,
    outboxDelete: async (ids) => { if (ids.length > 0) await sql.run('DELETE FROM alert_outbox WHERE id = ANY(?::bigint[])', [...ids]) },
    outboxAttempted: async (id) => { await sql.run('UPDATE alert_outbox SET attempts = attempts + 1 WHERE id = ?', id) },
    outboxDropOldest: async (n) => (await sql.rows<OutboxEntry>('DELETE FROM alert_outbox WHERE id IN (SELECT id FROM alert_outbox ORDER BY id LIMIT ?) RETURNING *', n))
      .sort((a, b) => a.id - b.id),
  }
}

export function setpoints(sql: Sql): SetpointsPort {
  const find = async (reference: string) => {
    const row = await sql.one<SetpointRow>('SELECT * FROM setpoint_operations WHERE reference = ?', reference)
    return row && toOperation(row)
  }
  const get = async (reference: string) => (await find(reference)) ?? Promise.reject(new NotFoundError(`Setpoint operation '${reference}' not found`))
  const settings = async (projectId: number) => {
    const row = await sql.one<{ enabled: number; max_priority: number }>('SELECT enabled, max_priority FROM project_setpoints WHERE project_id = ?', projectId)
    return { project_id: projectId, enabled: row?.enabled === 1, max_priority: row?.max_priority ?? DEFAULT_MAX_PRIORITY }
  }
  const open = "(status = 'initialized' OR (status = 'requested' AND deadline IS NOT NULL))"
  return {
    settings,
    setSettings: async (projectId, change) => {
      if (change.maxPriority !== undefined && !(Number.isInteger(change.maxPriority) && change.maxPriority >= 1 && change.maxPriority <= 16)) {
        throw new InvalidInputError(`The maximum setpoint priority must be an integer from 1 (most urgent) to 16, got ${change.maxPriority}`)
      }
      if (!(await sql.one('SELECT 1 FROM projects WHERE id = ?', projectId))) throw new NotFoundError(`Project ${projectId} not found`)
      const enabled = change.enabled === undefined ? null : change.enabled ? 1 : 0
      const max = change.maxPriority ?? null
      await sql.run(`INSERT INTO project_setpoints (project_id, enabled, max_priority) VALUES (?, COALESCE(?::int, 0), COALESCE(?::int, ${DEFAULT_MAX_PRIORITY}))
        ON CONFLICT (project_id) DO UPDATE SET enabled = COALESCE(?::int, project_setpoints.enabled), max_priority = COALESCE(?::int, project_setpoints.max_priority)`,
      projectId, enabled, max, enabled, max)
      return settings(projectId)
    },
    bounds: (projectId, dataPointID) => sql.one<WriteBounds>(`SELECT b.setpoint_min_value, b.setpoint_max_value FROM datapoint_write_bounds b
      JOIN datapoints d ON d.id = b.datapoint WHERE d.project_id = ? AND d.datapoint_id = ?`, projectId, dataPointID),
    setBounds: async (projectId, dataPointID, b) => {
      if (!(b.setpoint_min_value <= b.setpoint_max_value)) {
        throw new InvalidInputError(`setpoint_min_value (${b.setpoint_min_value}) must not be greater than setpoint_max_value (${b.setpoint_max_value})`)
      }
      const id = await sql.value<number>('SELECT id FROM datapoints WHERE project_id = ? AND datapoint_id = ?', projectId, dataPointID)
      if (id === undefined) throw new NotFoundError(`Datapoint '${dataPointID}' not found in project ${projectId}`)
      await sql.run(`INSERT INTO datapoint_write_bounds (datapoint, setpoint_min_value, setpoint_max_value) VALUES (?, ?, ?)
        ON CONFLICT (datapoint) DO UPDATE SET setpoint_min_value = excluded.setpoint_min_value, setpoint_max_value = excluded.setpoint_max_value`,
      id, b.setpoint_min_value, b.setpoint_max_value)
      return { setpoint_min_value: b.setpoint_min_value, setpoint_max_value: b.setpoint_max_value }
    },
    create: async (op) => {
      await sql.run(`INSERT INTO setpoint_operations (reference, project_id, datapoint_id, value, priority, acked, dryrun, keep_out_of_service,
        requested_by, created_at, deadline, status, log) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      op.reference, op.project_id, op.dataPointID, op.value, op.priority, op.acked ? 1 : 0, op.dryrun ? 1 : 0, op.keep_out_of_service ? 1 : 0,
      op.requested_by, op.created_at, op.deadline, op.status, JSON.stringify(op.log))
      return { ...op, old_value: null }
    },
    advance: async (reference, status, entry, change = {}, current?: SetpointOperation) => {
      // Compare-and-set on what was read: only the first of several API processes moves it.
      const seen = current?.reference === reference ? current : await find(reference)
      if (!seen) return undefined
      const op = { ...seen, log: [...seen.log, entry], status }
      if (change.old_value !== undefined) op.old_value = change.old_value
      if (change.deadline !== undefined) op.deadline = change.deadline
      const n = await sql.run('UPDATE setpoint_operations SET status = ?, old_value = ?, deadline = ?, log = ? WHERE reference = ? AND status = ? AND log = ?',
        op.status, op.old_value, op.deadline, JSON.stringify(op.log), reference, seen.status, JSON.stringify(seen.log))
      return n === 1 ? op : undefined
    },
    find,
    get,
    listByDatapoint: async (projectId, dataPointID, limit = 100) =>
      (await sql.rows<SetpointRow>('SELECT * FROM setpoint_operations WHERE project_id = ? AND datapoint_id = ? ORDER BY id DESC LIMIT ?', projectId, dataPointID, limit)).map(toOperation),
    listAwaiting: async (projectId) => (projectId === undefined
      ? await sql.rows<SetpointRow>(`SELECT * FROM setpoint_operations WHERE ${open} ORDER BY id`)
      : await sql.rows<SetpointRow>(`SELECT * FROM setpoint_operations WHERE ${open} AND project_id = ? ORDER BY id`, projectId)).map(toOperation),
  }
}
