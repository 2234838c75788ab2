// The SQLite repository of catalog/analytics.ts (the embedded mode's catalog): its records and
// pure rules stay in catalog/analytics.ts, below both adapters; the PostgreSQL twin is in catalog/postgres/.
import { statements, type Db } from './db.ts'
import { ConflictError, NotFoundError } from '../../core/errors.ts'
import { type AnalysisInstance, type NewResult, type AnalysisResult, type ScheduledInstance, type StaleWeek, type InstanceRow, type ResultRow, toInstance, toResult, LATEST_RESULTS, SCHEDULED, STALE_WEEKS, WEEKS, INSERT_RESULT, resultValues, PRUNE_RESULTS, pruneValues, instanceExistsText } from '../analytics.ts'

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

  /** Stores a result under a new unique result_id; the instance keeps its newest `keep`. */
  addResult(instanceId: number, r: NewResult, keep?: number): AnalysisResult {
    return this.db.transaction(() => {
      const id = Number(this.sql(INSERT_RESULT).run(...resultValues(instanceId, r, this.now())).lastInsertRowid)
      this.sql(PRUNE_RESULTS).run(...pruneValues(instanceId, keep))
      return toResult(this.sql('SELECT * FROM analysis_results WHERE id = ?').get(id) as ResultRow)
    })()
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
    return (this.sql(LATEST_RESULTS).all(projectId) as ResultRow[]).map(toResult)
  }

  /** Enabled instances of all projects with the last week in their ledger. */
  scheduled(): ScheduledInstance[] {
    return this.sql(SCHEDULED).all() as ScheduledInstance[]
  }

  /** Claims still `running` (code) whose claim is older than `before` (ms): their worker died. */
  staleWeeks(running: number, before: number): StaleWeek[] {
    return this.sql(STALE_WEEKS).all(running, before) as StaleWeek[]
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
  completeWeek(instanceId: number, weekStart: number, worker: string, running: number, code: number, result: NewResult, keep?: number): AnalysisResult | undefined {
    return this.db.transaction(() => {
      const held = this.sql('SELECT 1 FROM analysis_weeks WHERE instance_id = ? AND week_start = ? AND claimed_by = ? AND status_code = ?').get(instanceId, weekStart, worker, running)
      if (!held) return undefined
      const stored = this.addResult(instanceId, result, keep)
      this.sql('UPDATE analysis_weeks SET status_code = ?, result_id = ? WHERE instance_id = ? AND week_start = ?').run(code, stored.result_id, instanceId, weekStart)
      return stored
    }).immediate()
  }

  /** The ledger of an instance: (week, code, result id), oldest week first. */
  weeks(instanceId: number): { week_start: number; status_code: number; claimed_by: string; result_id: string | null }[] {
    return this.sql(WEEKS).all(instanceId) as never
  }
}
