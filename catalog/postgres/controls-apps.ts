// The PostgreSQL repository of catalog/controls-apps.ts (the scaled mode's shared catalog): the
// same queries as the SQLite twin (catalog/sqlite/controls-apps.ts), run through sql.ts.
import { NotFoundError } from '../../core/errors.ts'
import type { ControlsAppsPort } from '../port.ts'
import {
  INSERT_APP, INSERT_LOG, LOG_COLUMNS, LOG_ORDER, insertAppParams, listWhere, logParams, toControlsApp, updateApp,
  type ControlsAppLogRow, type ControlsAppRow,
} from '../controls-apps.ts'
import type { Sql } from './sql.ts'

export function controlsApps(sql: Sql): ControlsAppsPort {
  const find = async (id: string) => {
    const row = await sql.one<ControlsAppRow>('SELECT * FROM controls_apps WHERE id = ?', id)
    return row && toControlsApp(row)
  }
  const all = async (text: string, ...params: unknown[]) => (await sql.rows<ControlsAppRow>(text, ...params)).map(toControlsApp)
  return {
    create: async (app, entry) => {
      if (!(await sql.one('SELECT 1 FROM components_in_project WHERE id = ? AND project_id = ?', app.componentinproject_id, app.project_id))) {
        throw new NotFoundError(`Component in project ${app.componentinproject_id} not found in project ${app.project_id}`)
      }
      await sql.atomic(async (s) => {
        await s.run(INSERT_APP, ...insertAppParams(app))
        await s.run(INSERT_LOG, ...logParams(app.id, entry))
      })
      return (await find(app.id))!
    },
    find,
    list: async (projectId, filter, page) => {
      const { where, params } = listWhere(projectId, filter)
      const total = (await sql.value<number>(`SELECT COUNT(*) FROM controls_apps WHERE ${where}`, ...params)) ?? 0
      const items = await all(`SELECT * FROM controls_apps WHERE ${where} ORDER BY created_at, id LIMIT ? OFFSET ?`, ...params, page.limit, page.offset)
      return { items, total }
    },
    listByProject: (projectId) => all('SELECT * FROM controls_apps WHERE project_id = ? ORDER BY created_at, id', projectId),
    listPending: () => all('SELECT * FROM controls_apps WHERE deployed = 1 AND revision > confirmed_revision ORDER BY updated_at, id'),
    update: async (id, seen, change, entry) => {
      const u = updateApp(id, seen, change, entry ? Math.floor(entry.time_us / 1000) : Date.now())
      const moved = await sql.atomic(async (s) => {
        if ((await s.run(u.text, ...u.params)) !== 1) return false
        if (entry) await s.run(INSERT_LOG, ...logParams(id, entry))
        return true
      })
      return moved ? find(id) : undefined
    },
    remove: async (id) => { await sql.run('DELETE FROM controls_apps WHERE id = ?', id) },
    addLog: async (appId, entries) => {
      if (!(await sql.one('SELECT 1 FROM controls_apps WHERE id = ?', appId))) return 0
      return sql.atomic(async (s) => {
        let n = 0
        for (const e of entries) n += await s.run(INSERT_LOG, ...logParams(appId, e))
        return n
      })
    },
    logs: async (appId, page) => {
      const total = (await sql.value<number>('SELECT COUNT(*) FROM controls_app_logs WHERE app_id = ?', appId)) ?? 0
      const items = await sql.rows<ControlsAppLogRow>(`SELECT ${LOG_COLUMNS} FROM controls_app_logs WHERE app_id = ? ${LOG_ORDER} LIMIT ? OFFSET ?`, appId, page.limit, page.offset)
      return { items, total }
    },
    holidays: async (projectId) => {
      const row = await sql.one<{ rules: string; updated_at: number }>('SELECT rules, updated_at FROM project_holidays WHERE project_id = ?', projectId)
      return row ? { rules: JSON.parse(row.rules), updated_at: row.updated_at } : { rules: [], updated_at: null }
    },
    setHolidays: async (projectId, rules, at) => {
      if (!(await sql.one('SELECT 1 FROM projects WHERE id = ?', projectId))) throw new NotFoundError(`Project ${projectId} not found`)
      await sql.run(`INSERT INTO project_holidays (project_id, rules, updated_at) VALUES (?, ?, ?)
        ON CONFLICT (project_id) DO UPDATE SET rules = excluded.rules, updated_at = excluded.updated_at`, projectId, JSON.stringify(rules), at)
      return { rules: [...rules], updated_at: at }
    },
  }
}
