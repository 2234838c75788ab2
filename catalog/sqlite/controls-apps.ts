// The SQLite repository of catalog/controls-apps.ts (the embedded mode's catalog): the records,
// queries and rules stay in catalog/controls-apps.ts, below both adapters; the PostgreSQL twin
// is catalog/postgres/controls-apps.ts.
import { statements, type Db } from './db.ts'
import { NotFoundError } from '../../core/errors.ts'
import {
  INSERT_APP, INSERT_LOG, LOG_COLUMNS, LOG_ORDER, insertAppParams, listWhere, logParams, toControlsApp, updateApp,
  type ControlsApp, type ControlsAppChange, type ControlsAppFilter, type ControlsAppLogEntry, type ControlsAppLogRow,
  type ControlsAppRow, type HolidayCalendar, type NewControlsApp, type Page,
} from '../controls-apps.ts'

export class ControlsApps {
  private readonly sql: ReturnType<typeof statements>

  constructor (private readonly db: Db) {
    this.sql = statements(db)
  }

  async create(app: NewControlsApp, entry: ControlsAppLogEntry): Promise<ControlsApp> {
    if (this.sql('SELECT 1 FROM components_in_project WHERE id = ? AND project_id = ?').get(app.componentinproject_id, app.project_id) === undefined) {
      throw new NotFoundError(`Component in project ${app.componentinproject_id} not found in project ${app.project_id}`)
    }
    this.db.transaction(() => {
      this.sql(INSERT_APP).run(...insertAppParams(app))
      this.sql(INSERT_LOG).run(...logParams(app.id, entry))
    })()
    return (await this.find(app.id))!
  }

  async find(id: string): Promise<ControlsApp | undefined> {
    const row = this.sql('SELECT * FROM controls_apps WHERE id = ?').get(id) as ControlsAppRow | undefined
    return row && toControlsApp(row)
  }

  async list(projectId: number, filter: ControlsAppFilter, page: { offset: number; limit: number }): Promise<Page<ControlsApp>> {
    const { where, params } = listWhere(projectId, filter)
    const total = this.sql(`SELECT COUNT(*) FROM controls_apps WHERE ${where}`).pluck().get(...params) as number
    const rows = this.sql(`SELECT * FROM controls_apps WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`).all(...params, page.limit, page.offset) as ControlsAppRow[]
    return { items: rows.map(toControlsApp), total }
  }

  async listByProject(projectId: number): Promise<ControlsApp[]> {
    return (this.sql('SELECT * FROM controls_apps WHERE project_id = ? ORDER BY created_at, id').all(projectId) as ControlsAppRow[]).map(toControlsApp)
  }

  async listPending(): Promise<ControlsApp[]> {
    return (this.sql('SELECT * FROM controls_apps WHERE deployed = 1 AND revision > confirmed_revision ORDER BY updated_at, id').all() as ControlsAppRow[]).map(toControlsApp)
  }

  async update(id: string, seen: Pick<ControlsApp, 'revision' | 'status_code'>, change: ControlsAppChange, entry?: ControlsAppLogEntry): Promise<ControlsApp | undefined> {
    const u = updateApp(id, seen, change, entry ? Math.floor(entry.time_us / 1000) : Date.now())
    const moved = this.db.transaction(() => {
      if (this.sql(u.text).run(...u.params).changes !== 1) return false
      if (entry) this.sql(INSERT_LOG).run(...logParams(id, entry))
      return true
    })()
    return moved ? this.find(id) : undefined
  }

  async remove(id: string): Promise<void> {
    this.sql('DELETE FROM controls_apps WHERE id = ?').run(id)
  }

  async addLog(appId: string, entries: readonly ControlsAppLogEntry[]): Promise<number> {
    if (this.sql('SELECT 1 FROM controls_apps WHERE id = ?').get(appId) === undefined) return 0
    return this.db.transaction(() => entries.reduce((n, e) => n + this.sql(INSERT_LOG).run(...logParams(appId, e)).changes, 0))()
  }

  async logs(appId: string, page: { offset: number; limit: number }): Promise<Page<ControlsAppLogEntry>> {
    const total = this.sql('SELECT COUNT(*) FROM controls_app_logs WHERE app_id = ?').pluck().get(appId) as number
    const items = this.sql(`SELECT ${LOG_COLUMNS} FROM controls_app_logs WHERE app_id = ? ${LOG_ORDER} LIMIT ? OFFSET ?`).all(appId, page.limit, page.offset) as ControlsAppLogRow[]
    return { items, total }
  }

  async holidays(projectId: number): Promise<HolidayCalendar> {
    const row = this.sql('SELECT rules, updated_at FROM project_holidays WHERE project_id = ?').get(projectId) as { rules: string; updated_at: number } | undefined
    return row ? { rules: JSON.parse(row.rules), updated_at: row.updated_at } : { rules: [], updated_at: null }
  }

  async setHolidays(projectId: number, rules: readonly unknown[], at: number): Promise<HolidayCalendar> {
    if (this.sql('SELECT 1 FROM projects WHERE id = ?').get(projectId) === undefined) throw new NotFoundError(`Project ${projectId} not found`)
    this.sql(`INSERT INTO project_holidays (project_id, rules, updated_at) VALUES (?, ?, ?)
      ON CONFLICT (project_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at`).run(projectId, JSON.stringify(rules), at)
    return { rules: [...rules], updated_at: at }
  }
}
