// The PostgreSQL repository of favorites and plot views (catalog/user-views.ts). Same
// behaviour as catalog/sqlite/user-views.ts (the contract suite holds both).
import { NotFoundError } from '../../core/errors.ts'
import type { UserViewsPort } from '../port.ts'
import { PLOT_VIEW_COLUMNS, plotViewOf, type Favorite, type PlotView, type PlotViewRow } from '../user-views.ts'
import type { Sql } from './sql.ts'

const FAVORITES = 'SELECT f.datapoint, d.datapoint_id AS "dataPointID", f.created_at FROM favorites f JOIN datapoints d ON d.id = f.datapoint'

export function userViews(sql: Sql): UserViewsPort {
  const byId = async (id: number): Promise<PlotView | undefined> => {
    const row = await sql.one<PlotViewRow>(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE id = ?`, id)
    return row && plotViewOf(row)
  }
  return {
    addFavorite: async (userId, datapoint, now) => {
      await sql.run('INSERT INTO favorites (user_id, datapoint, created_at) VALUES (?, ?, ?) ON CONFLICT (user_id, datapoint) DO NOTHING', userId, datapoint, now)
      return (await sql.one<Favorite>(`${FAVORITES} WHERE f.user_id = ? AND f.datapoint = ?`, userId, datapoint))!
    },
    removeFavorite: async (userId, datapoint) => (await sql.run('DELETE FROM favorites WHERE user_id = ? AND datapoint = ?', userId, datapoint)) > 0,
    favorites: (userId, projectId) => sql.rows<Favorite>(`${FAVORITES} WHERE f.user_id = ? AND d.project_id = ? ORDER BY f.created_at, f.datapoint`, userId, projectId),
    countFavorites: async (userId, projectId) => Number(await sql.value('SELECT count(*) FROM favorites f JOIN datapoints d ON d.id = f.datapoint WHERE f.user_id = ? AND d.project_id = ?', userId, projectId)),
    createPlotView: async (userId, projectId, name, spec, now) => {
      const id = await sql.value<number>('INSERT INTO plot_views (user_id, project_id, name, spec, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?) RETURNING id',
        userId, projectId, name, JSON.stringify(spec), now, now)
      return (await byId(Number(id)))!
    },
    plotView: async (userId, projectId, id) => {
      const row = await sql.one<PlotViewRow>(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE id = ? AND user_id = ? AND project_id = ?`, id, userId, projectId)
      return row && plotViewOf(row)
    },
    plotViews: async (userId, projectId) => (await sql.rows<PlotViewRow>(`SELECT ${PLOT_VIEW_COLUMNS} FROM plot_views WHERE user_id = ? AND project_id = ? ORDER BY id`, userId, projectId)).map(plotViewOf),
    countPlotViews: async (userId, projectId) => Number(await sql.value('SELECT count(*) FROM plot_views WHERE user_id = ? AND project_id = ?', userId, projectId)),
    updatePlotView: async (id, change, now) => {
      const old = await byId(id)
      if (!old) throw new NotFoundError(`Plot view ${id} not found`)
      await sql.run('UPDATE plot_views SET name = ?, spec = ?, updated_at = ? WHERE id = ?', change.name ?? old.name, JSON.stringify(change.spec ?? old.spec), now, id)
      return (await byId(id))!
    },
    deletePlotView: async (id) => (await sql.run('DELETE FROM plot_views WHERE id = ?', id)) > 0,
  }
}
