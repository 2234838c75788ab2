// Files and quotas of the document spaces (spec 1 "Documents and quotas"): one space per
// company and per project, each with limits on the size of one file, the number of files and
// the total bytes (quota_limits), fixed by the operator (`lintel quota set`). Use is derived
// from the file rows, so it can never drift, and a file becomes visible only when `commit`
// accepts it inside one IMMEDIATE transaction: two uploads racing for the last free bytes are
// serialized here, the first wins and the second is refused naming the limit (issue 10).
// Async methods: the catalog becomes a Promise-returning port (SQLite stays inside this file).
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
