// Analysis instances, their results and the weekly run ledger (spec 3 "Analysis", "States",
// "Events" 3; issue 12 item 4). One instance per (analysis function, mapped component): the
// UNIQUE key refuses a second with the spec's error. Results keep the texts of both
// languages, so a result is read in English or German without running again.
// The weekly ledger has one row per (instance, week): the row is claimed in a transaction
// before the run and completed with the result in another, so two worker processes never
// both run a week; a claim whose worker died is taken over after its lease (the result is
// written only by the holder of the claim). Codes are engine/analytics/lifecycle.ts's.
import { randomUUID } from 'node:crypto'

export interface AnalysisInstance {
  id: number
  project_id: number
  componentinproject_id: number
  analysisfunction_id: number
  name: string
  description: string
  enabled: boolean
  /** µs: the first week (its Monday 00:00) the weekly run covers. */
  weeks_from: number
  created_at: number
}

export interface Kpi { name: string; unit: string; value: number | string | null }
export interface ResultTexts { function_name: string; interpretation: string; kpi: Kpi[]; recommendation: string[]; info: string[] }

export interface NewResult {
  /** µs, half-open [start, end). */
  start: number
  end: number
  status: string
  trigger: 'manual' | 'weekly'
  signal_color: string | null
  texts: { en: ResultTexts; de: ResultTexts }
}

export interface AnalysisResult extends NewResult {
  id: number
  result_id: string
  instance_id: number
  created_at: number
}

/** An enabled instance with the last week of the ledger (µs, null: none yet). */
export interface ScheduledInstance { id: number; project_id: number; weeks_from: number; last_week: number | null }
export interface StaleWeek { instance_id: number; week_start: number }

export interface InstanceRow { id: number; project_id: number; cip_id: number; function_id: number; name: string; description: string; enabled: number; weeks_from: number; created_at: number }
export interface ResultRow { id: number; result_id: string; instance_id: number; start_us: number; end_us: number; status: string; trigger: string; signal_color: string | null; texts: string; created_at: number }

export const toInstance = (r: InstanceRow): AnalysisInstance => ({
  id: r.id, project_id: r.project_id, componentinproject_id: r.cip_id, analysisfunction_id: r.function_id,
  name: r.name, description: r.description, enabled: r.enabled === 1, weeks_from: r.weeks_from, created_at: r.created_at,
})
export const toResult = (r: ResultRow): AnalysisResult => ({
  id: r.id, result_id: r.result_id, instance_id: r.instance_id, start: r.start_us, end: r.end_us, status: r.status,
  trigger: r.trigger as NewResult['trigger'], signal_color: r.signal_color, texts: JSON.parse(r.texts), created_at: r.created_at,
})

// Queries both adapters run as they are.
export const LATEST_RESULTS = `SELECT r.* FROM analysis_results r
  JOIN (SELECT MAX(r2.id) AS id FROM analysis_results r2 JOIN analysis_instances i ON i.id = r2.instance_id WHERE i.project_id = ? GROUP BY r2.instance_id) m ON m.id = r.id
  ORDER BY r.instance_id`
export const SCHEDULED = `SELECT i.id, i.project_id, i.weeks_from, (SELECT MAX(w.week_start) FROM analysis_weeks w WHERE w.instance_id = i.id) AS last_week
  FROM analysis_instances i WHERE i.enabled = 1 ORDER BY i.id`
export const STALE_WEEKS = 'SELECT instance_id, week_start FROM analysis_weeks WHERE status_code = ? AND claimed_at < ? ORDER BY instance_id, week_start'
export const WEEKS = 'SELECT week_start, status_code, claimed_by, result_id FROM analysis_weeks WHERE instance_id = ? ORDER BY week_start'
export const INSERT_RESULT = `INSERT INTO analysis_results (result_id, instance_id, start_us, end_us, status, trigger, signal_color, texts, created_at)
  VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`
/**
 * Results kept per instance (issue 29 item 2; LINTEL_ANALYSIS_MAX_RESULTS): storing one more
 * drops the oldest beyond the bound, in the same transaction, so a script of manual runs
 * cannot fill the catalog. 1,000 is about 19 years of weekly results.
 */
export const DEFAULT_RESULTS_PER_INSTANCE = 1000
/** Deletes the results of an instance (?) beyond the newest (?) it keeps; ids grow with time. */
export const PRUNE_RESULTS = `DELETE FROM analysis_results WHERE instance_id = ? AND id <= (
  SELECT id FROM analysis_results WHERE instance_id = ? ORDER BY id DESC LIMIT 1 OFFSET ?)`
/** PRUNE_RESULTS's values. */
export const pruneValues = (instanceId: number, keep = DEFAULT_RESULTS_PER_INSTANCE) => [instanceId, instanceId, keep]
/** INSERT_RESULT's values of a new result. */
export const resultValues = (instanceId: number, r: NewResult, now: number) =>
  [randomUUID(), instanceId, r.start, r.end, r.status, r.trigger, r.signal_color, JSON.stringify(r.texts), now]

/** Spec 3 "Errors" 1: names the component in project and the function, says it exists. */
export const instanceExistsText = (cipId: number, functionId: number) =>
  `Analysis instance for componentinproject_id ${cipId} and analysisfunction_id ${functionId} already exists`
