// The SQLite repository of catalog/files.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/files.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { NotFoundError, TooLargeError } from '../../core/errors.ts'
import { type Space, type QuotaLimits, type QuotaRecord, type FileRow, DEFAULT_QUOTA, spaceKey, spaceName, FILE, likeEscaped, toQuotaRecord, assertCommit, refusal, assertLimits, ownerOf, filesFull } from '../files.ts'

export class FileSpaces {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  /** The space's key: the prefix of its objects in the storage. */
  key(s: Space): string {
    return spaceKey(s)
  }

  /** Why an upload that has reached `total` bytes cannot fit beside `others` bytes (413 naming the limit). */
  refusal(s: Space, l: QuotaLimits, others: number, total: number): TooLargeError | undefined {
    return refusal(s, l, others, total)
  }

  /** The 413 of a space whose number of files is at its limit. */
  filesFull(s: Space, l: QuotaLimits): TooLargeError {
    return filesFull(s, l)
  }

  async limits(s: Space): Promise<QuotaLimits> {
    return this.limitsNow(spaceKey(s))
  }

  async setLimits(s: Space, l: Partial<QuotaLimits>): Promise<QuotaLimits> {
    assertLimits(l)
    const key = spaceKey(s)
    const next = { ...this.limitsNow(key), ...Object.fromEntries(Object.entries(l).filter(([, v]) => v !== undefined)) }
    this.sql(`INSERT INTO file_quotas (space, company_id, project_id, file_size_bytes, files, space_bytes) VALUES (?, ?, ?, ?, ?, ?)
      ON CONFLICT (space) DO UPDATE SET file_size_bytes = excluded.file_size_bytes, files = excluded.files, space_bytes = excluded.space_bytes`)
      .run(key, s.companyId, s.kind === 'project' ? s.projectId : null, next.file_size_bytes, next.files, next.space_bytes)
    return next
  }

  async usage(s: Space): Promise<{ files: number; space_bytes: number }> {
    return this.usageNow(spaceKey(s))
  }

  async quota(s: Space): Promise<QuotaRecord> {
    const key = spaceKey(s)
    const limits = this.limitsNow(key)
    const used = this.usageNow(key)
    return toQuotaRecord(limits, used)
  }

  async get(s: Space, path: string): Promise<FileRow | undefined> {
    return this.sql(`SELECT ${FILE} FROM files WHERE space = ? AND path = ?`).get(spaceKey(s), path) as FileRow | undefined
  }

  /** A page of the space's files in path order; `search` matches anywhere in the path, any case. */
  async list(s: Space, o: { page: number; perPage: number; search?: string }): Promise<{ items: FileRow[]; total: number }> {
    const like = o.search ? `%${likeEscaped(o.search)}%` : '%'
    const where = "space = ? AND path LIKE ? ESCAPE '\\'"
    const total = this.sql(`SELECT count(*) FROM files WHERE ${where}`).pluck().get(spaceKey(s), like) as number
    const items = this.sql(`SELECT ${FILE} FROM files WHERE ${where} ORDER BY path LIMIT ? OFFSET ?`)
      .all(spaceKey(s), like, o.perPage, (o.page - 1) * o.perPage) as FileRow[]
    return { items, total }
  }

  /**
   * Makes an uploaded object the file at `path`, or refuses it, atomically: `create` needs
   * the path free (400), `replace` needs it taken (404); every quota limit is checked against
   * the committed use of this moment (413 naming the limit). Returns the object key the file
   * had before a replace, for the caller to delete from the storage.
   */
  async commit(s: Space, mode: 'create' | 'replace', f: Omit<FileRow, 'last_modified'>, now: number): Promise<{ replacedKey?: string }> {
    const key = spaceKey(s)
    return this.db.transaction(() => {
      const old = this.sql('SELECT object_key, size_bytes FROM files WHERE space = ? AND path = ?').get(key, f.path) as { object_key: string; size_bytes: number } | undefined
      assertCommit(s, mode, f, old, this.limitsNow(key), this.usageNow(key))
      if (old) {
        this.sql('UPDATE files SET object_key = ?, size_bytes = ?, sha256 = ?, last_modified = ? WHERE space = ? AND path = ?')
          .run(f.object_key, f.size_bytes, f.sha256, now, key, f.path)
      } else {
        this.sql(`INSERT INTO files (space, company_id, project_id, ${FILE}) VALUES (?, ?, ?, ?, ?, ?, ?, ?)`)
          .run(key, s.companyId, s.kind === 'project' ? s.projectId : null, f.path, f.object_key, f.size_bytes, f.sha256, now)
      }
      return { replacedKey: old?.object_key }
    }).immediate()
  }

  /** Deletes the file at `path`, or every file in the folder `path`; returns their object keys (404 when none). */
  async delete(s: Space, path: string): Promise<string[]> {
    const key = spaceKey(s)
    return this.db.transaction(() => {
      // The folder's files by a range of the BINARY collation ('x/' <= p < 'x0', '0' being the
      // character after '/'), never LIKE: SQLite's LIKE ignores ASCII case, so deleting `CASE`
      // took `Case` and `case` with it (issue 29).
      const inFolder = 'space = ? AND (path = ? OR (path >= ? AND path < ?))'
      const args = [key, path, `${path}/`, `${path}0`]
      const rows = this.sql(`SELECT object_key FROM files WHERE ${inFolder}`).pluck().all(...args) as string[]
      if (rows.length === 0) throw new NotFoundError(`File or folder '${path}' not found in the file space of ${spaceName(s)}`)
      this.sql(`DELETE FROM files WHERE ${inFolder}`).run(...args)
      return rows
    }).immediate()
  }

  /** The spaces whose owner still exists, among `keys` (the orphan sweep deletes the others' objects). */
  async orphans(keys: string[]): Promise<string[]> {
    return keys.filter((k) => {
      const owner = ownerOf(k)
      return owner !== undefined && !this.sql(`SELECT 1 FROM ${owner.table} WHERE id = ?`).get(owner.id)
    })
  }

  private limitsNow(key: string): QuotaLimits {
    return (this.sql('SELECT file_size_bytes, files, space_bytes FROM file_quotas WHERE space = ?').get(key) as QuotaLimits | undefined) ?? { ...DEFAULT_QUOTA }
  }

  private usageNow(key: string): { files: number; space_bytes: number } {
    return this.sql('SELECT count(*) AS files, coalesce(sum(size_bytes), 0) AS space_bytes FROM files WHERE space = ?').get(key) as { files: number; space_bytes: number }
  }
}
