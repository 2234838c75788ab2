// Analysis instances, their results and the weekly run ledger (spec 3 "Analysis", "States",
// "Events" 3; issue 12 item 4). One instance per (analysis function, mapped component): the
// UNIQUE key refuses a second with the spec's error. Results keep the texts of both
// languages, so a result is read in English or German without running again.
// The weekly ledger has one row per (instance, week): the row is claimed in a transaction
// before the run and completed with the result in another, so two worker processes never
// both run a week; a claim whose worker died is taken over after its lease (the result is
// written only by the holder of the claim). Codes are engine/analytics/lifecycle.ts's.
import { randomUUID } from 'node:crypto'
import { statements, type Db } from './db.ts'
import { ConflictError, NotFoundError } from '../core/errors.ts'

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

interface InstanceRow { id: number; project_id: number; cip_id: number; function_id: number; name: string; description: string; enabled: number; weeks_from: number; created_at: number }
interface ResultRow { id: number; result_id: string; instance_id: number; start_us: number; end_us: number; status: string; trigger: string; signal_color: string | null; texts: string; created_at: number }

const toInstance = (r: InstanceRow): AnalysisInstance => ({
  id: r.id, project_id: r.project_id, componentinproject_id: r.cip_id, analysisfunction_id: r.function_id,
  name: r.name, description: r.description, enabled: r.enabled === 1, weeks_from: r.weeks_from, created_at: r.created_at,
})
const toResult = (r: ResultRow): AnalysisResult => ({
  id: r.id, result_id: r.result_id, instance_id: r.instance_id, start: r.start_us, end: r.end_us, status: r.status,
  trigger: r.trigger as NewResult['trigger'], signal_color: r.signal_color, texts: JSON.parse(r.texts), created_at: r.created_at,
})

/** Spec 3 "Errors" 1: names the component in project and the function, says it exists. */
export const instanceExistsText = (cipId: number, functionId: number) =>
  `Analysis instance for componentinproject_id ${cipId} and analysisfunction_id ${functionId} already exists`

export class Analytics {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db, private readonly now: () => number = Date.now) {
    this.sql = statements(db)
  }

  createInstance(projectId: number, i: { componentinproject_id: number; analysisfunction_id: number; name: string; description: string; enabled: boolean; weeks_from: number }): AnalysisInstance {
    const res = this.sql(`INSERT INTO analysis_instances (project_id, cip_id, function_id, name, description, enabled, weeks_from, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?) ON CONFLICT (function_id, cip_id) DO NOTHING`)
      .run(projectId, i.componentinproject_id, i.analysisfunction_id, i.name, i.description, i.enabled ? 1 : 0, i.weeks_from, this.now())
    if (res.changes === 0) throw new ConflictError(instanceExistsText(i.componentinproject_id, i.analysisfunction_id))
    return this.instance(Number(res.lastInsertRowid))
  }

  findInstance(id: number): AnalysisInstance | undefined {
    const row = this.sql('SELECT * FROM analysis_instances WHERE id = ?').get(id) as InstanceRow | undefined
    return row && toInstance(row)
  }

  instance(id: number): AnalysisInstance {
    const i = this.findInstance(id)
    if (!i) throw new NotFoundError(`Analysis instance ${id} not found`)
    return i
  }

  instancesOfProject(projectId: number): AnalysisInstance[] {
    return (this.sql('SELECT * FROM analysis_instances WHERE project_id = ? ORDER BY id').all(projectId) as InstanceRow[]).map(toInstance)
  }

  updateInstance(id: number, f: { name?: string; description?: string; enabled?: boolean; weeks_from?: number }): AnalysisInstance {
    const cur = this.instance(id)
    this.sql('UPDATE analysis_instances SET name = ?, description = ?, enabled = ?, weeks_from = ? WHERE id = ?')
      .run(f.name ?? cur.name, f.description ?? cur.description, (f.enabled ?? cur.enabled) ? 1 : 0, f.weeks_from ?? cur.weeks_from, id)
    return this.instance(id)
  }

  /** Deletes the instance with its results and ledger rows. */
  removeInstance(id: number): void {
    this.sql('DELETE FROM analysis_instances WHERE id = ?').run(id)
  }

  /** Stores a result under a new unique result_id. */
  addResult(instanceId: number, r: NewResult): AnalysisResult {
    const id = Number(this.sql(`INSERT INTO analysis_results (result_id, instance_id, start_us, end_us, status, trigger, signal_color, texts, created_at)
      VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)`).run(randomUUID(), instanceId, r.start, r.end, r.status, r.trigger, r.signal_color, JSON.stringify(r.texts), this.now()).lastInsertRowid)
    return toResult(this.sql('SELECT * FROM analysis_results WHERE id = ?').get(id) as ResultRow)
  }

  findResult(instanceId: number, resultId: string): AnalysisResult | undefined {
    const row = this.sql('SELECT * FROM analysis_results WHERE instance_id = ? AND result_id = ?').get(instanceId, resultId) as ResultRow | undefined
    return row && toResult(row)
  }

  /** All results of an instance, oldest first. */
  results(instanceId: number): AnalysisResult[] {
    return (this.sql('SELECT * FROM analysis_results WHERE instance_id = ? ORDER BY id').all(instanceId) as ResultRow[]).map(toResult)
  }

  /** The most recent result (the last stored) of every instance of the project that has one. */
  latestResults(projectId: number): AnalysisResult[] {
    return (this.sql(`SELECT r.* FROM analysis_results r
      JOIN (SELECT MAX(r2.id) AS id FROM analysis_results r2 JOIN analysis_instances i ON i.id = r2.instance_id WHERE i.project_id = ? GROUP BY r2.instance_id) m ON m.id = r.id
      ORDER BY r.instance_id`).all(projectId) as ResultRow[]).map(toResult)
  }

  /** Enabled instances of all projects with the last week in their ledger. */
  scheduled(): ScheduledInstance[] {
    return this.sql(`SELECT i.id, i.project_id, i.weeks_from, (SELECT MAX(w.week_start) FROM analysis_weeks w WHERE w.instance_id = i.id) AS last_week
      FROM analysis_instances i WHERE i.enabled = 1 ORDER BY i.id`).all() as ScheduledInstance[]
  }

  /** Claims still `running` (code) whose claim is older than `before` (ms): their worker died. */
  staleWeeks(running: number, before: number): StaleWeek[] {
    return this.sql('SELECT instance_id, week_start FROM analysis_weeks WHERE status_code = ? AND claimed_at < ? ORDER BY instance_id, week_start').all(running, before) as StaleWeek[]
  }

  /**
   * Claims the week for `worker` in one transaction: a new ledger row, or the takeover of a
   * `running` claim older than `staleBefore` (ms). False when another worker holds or ran it.
   */
  claimWeek(instanceId: number, weekStart: number, worker: string, running: number, staleBefore: number): boolean {
    return this.db.transaction(() => {
      const now = this.now()
      const fresh = this.sql('INSERT INTO analysis_weeks (instance_id, week_start, status_code, claimed_by, claimed_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (instance_id, week_start) DO NOTHING')
        .run(instanceId, weekStart, running, worker, now)
      if (fresh.changes === 1) return true
      return this.sql('UPDATE analysis_weeks SET claimed_by = ?, claimed_at = ? WHERE instance_id = ? AND week_start = ? AND status_code = ? AND claimed_at < ?')
        .run(worker, now, instanceId, weekStart, running, staleBefore).changes === 1
    }).immediate()
  }

  /**
   * Completes a claimed week with its result, in one transaction: stored only while `worker`
   * still holds the claim (undefined otherwise: a takeover happened and the other run counts).
   */
  completeWeek(instanceId: number, weekStart: number, worker: string, running: number, code: number, result: NewResult): AnalysisResult | undefined {
    return this.db.transaction(() => {
      const held = this.sql('SELECT 1 FROM analysis_weeks WHERE instance_id = ? AND week_start = ? AND claimed_by = ? AND status_code = ?').get(instanceId, weekStart, worker, running)
      if (!held) return undefined
      const stored = this.addResult(instanceId, result)
      this.sql('UPDATE analysis_weeks SET status_code = ?, result_id = ? WHERE instance_id = ? AND week_start = ?').run(code, stored.result_id, instanceId, weekStart)
      return stored
    }).immediate()
  }

  /** The ledger of an instance: (week, code, result id), oldest week first. */
  weeks(instanceId: number): { week_start: number; status_code: number; claimed_by: string; result_id: string | null }[] {
    return this.sql('SELECT week_start, status_code, claimed_by, result_id FROM analysis_weeks WHERE instance_id = ? ORDER BY week_start').all(instanceId) as never
  }
}
