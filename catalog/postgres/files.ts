// The PostgreSQL repository of document files and quotas (catalog/files.ts holds the
// rules and texts). Same behaviour as catalog/sqlite/files.ts (the contract suite holds both).
import { NotFoundError } from '../../core/errors.ts'
import { assertCommit, assertLimits, DEFAULT_QUOTA, FILE, filesFull, likeEscaped, ownerOf, refusal, spaceKey, spaceName, toQuotaRecord, type FileRow, type QuotaLimits, type Space } from '../files.ts'
import type { FilesPort } from '../port.ts'
import type { Sql } from './sql.ts'

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
