// Data lifecycle records (issue 34 item 2): the audit of deletions (who removed which
// observations or datapoint, and when) and the retention of each project, per raw data and
// rollup level. Types and the pure rules here; sqlite/lifecycle.ts and postgres/lifecycle.ts
// store them (the contract suite holds both).
import { InvalidInputError } from '../core/errors.ts'

/** What a deletion removed: a range of one datapoint's observations, or the datapoint itself. */
export type DeletionKind = 'range' | 'datapoint'

export interface NewDeletion {
  project_id: number
  dataPointID: string
  kind: DeletionKind
  /** The half-open range [start, end) in µs; null for a whole datapoint. */
  start: number | null
  end: number | null
  /** Who asked: the user's email. */
  actor: string
  /** When, µs. */
  at: number
}
export interface DeletionRecord extends NewDeletion { id: number }

export interface DeletionRow { id: number; project_id: number; datapoint_id: string; kind: string; range_start: number | null; range_end: number | null; actor: string; at: number }
export const toDeletion = (r: DeletionRow): DeletionRecord => ({
  id: r.id, project_id: r.project_id, dataPointID: r.datapoint_id, kind: r.kind as DeletionKind,
  start: r.range_start, end: r.range_end, actor: r.actor, at: r.at,
})

/** The parts retention applies to, finest first: raw observations, then the rollup levels (engine/store/sqlite-rollups.ts). */
export const RETENTION_PARTS = ['raw', 'rollup_15m', 'rollup_1h', 'rollup_1d'] as const
export type RetentionPart = typeof RETENTION_PARTS[number]

/** Seconds each part is kept; null keeps it forever (the default). */
export type Retention = Record<RetentionPart, number | null>
export const KEEP_EVERYTHING: Retention = { raw: null, rollup_15m: null, rollup_1h: null, rollup_1d: null }

/** The shortest retention: a sweep runs about once a minute, so less could not be honoured. */
export const MIN_RETENTION_S = 60

/**
 * Checks a retention (400 with the part named): whole seconds, at least a minute, and a coarser
 * level kept at least as long as a finer one, so that a read older than the raw retention is
 * answered by every rollup level whose interval divides it that is kept.
 */
export function validRetention(r: Retention): Retention {
  let finer: { part: RetentionPart; s: number | null } | undefined
  for (const part of RETENTION_PARTS) {
    const s = r[part]
    if (s !== null && !(Number.isSafeInteger(s) && s >= MIN_RETENTION_S)) {
      throw new InvalidInputError(`Retention of ${part} must be at least ${MIN_RETENTION_S} seconds (one minute), got ${s} seconds`)
    }
    if (finer && finer.s === null && s !== null) {
      throw new InvalidInputError(`Retention of ${part} (${s} seconds) must not be shorter than that of ${finer.part} (kept forever)`)
    }
    if (finer && finer.s !== null && s !== null && s < finer.s) {
      throw new InvalidInputError(`Retention of ${part} (${s} seconds) must not be shorter than that of ${finer.part} (${finer.s} seconds)`)
    }
    finer = { part, s }
  }
  return r
}

const UNITS: Record<string, number> = { s: 1, m: 60, h: 3600, d: 86_400, w: 604_800, y: 31_536_000 }

/** A duration such as `90d`, `12h`, `1y` (365 days) in seconds; `null`/`forever` keeps everything; 400 otherwise. */
export function parseRetention(part: string, text: string | null): number | null {
  if (text === null || text === 'forever') return null
  const m = /^(\d{1,9})([smhdwy])$/.exec(text)
  if (!m) throw new InvalidInputError(`Retention of ${part} '${text}': use a whole number followed by s, m, h, d, w or y (365 days), e.g. 90d, or null to keep everything`)
  return Number(m[1]) * UNITS[m[2]]
}

/** Seconds as the largest unit that divides them (`90d`), or null. */
export function formatRetention(s: number | null): string | null {
  if (s === null) return null
  for (const u of ['y', 'w', 'd', 'h', 'm'] as const) if (s % UNITS[u] === 0) return `${s / UNITS[u]}${u}`
  return `${s}s`
}

export interface RetentionRow { project_id: number; raw_s: number | null; rollup_15m_s: number | null; rollup_1h_s: number | null; rollup_1d_s: number | null }
export const toRetention = (r: RetentionRow | undefined): Retention => r
  ? { raw: r.raw_s, rollup_15m: r.rollup_15m_s, rollup_1h: r.rollup_1h_s, rollup_1d: r.rollup_1d_s }
  : { ...KEEP_EVERYTHING }

export const DELETION_COLUMNS = 'id, project_id, datapoint_id, kind, range_start, range_end, actor, at'
export const UPSERT_RETENTION = `INSERT INTO project_retention (project_id, raw_s, rollup_15m_s, rollup_1h_s, rollup_1d_s) VALUES (?, ?, ?, ?, ?)
  ON CONFLICT (project_id) DO UPDATE SET raw_s = excluded.raw_s, rollup_15m_s = excluded.rollup_15m_s, rollup_1h_s = excluded.rollup_1h_s, rollup_1d_s = excluded.rollup_1d_s`

/** Deletion audit and retention per project (catalog/lifecycle.ts; issue 34 item 2). */
export interface DataLifecyclePort {
  recordDeletion(d: NewDeletion): Promise<DeletionRecord>
  /** Newest first; `before`: only ids below it (pages). */
  deletions(projectId: number, page: { limit: number; before?: number }): Promise<DeletionRecord[]>
  /** KEEP_EVERYTHING when none was set. */
  retention(projectId: number): Promise<Retention>
  /** Validated (validRetention: 400); a retention that keeps everything removes the row. */
  setRetention(projectId: number, r: Retention): Promise<Retention>
  /** The projects that keep something for a limited time, with their retention. */
  retentions(): Promise<Array<{ project_id: number; retention: Retention }>>
}
