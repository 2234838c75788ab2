// Controls apps in the catalog (spec 2 "Controls app"; issue 31): an algorithm bound to a
// mapped component, its configuration, its status code, the deployment to the edge agent
// (the revision the platform wants, the revision the edge confirmed) and its log (status
// changes of the platform, and the entries the edge sends back, each (app, seq) once); plus the
// holiday calendar of each project. The codes and the allowed moves are the engine's
// lifecycle table (engine/controls/lifecycle.ts); this module only stores what its callers
// decided. Queries here are run as they are by both adapters (`?` placeholders).

/** What the edge is asked to do with an app (APPDEF `desired`). */
export type Desired = 'run' | 'stop' | 'delete'

export interface ControlsApp {
  id: string
  project_id: number
  componentinproject_id: number
  algorithm: string
  variation: string
  name: string
  description: string
  /** The algorithm's configuration as validated (schedule: core/schedule ScheduleConfig). */
  configuration: Record<string, unknown>
  /** Pin name → datapoint identifier, the pins the configuration writes (fixed at creation). */
  pins: Record<string, string>
  status_code: number
  /** Why the status is what it is, when the edge said so (APPSTATE reason); '' otherwise. */
  status_reason: string
  desired: Desired
  /** Grows on every change the edge must hear of (run, stop, delete, calendar). */
  revision: number
  /** The revision the edge last confirmed with an APPSTATE; 0 before any. */
  confirmed_revision: number
  /** Whether an APPDEF was ever sent (an app never deployed is deleted at once). */
  deployed: boolean
  created_by: string
  /** ms since the epoch */
  created_at: number
  updated_at: number
}

export type NewControlsApp = Omit<ControlsApp, 'status_reason' | 'confirmed_revision' | 'deployed' | 'updated_at'>

/** A change of an app; only the given fields change. */
export type ControlsAppChange = Partial<Pick<ControlsApp, 'status_code' | 'status_reason' | 'desired' | 'revision' | 'confirmed_revision' | 'deployed'>>

/** One entry of an app's log: a status change of the platform, or what the edge reported (with its seq). */
export interface ControlsAppLogEntry {
  /** Edge entries: the edge's sequence number (per app, from 1); null for the platform's own. */
  seq: number | null
  /** µs since the epoch */
  time_us: number
  /** 'status_change' (platform) or the edge's kind: write, reset, state, conflict, error. */
  kind: string
  message: string
  status_code: number | null
  datapoint: string | null
  value: number | null
  priority: number | null
}

export interface ControlsAppFilter {
  componentinproject_id?: number
  algorithm?: string
  status_code?: number
  /** Part of the name, description or id (case-insensitive). */
  search?: string
}

export interface Page<T> { items: T[]; total: number }

export interface ControlsAppRow {
  id: string; project_id: number; cip_id: number; algorithm: string; variation: string; name: string; description: string
  configuration: string; pins: string; status_code: number; status_reason: string; desired: string; revision: number
  confirmed_revision: number; deployed: number; created_by: string; created_at: number; updated_at: number
}

export const toControlsApp = (r: ControlsAppRow): ControlsApp => ({
  id: r.id, project_id: r.project_id, componentinproject_id: r.cip_id, algorithm: r.algorithm, variation: r.variation, name: r.name,
  description: r.description, configuration: JSON.parse(r.configuration), pins: JSON.parse(r.pins), status_code: r.status_code,
  status_reason: r.status_reason, desired: r.desired as Desired, revision: r.revision, confirmed_revision: r.confirmed_revision,
  deployed: r.deployed === 1, created_by: r.created_by, created_at: r.created_at, updated_at: r.updated_at,
})

export const INSERT_APP = `INSERT INTO controls_apps (id, project_id, cip_id, algorithm, variation, name, description, configuration, pins,
  status_code, status_reason, desired, revision, confirmed_revision, deployed, created_by, created_at, updated_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, '', ?, ?, 0, 0, ?, ?, ?)`

export const insertAppParams = (a: NewControlsApp): unknown[] => [
  a.id, a.project_id, a.componentinproject_id, a.algorithm, a.variation, a.name, a.description, JSON.stringify(a.configuration),
  JSON.stringify(a.pins), a.status_code, a.desired, a.revision, a.created_by, a.created_at, a.created_at,
]

export const INSERT_LOG = `INSERT INTO controls_app_logs (app_id, seq, time_us, kind, message, status_code, datapoint, value, priority)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (app_id, seq) DO NOTHING`

export const logParams = (appId: string, e: ControlsAppLogEntry): unknown[] =>
  [appId, e.seq, e.time_us, e.kind, e.message, e.status_code, e.datapoint, e.value, e.priority]

const COLUMNS: Record<keyof ControlsAppChange, string> = {
  status_code: 'status_code', status_reason: 'status_reason', desired: 'desired', revision: 'revision', confirmed_revision: 'confirmed_revision', deployed: 'deployed',
}

/**
 * The compare-and-set update of an app: it changes only while its revision and status code are
 * those the caller read (several API processes hear the same edge message in scaled mode;
 * only the first one moves the app and logs it).
 */
export function updateApp(id: string, seen: Pick<ControlsApp, 'revision' | 'status_code'>, change: ControlsAppChange, at: number): { text: string; params: unknown[] } {
  const keys = Object.keys(change) as (keyof ControlsAppChange)[]
  const sets = keys.map((k) => `${COLUMNS[k]} = ?`)
  const values = keys.map((k) => (k === 'deployed' ? (change.deployed ? 1 : 0) : change[k]))
  return {
    text: `UPDATE controls_apps SET ${[...sets, 'updated_at = ?'].join(', ')} WHERE id = ? AND revision = ? AND status_code = ?`,
    params: [...values, at, id, seen.revision, seen.status_code],
  }
}

/** WHERE clause and parameters of a project's filtered list. */
export function listWhere(projectId: number, f: ControlsAppFilter): { where: string; params: unknown[] } {
  const parts = ['project_id = ?']
  const params: unknown[] = [projectId]
  if (f.componentinproject_id !== undefined) { parts.push('cip_id = ?'); params.push(f.componentinproject_id) }
  if (f.algorithm !== undefined) { parts.push('algorithm = ?'); params.push(f.algorithm) }
  if (f.status_code !== undefined) { parts.push('status_code = ?'); params.push(f.status_code) }
  if (f.search !== undefined && f.search !== '') {
    parts.push("(LOWER(name) LIKE ? ESCAPE '\\' OR LOWER(description) LIKE ? ESCAPE '\\' OR LOWER(id) LIKE ? ESCAPE '\\')")
    const like = `%${f.search.toLowerCase().replace(/[\\%_]/g, (c) => `\\${c}`)}%`
    params.push(like, like, like)
  }
  return { where: parts.join(' AND '), params }
}

export interface ControlsAppLogRow {
  seq: number | null; time_us: number; kind: string; message: string; status_code: number | null; datapoint: string | null; value: number | null; priority: number | null
}

export const LOG_COLUMNS = 'seq, time_us, kind, message, status_code, datapoint, value, priority'
/** Newest first; entries of one instant in the order they were stored. */
export const LOG_ORDER = 'ORDER BY time_us DESC, id DESC'

/** The holiday calendar of a project as stored: the rules (validated by the caller) as JSON text. */
export interface HolidayCalendar { rules: unknown[]; updated_at: number | null }
