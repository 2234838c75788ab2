// Files and quotas of the document spaces (spec 1 "Documents and quotas"): one space per
// company and per project, each with limits on the size of one file, the number of files and
// the total bytes (quota_limits), fixed by the operator (`lintel quota set`). Use is derived
// from the file rows, so it can never drift, and a file becomes visible only when `commit`
// accepts it inside one IMMEDIATE transaction: two uploads racing for the last free bytes are
// serialized here, the first wins and the second is refused naming the limit (issue 10).
// Async methods: the catalog becomes a Promise-returning port (SQLite stays inside this file).
import { statements, type Db } from './db.ts'
import { InvalidInputError, NotFoundError, TooLargeError } from '../core/errors.ts'

export type Space = { kind: 'company'; companyId: number } | { kind: 'project'; companyId: number; projectId: number }

export interface QuotaLimits { file_size_bytes: number; files: number; space_bytes: number }
export interface QuotaRecord {
  quota_limits: QuotaLimits
  quota_used: { files: number; space_bytes: number }
  quota_available: { files: number; space_bytes: number }
}
export interface FileRow { path: string; object_key: string; size_bytes: number; sha256: string; last_modified: number }

/** Limits of a space the operator has not set (documented in the README). */
export const DEFAULT_QUOTA: QuotaLimits = { file_size_bytes: 2 * 1024 ** 3, files: 10_000, space_bytes: 20 * 1024 ** 3 }

/** The space's key in the catalog and the prefix of its objects in the storage. */
export const spaceKey = (s: Space): string => (s.kind === 'company' ? `c${s.companyId}` : `p${s.projectId}`)
export const spaceName = (s: Space): string => (s.kind === 'company' ? `company ${s.companyId}` : `project ${s.projectId}`)
export const FILE = 'path, object_key, size_bytes, sha256, last_modified'

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

/** `text` for a LIKE pattern with ESCAPE '\\': its own %, _ and \\ taken literally. */
export const likeEscaped = (text: string): string => text.replace(/[\\%_]/g, (c) => `\\${c}`)

export function toQuotaRecord(limits: QuotaLimits, used: { files: number; space_bytes: number }): QuotaRecord {
  return {
    quota_limits: limits, quota_used: used,
    quota_available: { files: Math.max(0, limits.files - used.files), space_bytes: Math.max(0, limits.space_bytes - used.space_bytes) },
  }
}

/** Refuses a commit (see FileSpaces.commit) given the file now at its path and the space's limits and use. */
export function assertCommit(s: Space, mode: 'create' | 'replace', f: Omit<FileRow, 'last_modified'>, old: { size_bytes: number } | undefined,
  limits: QuotaLimits, used: { files: number; space_bytes: number }): void {
  if (mode === 'create' && old) throw new InvalidInputError(`File '${f.path}' already exists in the file space of ${spaceName(s)}`)
  if (mode === 'replace' && !old) throw new NotFoundError(`File '${f.path}' not found in the file space of ${spaceName(s)}`)
  if (f.size_bytes > limits.file_size_bytes) throw fileTooLarge(s, limits)
  if (!old && used.files + 1 > limits.files) throw filesFull(s, limits)
  const others = used.space_bytes - (old?.size_bytes ?? 0)
  if (others + f.size_bytes > limits.space_bytes) throw spaceFull(s, limits, others, f.size_bytes)
}

/** Why an upload that has reached `total` bytes cannot fit beside `others` bytes (413 naming the limit). */
export function refusal(s: Space, l: QuotaLimits, others: number, total: number): TooLargeError | undefined {
  if (total > l.file_size_bytes) return fileTooLarge(s, l)
  if (others + total > l.space_bytes) return spaceFull(s, l, others, total)
  return undefined
}

/** Checks operator limits before they are stored. */
export function assertLimits(l: Partial<QuotaLimits>): void {
  for (const [name, v] of Object.entries(l)) {
    if (v !== undefined && !(Number.isSafeInteger(v) && v >= 0)) throw new InvalidInputError(`${name} must be a whole number of at least 0, got ${v}`)
  }
}

/** The orphan sweep's reading of a space key: its owner's table and id, or undefined (not ours). */
export function ownerOf(key: string): { table: 'companies' | 'projects'; id: number } | undefined {
  const m = /^([cp])([1-9]\d*)$/.exec(key)
  return m ? { table: m[1] === 'c' ? 'companies' : 'projects', id: Number(m[2]) } : undefined
}

// The refusals an upload can meet mid-stream or at commit, each naming its limit (413).
const fileTooLarge = (s: Space, l: QuotaLimits) =>
  new TooLargeError(`File too large: the file space of ${spaceName(s)} accepts files of at most ${l.file_size_bytes} bytes (quota_limits.file_size_bytes)`)
export const filesFull = (s: Space, l: QuotaLimits) =>
  new TooLargeError(`Quota exceeded: the file space of ${spaceName(s)} holds at most ${l.files} files (quota_limits.files)`)
const spaceFull = (s: Space, l: QuotaLimits, used: number, size: number) =>
  new TooLargeError(`Quota exceeded: the file space of ${spaceName(s)} holds at most ${l.space_bytes} bytes (quota_limits.space_bytes); ${used} are used by other files and this upload needs at least ${size}`)
